// question: How many tables does each document have?
MATCH (t:Table)
RETURN t.doc_id AS doc_id, count(t) AS tables
ORDER BY doc_id
