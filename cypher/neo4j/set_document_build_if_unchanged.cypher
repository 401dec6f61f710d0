// Set a document's build only if it is still the version, build and ingest that were read before
// (see app/stores/stamps.py): no row comes back when it was stored again or deleted in between.
// Neo4j reads without locks, so two writers could both pass the check. Setting doc_id to itself
// takes the Document's write lock first (a property set locks the node even to its own value, and
// doc_id never changes, so nothing stale is written back); the stamp is then read under the lock,
// as Neo4j's manual does against lost updates. FalkorDB runs every write query under the graph's
// lock (cypher/ has its version).
MATCH (d:Document)
WHERE d.doc_id = $doc_id
SET d.doc_id = d.doc_id
WITH d
WHERE coalesce(d.doc_sha256, d.sha256) = $version
  AND coalesce(d.build, '') = $build_read
  AND coalesce(d.ingest_id, d.ingested_at, '') = $ingest_id
SET d.build = $build
RETURN d.build AS build
