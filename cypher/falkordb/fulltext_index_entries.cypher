// Per label with a full-text index: the entries its index was given since it was built (every
// version of a node updated in place counts again, and weighs in its term statistics) and the
// nodes it holds now.
CALL db.indexes() YIELD label, types, info, entitytype
WITH label, info, entitytype, [p IN keys(types) WHERE 'FULLTEXT' IN types[p]] AS fulltext
WHERE entitytype = 'NODE' AND size(fulltext) > 0
RETURN label, info.maxDocId AS entries, info.numDocuments AS nodes
