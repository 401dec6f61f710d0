// Nearest regions through the vector index: ids and cosine only (shipping the 384-float embeddings
// back, as properties(node) does, costs ~3 ms a hit in the client). FalkorDB gives cosine distance.
CALL db.idx.vector.queryNodes('Region', 'embedding', $k, vecf32($vector)) YIELD node, score
RETURN node.region_id AS region_id, 1 - score AS score
ORDER BY score DESC
