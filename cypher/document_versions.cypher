// The stored versions of a document (none, or one): the file's sha256 combined with how its graph
// was built (GraphBatch.version), kept on every node as doc_sha256; and Document.build, which
// `docgraph reembed` may have changed since (empty for documents stored before builds).
MATCH (d:Document)
WHERE d.doc_id = $doc_id
RETURN coalesce(d.doc_sha256, d.sha256) AS version, coalesce(d.build, '') AS build
