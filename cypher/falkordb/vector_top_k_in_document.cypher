// Nearest nodes of one document: an exact scan over the document's nodes (the index cannot filter).
MATCH (n:{label})
WHERE n.doc_id = $doc_id AND n.{property} IS NOT NULL
WITH n, 1 - vec.cosineDistance(n.{property}, vecf32($vector)) AS score
ORDER BY score DESC
LIMIT $k
RETURN properties(n) AS props, score
