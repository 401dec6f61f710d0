// question: What kinds of regions are on page 4 of "report", in reading order?
MATCH (r:Region {doc_id: 'report', page: 4})
WHERE NOT r.kind IN ['page_header', 'page_footer']
RETURN r.order AS position, r.kind AS kind, r.region_id AS region_id, left(r.text, 80) AS text
ORDER BY position
