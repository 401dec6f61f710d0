// Nearest regions of one document: an exact cosine scan over the document's regions, ids only.
MATCH (n:Region {doc_id: $doc_id})
WHERE n.embedding IS NOT NULL
WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
LIMIT $k
RETURN n.region_id AS region_id, score
