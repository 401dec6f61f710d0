// The passage vectors of one document's long regions (embedded passage by passage), concatenated:
// loaded once per document version into the in-memory corpus, for best-passage scoring.
MATCH (r:Region {doc_id: $doc_id})
WHERE r.passage_embeddings IS NOT NULL
RETURN r.region_id AS region_id, r.passage_embeddings AS vectors
