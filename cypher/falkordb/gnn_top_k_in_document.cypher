// Nearest regions of one document by a GNN embedding ({property}): an exact cosine scan, ids only.
MATCH (n:Region {doc_id: $doc_id})
WHERE n.{property} IS NOT NULL
WITH n, 1 - vec.cosineDistance(n.{property}, vecf32($vector)) AS score
ORDER BY score DESC
LIMIT $k
RETURN n.region_id AS region_id, score
