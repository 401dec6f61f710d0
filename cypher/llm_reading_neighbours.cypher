// The regions right before and after the given ones in reading order, for a re-read with more evidence.
UNWIND $ids AS id
MATCH (r:Region {region_id: id})-[:HAS_NEXT]-(n:Region)
RETURN DISTINCT n.region_id AS region_id
