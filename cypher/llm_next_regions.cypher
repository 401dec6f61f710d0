// The regions after each of the given ones in reading order, up to four steps on, with how many
// steps: the description under a definition line (past the other lines of its group), for an
// answer that quotes it with the line.
UNWIND $ids AS id
MATCH path = (r:Region {region_id: id})-[:HAS_NEXT*1..4]->(n:Region)
RETURN id AS hit, n.region_id AS region_id, length(path) AS steps
