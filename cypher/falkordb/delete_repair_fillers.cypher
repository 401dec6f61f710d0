// Deletes the placeholder nodes of one ghost repair.
MATCH (n:{label})
WHERE n.docgraph_repair = $marker
DELETE n
