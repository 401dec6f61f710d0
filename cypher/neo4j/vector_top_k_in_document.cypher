// Nearest nodes of one document: an exact scan over the document's nodes.
MATCH (n:{label})
WHERE n.doc_id = $doc_id AND n.{property} IS NOT NULL
WITH n, 2 * vector.similarity.cosine(n.{property}, $vector) - 1 AS score
ORDER BY score DESC
LIMIT $k
RETURN properties(n) AS props, score
