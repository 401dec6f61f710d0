// Every stored document's id: the documents to re-embed with the GNN.
MATCH (d:Document)
RETURN d.doc_id AS doc_id
ORDER BY doc_id
