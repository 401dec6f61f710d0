// The ids of the nodes listed under one label (a label scan).
MATCH (n:{label})
RETURN id(n) AS id
