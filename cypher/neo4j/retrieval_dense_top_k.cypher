// Nearest regions through the vector index, ids and cosine only. Neo4j scores cosine as
// (1 + cos) / 2; 2 * score - 1 gives back the cosine.
CALL db.index.vector.queryNodes('region_embedding', $k, $vector) YIELD node, score
RETURN node.region_id AS region_id, 2 * score - 1 AS score
ORDER BY score DESC
