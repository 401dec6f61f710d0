// question: Which pages were read by OCR (scanned pages, or pictures with text in them)?
MATCH (r:Region)
WHERE r.ocr = true
RETURN r.doc_id AS doc_id, r.page AS page, collect(r.kind) AS kinds, count(r) AS regions
ORDER BY doc_id, page
