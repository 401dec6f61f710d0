// question: Which passages have a close match in another document, and where?
// Finds links only when documents were ingested with neighbours in other documents
// (DOCGRAPH_SIMILARITY_CORPUS_K, or `docgraph ingest --similar-elsewhere K`) or relinked
// (`docgraph relink --k K`). Each pair once.
MATCH (a:Region)-[e:IS_SIMILAR {cross_document: true}]->(b:Region)
WHERE a.doc_id < b.doc_id
RETURN a.doc_id AS doc_id, a.page AS page, left(a.text, 80) AS text,
       b.doc_id AS other_doc, b.page AS other_page, left(b.text, 80) AS other_text, e.score AS score
ORDER BY score DESC, doc_id, page, other_doc, other_page
LIMIT 50
