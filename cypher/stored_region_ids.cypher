// Which of the given region ids are stored (links to the others cannot be written).
MATCH (r:Region)
WHERE r.region_id IN $ids
RETURN r.region_id AS id
