// How many regions of a document are stored (all versions).
MATCH (r:Region)
WHERE r.doc_id = $doc_id
RETURN count(r) AS regions
