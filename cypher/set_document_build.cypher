// Record how a stored document's graph was built (Document.build): after `docgraph reembed` wrote
// another checkpoint's GNN vectors, or an ingest wrote its own back. The version (doc_sha256, the
// ids) stays the ingest's.
MATCH (d:Document)
WHERE d.doc_id = $doc_id
SET d.build = $build
RETURN d.build AS build
