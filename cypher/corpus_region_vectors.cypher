// The body regions of one document with their input embedding: what `docgraph relink` looks up in the
// other documents (page headers and footers are never linked across documents).
MATCH (r:Region)
WHERE r.doc_id = $doc_id AND r.embedding IS NOT NULL AND NOT r.kind IN $furniture
RETURN r.region_id AS key, r.embedding AS embedding
ORDER BY key
