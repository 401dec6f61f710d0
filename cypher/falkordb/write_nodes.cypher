// Creates one group of a document's nodes (same label set). Embeddings are stored as vecf32 (the
// vector index only sees that type); vecf32(null) is null, which sets nothing. The marker counts
// the step only if every row was created.
UNWIND $rows AS row
CREATE (n:{labels})
SET n = row.props, n.embedding = vecf32(row.embedding), n.gnn_embedding = vecf32(row.gnn_embedding)
WITH count(n) AS created
MATCH (w:DocgraphWrite {token: $token})
SET w.steps = w.steps + CASE WHEN created = size($rows) THEN 1 ELSE 0 END
