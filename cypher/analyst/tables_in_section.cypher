// question: Which tables are in the section "Enclosures" (its subsections included), with their captions?
MATCH (s:Section)
WHERE s.title CONTAINS 'Enclosures'
MATCH (t:Table)-[:IS_UNDER*1..]->(s)
OPTIONAL MATCH (c:Caption)-[:CAPTION_OF]->(t)
RETURN s.doc_id AS doc_id, s.title AS section, t.page AS page, c.text AS caption, t.text AS table_text
ORDER BY doc_id, page
