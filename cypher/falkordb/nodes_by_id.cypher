// The nodes among the given ids that exist, with their labels.
MATCH (n)
WHERE id(n) IN $ids
RETURN id(n) AS id, labels(n) AS labels
