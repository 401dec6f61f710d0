// The nearest stored regions of each given vector through the vector index, with their document
// and kind: the caller keeps those of other documents (its own may be stored already, as the version
// being replaced) that are not page headers or footers. FalkorDB returns the cosine distance;
// 1 - distance is the cosine similarity.
UNWIND $rows AS row
CALL db.idx.vector.queryNodes('Region', 'embedding', $k, vecf32(row.vector)) YIELD node, score
RETURN row.src AS src, node.region_id AS dst, node.doc_id AS doc_id, node.kind AS kind, 1 - score AS score
