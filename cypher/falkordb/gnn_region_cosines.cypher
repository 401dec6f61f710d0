// Exact cosine of the query with each candidate region's GNN embedding ({property}), in the database.
UNWIND $ids AS id
MATCH (r:Region {region_id: id})
WHERE r.{property} IS NOT NULL
RETURN r.region_id AS region_id, 1 - vec.cosineDistance(r.{property}, vecf32($vector)) AS score
