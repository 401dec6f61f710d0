// Creates one group of a document's nodes (same label set); vectors are plain float lists here.
UNWIND $rows AS row
CREATE (n:{labels})
SET n = row.props
RETURN count(n) AS created
