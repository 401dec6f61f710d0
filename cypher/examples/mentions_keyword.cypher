// question: On which pages is "warranty" mentioned?
MATCH (r:Region)
WHERE toLower(r.text) CONTAINS 'warranty'
RETURN r.doc_id AS doc_id, collect(DISTINCT r.page) AS pages, count(r) AS regions
ORDER BY regions DESC
