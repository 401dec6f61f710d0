// How many nodes the graph holds, and the highest node id: equal to count - 1 when no deleted id is
// left for FalkorDB to hand out again.
MATCH (n)
RETURN count(n) AS nodes, max(id(n)) AS highest
