// Cosine of the query with the title embedding of every section of one document.
MATCH (s:Section {doc_id: $doc_id})
WHERE s.embedding IS NOT NULL
RETURN s.section_id AS section_id, s.doc_id AS doc_id, 1 - vec.cosineDistance(s.embedding, vecf32($vector)) AS score
