// The stored versions (sha256) of a document: none, or one.
MATCH (d:Document)
WHERE d.doc_id = $doc_id
RETURN d.sha256 AS sha256
