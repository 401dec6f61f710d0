// What each REF of one document's regions points at ("see page 26", "Section 2.1", a figure, a cited
// bibliography entry): a page, or a section; and the region it points at, if one. Loaded once per
// document version, for following references at query time (app.retrieval.references) and for the
// claims that depend on a claim a question names (app.retrieval.named_parts) and the passages that say
// what a figure under a bare caption ("FIG. 4") shows (app.retrieval.labels).
MATCH (r:Region {doc_id: $doc_id})-[:REF]->(t)
RETURN r.region_id AS region_id,
       CASE WHEN t:Page THEN t.number WHEN t:Region THEN t.page ELSE null END AS page,
       CASE WHEN t:Section THEN t.section_id ELSE null END AS section_id,
       CASE WHEN t:Region THEN t.region_id ELSE null END AS target_id
