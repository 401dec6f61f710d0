// A step failed: give the stashed old version its ids back (nodes of one label).
MATCH (w:DocgraphWrite {token: $token})
WHERE w.steps <> $steps
MATCH (n:{label})
WHERE n.doc_id IN $doc_ids AND n.{id} ENDS WITH $suffix
SET n.{id} = substring(n.{id}, 0, size(n.{id}) - size($suffix))
