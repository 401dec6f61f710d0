// Every step succeeded: delete the old version (nodes of one label; a stashed Document's doc_id
// carries the suffix, hence the list of doc ids).
MATCH (w:DocgraphWrite {token: $token})
WHERE w.steps = $steps
MATCH (n:{label})
WHERE n.doc_id IN $doc_ids AND coalesce(n.doc_sha256, '') <> $version
DETACH DELETE n
