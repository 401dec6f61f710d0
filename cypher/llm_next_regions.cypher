// The region right after each of the given ones in reading order (the description under a
// definition line), for an answer that quotes it with the line.
UNWIND $ids AS id
MATCH (r:Region {region_id: id})-[:HAS_NEXT]->(n:Region)
RETURN id AS hit, n.region_id AS region_id
