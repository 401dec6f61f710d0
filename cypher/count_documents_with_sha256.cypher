// How many stored documents have this file content (they share one kept copy of the PDF).
MATCH (d:Document)
WHERE d.sha256 = $sha256
RETURN count(d) AS documents
