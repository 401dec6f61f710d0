// Set a document's build only if it is still the version, build and ingest that were read before
// (see app/stores/stamps.py): no row comes back when it was stored again or deleted in between,
// and `docgraph reembed` then reads it again. With $build = $build_read it only checks.
MATCH (d:Document)
WHERE d.doc_id = $doc_id
  AND coalesce(d.doc_sha256, d.sha256) = $version
  AND coalesce(d.build, '') = $build_read
  AND coalesce(d.ingest_id, d.ingested_at, '') = $ingest_id
SET d.build = $build
RETURN d.build AS build
