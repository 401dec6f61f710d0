// Cosine of the query with the title embedding of every section of one document.
MATCH (s:Section {doc_id: $doc_id})
WHERE s.embedding IS NOT NULL
RETURN s.section_id AS section_id, s.doc_id AS doc_id, 2 * vector.similarity.cosine(s.embedding, $vector) - 1 AS score
