// Node count per label (a node counts once for each of its labels).
MATCH (n)
UNWIND labels(n) AS label
RETURN label, count(*) AS count
