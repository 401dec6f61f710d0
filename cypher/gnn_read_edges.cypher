// The relationships between one document's nodes, leaving its {label} nodes, that the GNN passes
// messages along (not the IS_SIMILAR edges to other documents: documents are independent graphs).
MATCH (a:{label})-[e]->(b)
WHERE a.doc_id = $doc_id AND b.doc_id = $doc_id AND type(e) IN $types
RETURN type(e) AS type, a.{id} AS src,
       CASE WHEN b:Region THEN 'Region' WHEN b:Section THEN 'Section' WHEN b:Page THEN 'Page' ELSE 'Document' END
         AS dst_label,
       coalesce(b.region_id, b.section_id, b.page_id, b.doc_id) AS dst,
       e.cross_page AS cross_page, e.continuation AS continuation, e.score AS score
ORDER BY type, src, dst
