// Every node of one label that belongs to a document, with its relationships.
MATCH (n:{label})
WHERE n.doc_id = $doc_id
DETACH DELETE n
