// Nearest regions by GNN embedding through the vector index ($property: 'gnn_embedding'), ids and
// cosine only. FalkorDB gives cosine distance.
CALL db.idx.vector.queryNodes('Region', $property, $k, vecf32($vector)) YIELD node, score
RETURN node.region_id AS region_id, 1 - score AS score
ORDER BY score DESC
