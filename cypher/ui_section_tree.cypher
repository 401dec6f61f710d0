// A document's sections in document order, each with its parent section and how many regions it holds.
MATCH (s:Section {doc_id: $doc_id})
OPTIONAL MATCH (s)-[:IS_UNDER]->(p:Section)
OPTIONAL MATCH (r:Region)-[:IS_UNDER]->(s)
RETURN s.section_id AS section_id, s.number AS number, s.title AS title, s.level AS level,
       s.page_start AS page_start, s.order AS order, p.section_id AS parent_id, count(r) AS regions
ORDER BY order
