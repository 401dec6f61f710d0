// Store a vision-model description on a region, with an embedding of its text that includes it, and
// count it on the document: retrievers reload a document whose count changed.
// FalkorDB indexes vectors only when stored as vecf32. Overwriting an existing vecf32 value in place
// is silently ignored by this FalkorDB version, so the old vector is cleared first.
MATCH (r:Region {region_id: $region_id})
SET r.description = $description, r.embedding = NULL
WITH r
SET r.embedding = vecf32($embedding)
WITH r
MATCH (d:Document {doc_id: r.doc_id})
SET d.described = coalesce(d.described, 0) + 1
RETURN r.region_id AS region_id
