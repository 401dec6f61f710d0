// The sections a region sits in, outermost first (its section path).
MATCH (r:Region {region_id: $region_id})-[:IS_UNDER*1..]->(s:Section)
RETURN s.section_id AS section_id, s.number AS number, s.title AS title, s.level AS level
ORDER BY level
