// One region with the document version it belongs to (the UI's evidence panel).
MATCH (r:Region {region_id: $region_id})
OPTIONAL MATCH (d:Document {doc_id: r.doc_id})
RETURN r.region_id AS region_id, r.doc_id AS doc_id, r.page AS page, r.kind AS kind, r.order AS order,
       r.text AS text, r.bbox AS bbox, r.description AS description, r.ocr AS ocr, d.sha256 AS sha256
