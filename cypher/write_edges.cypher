// Creates one group of a document's relationships (same type and endpoint labels); an endpoint
// that does not exist yields no row, so the caller compares `created` with the rows sent.
UNWIND $rows AS row
MATCH (a:{src_label})
WHERE a.{src_id} = row.src
MATCH (b:{dst_label})
WHERE b.{dst_id} = row.dst
CREATE (a)-[r:{type}]->(b)
SET r = row.props
RETURN count(r) AS created
