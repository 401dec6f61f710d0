// The nearest stored regions of each given vector through the vector index, with their document
// and kind: the caller keeps those of other documents (its own may be stored already, as the version
// being replaced) that are not page headers or footers. Neo4j scores cosine as (1 + cos) / 2;
// 2 * score - 1 gives back the cosine.
UNWIND $rows AS row
CALL db.index.vector.queryNodes('region_embedding', $k, row.vector) YIELD node, score
RETURN row.src AS src, node.region_id AS dst, node.doc_id AS doc_id, node.kind AS kind, 2 * score - 1 AS score
