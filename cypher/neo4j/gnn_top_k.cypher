// Nearest regions by GNN embedding through the vector index ($index: 'region_gnn_embedding'), ids
// and cosine only. Neo4j scores cosine as (1 + cos) / 2; 2 * score - 1 gives back the cosine.
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
RETURN node.region_id AS region_id, 2 * score - 1 AS score
ORDER BY score DESC
