// Sections to suggest example questions from: those holding the most regions, with their document.
MATCH (r:Region)-[:IS_UNDER]->(s:Section)
WITH s, count(r) AS regions
RETURN s.doc_id AS doc_id, s.title AS title, regions
ORDER BY regions DESC, title
LIMIT $limit
