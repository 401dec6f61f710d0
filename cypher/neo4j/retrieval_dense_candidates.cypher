// Hybrid candidates in one round trip: the vector index's top $k regions plus the given (lexical)
// candidate ids, every one scored by exact cosine (Neo4j's similarity is (1 + cos) / 2).
CALL db.index.vector.queryNodes('region_embedding', $k, $vector) YIELD node
WITH collect(node.region_id) + $ids AS ids
UNWIND ids AS id
WITH DISTINCT id
MATCH (r:Region {region_id: id})
WHERE r.embedding IS NOT NULL
RETURN r.region_id AS region_id, 2 * vector.similarity.cosine(r.embedding, $vector) - 1 AS score
