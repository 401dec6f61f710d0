// The other stored documents with this file content (a copy of the PDF under another name, or
// the same file stored under the id an older docgraph gave its name).
MATCH (d:Document)
WHERE d.sha256 = $sha256 AND d.doc_id <> $doc_id
RETURN d.doc_id AS doc_id, d.file_name AS file_name, d.source_path AS source_path,
       coalesce(d.ingest_id, d.ingested_at, '') AS ingest_id
ORDER BY doc_id
