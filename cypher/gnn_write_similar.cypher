// IS_SIMILAR (kNN by embedding) edges between regions of a stored document that has none yet.
UNWIND $rows AS row
MATCH (a:Region)
WHERE a.region_id = row.src
MATCH (b:Region)
WHERE b.region_id = row.dst
MERGE (a)-[e:IS_SIMILAR]->(b)
SET e.score = row.score
RETURN count(e) AS written
