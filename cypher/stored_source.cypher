// What is stored under a document id: its file's content hash and where it was read from.
MATCH (d:Document {doc_id: $doc_id})
RETURN d.sha256 AS sha256, d.source_path AS source_path
LIMIT 1
