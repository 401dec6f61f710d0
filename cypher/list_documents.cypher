// Every document with its page, section and region counts.
MATCH (d:Document)
OPTIONAL MATCH (r:Region {doc_id: d.doc_id})
WITH d, count(r) AS regions
OPTIONAL MATCH (s:Section {doc_id: d.doc_id})
RETURN d.doc_id AS doc_id, d.title AS title, d.file_name AS file_name, d.page_count AS pages,
       count(s) AS sections, regions, d.ingested_at AS ingested_at
ORDER BY doc_id
