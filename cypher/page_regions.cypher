// The regions of one page of a document, in reading order.
MATCH (r:Region {doc_id: $doc_id, page: $page})
RETURN r.region_id AS region_id, r.kind AS kind, r.bbox AS bbox, r.order AS order, r.text AS text
ORDER BY r.order
