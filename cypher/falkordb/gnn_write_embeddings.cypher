// Store GNN embeddings in {property} of {label} nodes by id. FalkorDB indexes and compares vectors
// only when they are stored as vecf32.
UNWIND $rows AS row
MATCH (n:{label})
WHERE n.{id} = row.key
SET n.{property} = vecf32(row.vector)
RETURN count(n) AS written
