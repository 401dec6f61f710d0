// How many IS_SIMILAR links join a document's regions to other documents' (each direction counts).
MATCH (:Region {doc_id: $doc_id})-[e:IS_SIMILAR]-(:Region)
WHERE e.cross_document = true
RETURN count(e) AS links
