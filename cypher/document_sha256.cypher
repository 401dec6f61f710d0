// The file content (sha256) of the stored document with this id, if any.
MATCH (d:Document)
WHERE d.doc_id = $doc_id
RETURN d.sha256 AS sha256
