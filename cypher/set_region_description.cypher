// Store a vision-model description on a region, with an embedding of its text that includes it.
MATCH (r:Region {region_id: $region_id})
SET r.description = $description, r.embedding = $embedding
RETURN r.region_id AS region_id
