// question: Which passages refer to each figure, and where?
MATCH (r:Region)-[ref:REF]->(f:Figure)
OPTIONAL MATCH (c:Caption)-[:CAPTION_OF]->(f)
RETURN f.doc_id AS doc_id, f.page AS figure_page, c.text AS caption, ref.label AS cited_as,
       r.page AS page, left(r.text, 80) AS passage
ORDER BY doc_id, figure_page, page
