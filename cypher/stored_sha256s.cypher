// The file contents the store's documents were read from: a kept copy of any other is unused.
MATCH (d:Document)
WHERE d.sha256 IS NOT NULL
RETURN DISTINCT d.sha256 AS sha256
