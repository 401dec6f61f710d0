// Store GNN embeddings on {label} nodes by id. FalkorDB indexes vectors only when stored as vecf32.
UNWIND $rows AS row
MATCH (n:{label})
WHERE n.{id} = row.key
SET n.gnn_embedding = vecf32(row.vector)
RETURN count(n) AS written
