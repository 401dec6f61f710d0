// Regions by id with their reading-order position, section title, visual description and whether
// OCR read their text (LLM context).
UNWIND $ids AS id
MATCH (r:Region {region_id: id})
OPTIONAL MATCH (r)-[:IS_UNDER]->(s:Section)
WITH r, head(collect(s.title)) AS section
RETURN r.region_id AS region_id, r.doc_id AS doc_id, r.page AS page, r.order AS order, r.kind AS kind,
       r.bbox AS bbox, r.text AS text, r.description AS description, r.ocr AS ocr, section
