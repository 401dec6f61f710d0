// Set a document's build only if it is still the version, build and ingest that were read before
// (see app/stores/stamps.py): no row comes back when it was stored again or deleted in between.
// Neo4j reads without locks, so two writers could both pass the check: the first SET takes the
// Document's write lock (a property set locks the node even to its own value), then the stamp is
// read under it. FalkorDB runs every write query under the graph's lock (cypher/ has its version).
MATCH (d:Document)
WHERE d.doc_id = $doc_id
SET d.build = coalesce(d.build, '')
WITH d
WHERE coalesce(d.doc_sha256, d.sha256) = $version
  AND d.build = $build_read
  AND coalesce(d.ingest_id, d.ingested_at, '') = $ingest_id
SET d.build = $build
RETURN d.build AS build
