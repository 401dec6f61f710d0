// Sections whose title embedding is nearest the query, through the vector index, ids only.
CALL db.index.vector.queryNodes('section_embedding', $k, $vector) YIELD node, score
RETURN node.section_id AS section_id, node.doc_id AS doc_id, 2 * score - 1 AS score
