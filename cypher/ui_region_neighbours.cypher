// Every node one relationship away from a region, either way: captions, references, reading order,
// similar regions (of other documents too), its section and page (the UI's evidence panel and
// neighbourhood graph).
MATCH (r:Region {region_id: $region_id})-[rel]->(o)
RETURN type(rel) AS type, true AS outgoing, labels(o) AS labels,
       coalesce(o.region_id, o.section_id, o.page_id, o.doc_id) AS key, o.kind AS kind, o.page AS page,
       o.number AS number, coalesce(o.text, o.title, '') AS text, rel.label AS label,
       rel.cross_page AS cross_page, rel.continuation AS continuation, rel.score AS score,
       rel.cross_document AS cross_document, o.doc_id AS doc_id
UNION ALL
MATCH (r:Region {region_id: $region_id})<-[rel]-(o)
RETURN type(rel) AS type, false AS outgoing, labels(o) AS labels,
       coalesce(o.region_id, o.section_id, o.page_id, o.doc_id) AS key, o.kind AS kind, o.page AS page,
       o.number AS number, coalesce(o.text, o.title, '') AS text, rel.label AS label,
       rel.cross_page AS cross_page, rel.continuation AS continuation, rel.score AS score,
       rel.cross_document AS cross_document, o.doc_id AS doc_id
