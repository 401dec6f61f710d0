// Exact cosine of the query with the stored embedding of each candidate region, computed in the
// database so no embedding leaves it.
UNWIND $ids AS id
MATCH (r:Region {region_id: id})
WHERE r.embedding IS NOT NULL
RETURN r.region_id AS region_id, 1 - vec.cosineDistance(r.embedding, vecf32($vector)) AS score
