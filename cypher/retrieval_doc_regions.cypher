// The regions of one document with the section each hangs under (null: directly under the document),
// for the in-memory lexical index and for mapping hits to pages and sections.
MATCH (r:Region {doc_id: $doc_id})
OPTIONAL MATCH (r)-[:IS_UNDER]->(s:Section)
RETURN r.region_id AS region_id, r.page AS page, r.order AS order, r.kind AS kind, r.bbox AS bbox,
       r.text AS text, r.description AS description, s.section_id AS section_id
ORDER BY page, order
