// Moves the stored version of a document out of the way before the new one is written: its ids
// get a suffix, so new nodes that reuse an id (the Document always reuses doc_id) pass the unique
// constraints. Only labels whose ids collide are stashed: updating nodes in place is avoided.
// $rewrite: the stored version is the one written again (a forced ingest), so all of it moves.
MATCH (n:{label})
WHERE n.doc_id = $doc_id AND (coalesce(n.doc_sha256, '') <> $version OR $rewrite)
SET n.{id} = n.{id} + $suffix
