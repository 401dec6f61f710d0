// Best full-text matches (RediSearch TF-IDF score), optionally within one document.
CALL db.idx.fulltext.queryNodes($label, $query) YIELD node, score
WHERE $doc_id IS NULL OR node.doc_id = $doc_id
RETURN properties(node) AS props, score
ORDER BY score DESC
LIMIT $k
