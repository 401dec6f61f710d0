// Paragraph texts of every document, to draw benchmark queries from.
MATCH (r:Region)
WHERE r.kind = 'paragraph'
RETURN r.text AS text
ORDER BY r.region_id
