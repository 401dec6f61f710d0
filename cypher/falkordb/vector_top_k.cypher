// Nearest nodes through the vector index. FalkorDB returns the cosine distance; 1 - distance is
// the cosine similarity, so higher is better as on Neo4j.
CALL db.idx.vector.queryNodes($label, $property, $k, vecf32($vector)) YIELD node, score
RETURN properties(node) AS props, 1 - score AS score
ORDER BY score DESC
