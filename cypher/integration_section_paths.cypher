// The sections enclosing each region (its own section and every section above it), for section paths.
UNWIND $ids AS id
MATCH (:Region {region_id: id})-[:IS_UNDER*1..]->(s:Section)
RETURN id AS region_id, s.title AS title, s.level AS level
