// The regions directly under a section (or, for the document id, before its first section), in reading order.
MATCH (r:Region)-[:IS_UNDER]->(s)
WHERE s.section_id = $section_id OR (s:Document AND s.doc_id = $section_id)
RETURN r.region_id AS region_id, r.kind AS kind, r.page AS page, r.order AS order, left(r.text, 100) AS text
ORDER BY page, order
