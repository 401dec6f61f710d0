// Every stored document's id, for re-embedding its regions with the GNN.
MATCH (d:Document)
RETURN d.doc_id AS doc_id
ORDER BY doc_id
