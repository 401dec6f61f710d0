// A step failed: delete what the new version wrote (nodes of one label).
MATCH (w:DocgraphWrite {token: $token})
WHERE w.steps <> $steps
MATCH (n:{label})
WHERE n.doc_id = $doc_id AND n.doc_sha256 = $version
DETACH DELETE n
