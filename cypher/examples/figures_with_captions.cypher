// question: Which figures are there, with their captions and pages?
MATCH (f:Figure)
OPTIONAL MATCH (c:Caption)-[:CAPTION_OF]->(f)
RETURN f.doc_id AS doc_id, f.page AS page, f.region_id AS region_id, c.text AS caption
ORDER BY doc_id, page
