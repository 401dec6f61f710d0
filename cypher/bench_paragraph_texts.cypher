// Paragraph texts of every document, with their document, to draw benchmark queries from.
MATCH (r:Region)
WHERE r.kind = 'paragraph'
RETURN r.text AS text, r.doc_id AS doc_id
ORDER BY r.region_id
