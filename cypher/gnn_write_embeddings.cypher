// Store GNN embeddings on {label} nodes by id; vectors are plain float lists here.
UNWIND $rows AS row
MATCH (n:{label})
WHERE n.{id} = row.key
SET n.gnn_embedding = row.vector
RETURN count(n) AS written
