// question: How many pages does each document have, and what are their titles?
MATCH (d:Document)
RETURN d.doc_id AS doc_id, d.title AS title, d.page_count AS pages
ORDER BY pages DESC
