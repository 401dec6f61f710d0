// Every stored document and its version: retrieval reloads a document whose version changed.
MATCH (d:Document)
RETURN d.doc_id AS doc_id, d.sha256 AS sha256, d.file_name AS file_name
ORDER BY doc_id
