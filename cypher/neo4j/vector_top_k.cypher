// Nearest nodes through the vector index (addressed by name). Neo4j scores cosine as (1 + cos) / 2;
// 2 * score - 1 gives back the cosine similarity, the same scale as FalkorDB.
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
RETURN properties(node) AS props, 2 * score - 1 AS score
ORDER BY score DESC
