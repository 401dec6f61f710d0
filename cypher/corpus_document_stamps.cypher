// Every stored document (or only $doc_id) with what identifies the version stored and the ingest
// that stored it, so that `docgraph relink` and `docgraph reembed` can tell whether a document was
// stored again or deleted while they ran (app/stores/stamps.py; documents stored before
// ingest_id existed fall back to their ingest time).
MATCH (d:Document)
WHERE $doc_id IS NULL OR d.doc_id = $doc_id
RETURN d.doc_id AS doc_id,
       coalesce(d.doc_sha256, d.sha256) AS version,
       coalesce(d.build, '') AS build,
       coalesce(d.ingest_id, d.ingested_at, '') AS ingest_id
ORDER BY doc_id
