// The parts of one document's tables that run on over a page break, each with the part after it.
MATCH (a:Region {doc_id: $doc_id})-[e:HAS_NEXT]->(b:Region)
WHERE e.continuation = true AND a.kind = 'table' AND b.kind = 'table'
RETURN a.region_id AS region_id, b.region_id AS next_id
