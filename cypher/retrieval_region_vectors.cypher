// Stored embeddings of candidate regions, for exact cosine re-scoring of vector-index hits.
UNWIND $ids AS id
MATCH (r:Region {region_id: id})
RETURN r.region_id AS region_id, r.embedding AS embedding
