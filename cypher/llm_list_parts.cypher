// The parts of the given regions that the reader found running on over a page or column break: the
// region each one continues in, and the region it is continued from.
UNWIND $ids AS id
MATCH (r:Region {region_id: id})-[rel:HAS_NEXT]->(o:Region)
WHERE rel.continuation = true
RETURN id AS hit, 'continues' AS via, o.region_id AS region_id
UNION ALL
UNWIND $ids AS id
MATCH (r:Region {region_id: id})<-[rel:HAS_NEXT]-(o:Region)
WHERE rel.continuation = true
RETURN id AS hit, 'continued_from' AS via, o.region_id AS region_id
