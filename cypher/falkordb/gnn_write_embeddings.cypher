// Store GNN embeddings in {property} of {label} nodes by id. FalkorDB indexes and compares vectors
// only when they are stored as vecf32. FalkorDB silently keeps a vecf32 property's old value when
// it is SET to another vector, so the property is cleared first.
UNWIND $rows AS row
MATCH (n:{label})
WHERE n.{id} = row.key
SET n.{property} = NULL
WITH n, row
SET n.{property} = vecf32(row.vector)
RETURN count(n) AS written
