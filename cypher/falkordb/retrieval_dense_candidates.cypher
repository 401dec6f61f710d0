// Hybrid candidates in one round trip: the vector index's top $k regions plus the given (lexical)
// candidate ids, every one scored by exact cosine against its stored embedding.
CALL db.idx.vector.queryNodes('Region', 'embedding', $k, vecf32($vector)) YIELD node
WITH collect(node.region_id) + $ids AS ids
UNWIND ids AS id
WITH DISTINCT id
MATCH (r:Region {region_id: id})
WHERE r.embedding IS NOT NULL
RETURN r.region_id AS region_id, 1 - vec.cosineDistance(r.embedding, vecf32($vector)) AS score
