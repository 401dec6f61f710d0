// Store a vision-model description on a region, with an embedding of its text that includes it, and
// count it on the document: retrievers reload a document whose count changed.
MATCH (r:Region {region_id: $region_id})
SET r.description = $description, r.embedding = $embedding
WITH r
MATCH (d:Document {doc_id: r.doc_id})
SET d.described = coalesce(d.described, 0) + 1
RETURN r.region_id AS region_id
