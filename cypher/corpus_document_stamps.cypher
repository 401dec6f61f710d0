// Every stored document with what identifies the version stored and the ingest that stored it, so
// that `docgraph relink` can tell whether any document was stored again or deleted while it ran
// (documents stored before ingest_id existed fall back to their ingest time).
MATCH (d:Document)
RETURN d.doc_id AS doc_id,
       coalesce(d.doc_sha256, d.sha256) AS version,
       coalesce(d.build, '') AS build,
       coalesce(d.ingest_id, d.ingested_at, '') AS ingest_id
ORDER BY doc_id
