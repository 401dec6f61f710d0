// A step failed: delete what the new version wrote (nodes of one label), not the stashed old nodes,
// which carry the same version when it was a forced rewrite.
MATCH (w:DocgraphWrite {token: $token})
WHERE w.steps <> $steps
MATCH (n:{label})
WHERE n.doc_id = $doc_id AND n.doc_sha256 = $version AND NOT n.{id} ENDS WITH $suffix
DETACH DELETE n
