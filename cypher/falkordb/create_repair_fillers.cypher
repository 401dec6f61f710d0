// Creates placeholder nodes under the given labels (ghost repair): FalkorDB hands new nodes the ids
// of deleted ones, so placeholders take over the ghosts' ids, and deleting them properly clears the
// ghosts' label entries. The marker finds them again.
UNWIND range(1, $count) AS i
CREATE (n:{labels} {docgraph_repair: $marker})
RETURN id(n) AS id
