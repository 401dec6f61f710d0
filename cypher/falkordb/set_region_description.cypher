// Store a vision-model description on a region, with an embedding of its text that includes it.
// FalkorDB indexes vectors only when stored as vecf32. Overwriting an existing vecf32 value in place
// is silently ignored by this FalkorDB version, so the old vector is cleared first.
MATCH (r:Region {region_id: $region_id})
SET r.description = $description, r.embedding = NULL
WITH r
SET r.embedding = vecf32($embedding)
RETURN r.region_id AS region_id
