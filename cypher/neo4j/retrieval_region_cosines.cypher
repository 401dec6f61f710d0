// Exact cosine of the query with the stored embedding of each candidate region, in the database.
UNWIND $ids AS id
MATCH (r:Region {region_id: id})
WHERE r.embedding IS NOT NULL
RETURN r.region_id AS region_id, 2 * vector.similarity.cosine(r.embedding, $vector) - 1 AS score
