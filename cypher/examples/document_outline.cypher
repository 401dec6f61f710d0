// question: What are the sections of the document "report", in order?
MATCH (s:Section {doc_id: 'report'})
RETURN s.number AS number, s.title AS title, s.level AS level, s.page_start AS page
ORDER BY s.order
