// How many of the given ids a document's stored nodes of one label already use.
UNWIND $keys AS key
MATCH (n:{label})
WHERE n.{id} = key AND n.doc_id = $doc_id
RETURN count(n) AS taken
