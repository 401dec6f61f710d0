// Drops the full-text index of {label}.{property} so that it can be built again from the nodes as
// they are (see FalkorDBStore.refresh_fulltext).
DROP FULLTEXT INDEX FOR (n:{label}) ON (n.{property})
