// The sections of one document with their parent section (ToC retrieval walks up the tree) and
// their printed numbers (the parts a question names by number).
MATCH (s:Section {doc_id: $doc_id})
OPTIONAL MATCH (s)-[:IS_UNDER]->(parent:Section)
RETURN s.section_id AS section_id, s.title AS title, s.level AS level, s.page_start AS page_start,
       s.order AS order, s.number AS number, parent.section_id AS parent_id
ORDER BY order
