// Drops the vector index of {label}.{property} so that it can be built again from the nodes as they
// are (see FalkorDBStore.refresh_vector_indexes).
DROP VECTOR INDEX FOR (n:{label}) ON (n.{property})
