// The stored versions of a document (none, or one): the file's sha256 combined with how its graph
// was built (GraphBatch.version), kept on every node as doc_sha256.
MATCH (d:Document)
WHERE d.doc_id = $doc_id
RETURN coalesce(d.doc_sha256, d.sha256) AS version
