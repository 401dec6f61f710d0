// question: Which section has the most tables?
MATCH (t:Table)-[:IS_UNDER]->(s:Section)
RETURN s.doc_id AS doc_id, s.title AS section, count(t) AS tables
ORDER BY tables DESC
LIMIT 5
