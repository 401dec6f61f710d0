// Hybrid candidates of one document in one round trip: the $k regions nearest the query (exact
// scan) plus the given (lexical) candidate ids, all scored by exact cosine.
MATCH (n:Region {doc_id: $doc_id})
WHERE n.embedding IS NOT NULL
WITH n, 1 - vec.cosineDistance(n.embedding, vecf32($vector)) AS score
ORDER BY score DESC
LIMIT $k
RETURN n.region_id AS region_id, score
UNION
UNWIND $ids AS id
MATCH (r:Region {region_id: id})
WHERE r.embedding IS NOT NULL
RETURN r.region_id AS region_id, 1 - vec.cosineDistance(r.embedding, vecf32($vector)) AS score
