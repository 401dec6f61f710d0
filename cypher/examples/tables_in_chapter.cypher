// question: How many tables are in chapter 3?
// A chapter is a top-level section; its tables may sit in any of its subsections.
MATCH (s:Section {level: 1})
WHERE s.number = '3' OR toLower(s.title) STARTS WITH 'chapter 3'
MATCH (t:Table)-[:IS_UNDER*1..]->(s)
RETURN s.doc_id AS doc_id, s.title AS chapter, count(DISTINCT t) AS tables
