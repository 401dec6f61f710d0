// Sections whose title embedding is nearest the query, through the vector index, ids only.
CALL db.idx.vector.queryNodes('Section', 'embedding', $k, vecf32($vector)) YIELD node, score
RETURN node.section_id AS section_id, node.doc_id AS doc_id, 1 - score AS score
