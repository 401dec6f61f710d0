// One document's page, section and region counts (the report of a file skipped as unchanged).
MATCH (d:Document)
WHERE d.doc_id = $doc_id
OPTIONAL MATCH (r:Region {doc_id: d.doc_id})
WITH d, count(r) AS regions
OPTIONAL MATCH (s:Section {doc_id: d.doc_id})
RETURN d.page_count AS pages, count(s) AS sections, regions, d.source_path AS source_path
