// Creates one group of a document's relationships. A missing endpoint yields no row, so the marker
// counts the step only if every relationship was created.
UNWIND $rows AS row
MATCH (a:{src_label})
WHERE a.{src_id} = row.src
MATCH (b:{dst_label})
WHERE b.{dst_id} = row.dst
CREATE (a)-[r:{type}]->(b)
SET r = row.props
WITH count(r) AS created
MATCH (w:DocgraphWrite {token: $token})
SET w.steps = w.steps + CASE WHEN created = size($rows) THEN 1 ELSE 0 END
