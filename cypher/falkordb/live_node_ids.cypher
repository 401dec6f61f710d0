// Which of the given ids belong to nodes of the graph.
MATCH (n)
WHERE id(n) IN $ids
RETURN id(n) AS id
