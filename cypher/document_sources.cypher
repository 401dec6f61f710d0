// Where each document was read from, its content hash and how it was built (`docgraph documents`).
MATCH (d:Document)
RETURN d.doc_id AS doc_id, d.source_path AS source_path, d.sha256 AS sha256, coalesce(d.build, '') AS build
ORDER BY doc_id
