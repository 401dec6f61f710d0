// Every node label of the graph.
CALL db.labels() YIELD label
RETURN label
