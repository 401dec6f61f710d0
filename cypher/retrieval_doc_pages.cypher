// The pages of one document with their body text, for page-level BM25.
MATCH (p:Page {doc_id: $doc_id})
RETURN p.page_id AS page_id, p.number AS number, p.text AS text, p.width AS width, p.height AS height
ORDER BY number
