// question: Which passages refer to Table 2, and on which pages?
MATCH (r:Region)-[ref:REF]->(t:Table)
WHERE ref.label = 'Table 2'
RETURN r.doc_id AS doc_id, r.page AS page, r.region_id AS region_id, r.text AS passage, t.page AS table_page
ORDER BY doc_id, page
