// The ids a label scan lists for nodes that do not carry the label: ghosts of deleted nodes (their
// id free, or taken since by another node). Live nodes always carry the labels they are listed under.
MATCH (n:{label})
WHERE NOT $label IN labels(n)
RETURN id(n) AS id
