// How many IS_SIMILAR links join regions of two different documents (each direction counts).
MATCH (:Region)-[e:IS_SIMILAR]->(:Region)
WHERE e.cross_document = true
RETURN count(e) AS links
