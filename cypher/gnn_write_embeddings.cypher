// Store GNN embeddings in {property} of {label} nodes by id; vectors are plain float lists here.
UNWIND $rows AS row
MATCH (n:{label})
WHERE n.{id} = row.key
SET n.{property} = row.vector
RETURN count(n) AS written
