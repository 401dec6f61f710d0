// The region right before each of the given ones in reading order: the line that leads into a
// list ("Do not take Zelvarex:"), for an answer that quotes an item of the list with it.
UNWIND $ids AS id
MATCH (p:Region)-[:HAS_NEXT]->(r:Region {region_id: id})
RETURN id AS hit, p.region_id AS region_id
