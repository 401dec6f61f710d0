// Record how a stored document's graph was built (Document.build), after `docgraph reembed` recomputed
// its GNN vectors with another checkpoint. The version (doc_sha256, the ids) stays the ingest's.
MATCH (d:Document)
WHERE d.doc_id = $doc_id
SET d.build = $build
RETURN d.build AS build
