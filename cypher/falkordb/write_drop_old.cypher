// Every step succeeded: delete the old version (nodes of one label; a stashed Document's doc_id
// carries the suffix, hence the list of doc ids). A stashed node is old whatever its version: a
// forced rewrite stores the same version again.
MATCH (w:DocgraphWrite {token: $token})
WHERE w.steps = $steps
MATCH (n:{label})
WHERE n.doc_id IN $doc_ids AND (coalesce(n.doc_sha256, '') <> $version OR n.{id} ENDS WITH $suffix)
DETACH DELETE n
