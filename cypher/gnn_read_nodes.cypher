// The {label} nodes of one document with their input embedding: the GNN's node features.
MATCH (n:{label})
WHERE n.doc_id = $doc_id
RETURN n.{id} AS key, n.kind AS kind, n.page AS page, n.embedding AS embedding
ORDER BY key
