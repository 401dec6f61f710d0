// The figures and tables of one document to describe, with their caption text, in reading order;
// turn: how far their page was turned to read it (their boxes are in that frame).
MATCH (r:Region {doc_id: $doc_id})
WHERE r.kind IN ['figure', 'table'] AND ($redo OR r.description IS NULL)
OPTIONAL MATCH (c:Region)-[:CAPTION_OF]->(r)
WITH r, head(collect(c.text)) AS caption
OPTIONAL MATCH (p:Page {doc_id: $doc_id, number: r.page})
RETURN r.region_id AS region_id, r.page AS page, r.kind AS kind, r.bbox AS bbox, r.text AS text, caption,
       coalesce(p.turn, 0) AS turn
ORDER BY r.page, r.order
