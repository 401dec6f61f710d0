// The passage vectors of those candidate regions that were embedded passage by passage (long
// regions only: a few per query), concatenated, for best-passage scoring in Python.
UNWIND $ids AS id
MATCH (r:Region {region_id: id})
WHERE r.passage_embeddings IS NOT NULL
RETURN r.region_id AS region_id, r.passage_embeddings AS vectors
