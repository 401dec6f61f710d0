// How many stored regions a document can never be linked to across documents: its own (all
// versions) and every page header or footer. A vector search has to look past them all at worst.
MATCH (r:Region)
WHERE r.doc_id = $doc_id OR r.kind IN $furniture
RETURN count(r) AS regions
