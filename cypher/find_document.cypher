// A document by id or by file name: the one with that id first, then those of that file name.
MATCH (d:Document)
WHERE d.doc_id = $doc OR d.file_name = $doc
RETURN d.doc_id AS doc_id, d.title AS title, d.file_name AS file_name, d.sha256 AS sha256,
       d.page_count AS pages, d.source_path AS source_path, coalesce(d.ingest_id, d.ingested_at, '') AS ingest_id
ORDER BY CASE WHEN doc_id = $doc THEN 0 ELSE 1 END, doc_id
LIMIT 10
