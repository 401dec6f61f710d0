// Best full-text matches (Lucene score) through the named index, optionally within one document.
CALL db.index.fulltext.queryNodes($index, $query) YIELD node, score
WHERE $doc_id IS NULL OR node.doc_id = $doc_id
RETURN properties(node) AS props, score
ORDER BY score DESC
LIMIT $k
