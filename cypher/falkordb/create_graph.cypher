// Any query through GRAPH.QUERY creates the graph key, so read-only queries work on a new graph.
RETURN 0 AS created
