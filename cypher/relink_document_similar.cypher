// Replace the IS_SIMILAR links from one document's regions to other documents with $rows
// ({src, dst, score}), in one query so that no reader sees the document half relinked. Links
// inside the document (the GNN's kNN edges) have no cross_document flag and are kept.
OPTIONAL MATCH (a:Region)-[old:IS_SIMILAR]->(:Region)
WHERE a.doc_id = $doc_id AND old.cross_document = true
DELETE old
WITH count(old) AS removed
UNWIND $rows AS row
MATCH (a:Region)
WHERE a.region_id = row.src
MATCH (b:Region)
WHERE b.region_id = row.dst
CREATE (a)-[:IS_SIMILAR {score: row.score, cross_document: true}]->(b)
RETURN count(*) AS written
