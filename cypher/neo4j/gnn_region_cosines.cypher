// Exact cosine of the query with each candidate region's GNN embedding ({property}), in the database.
UNWIND $ids AS id
MATCH (r:Region {region_id: id})
WHERE r.{property} IS NOT NULL
RETURN r.region_id AS region_id, 2 * vector.similarity.cosine(r.{property}, $vector) - 1 AS score
