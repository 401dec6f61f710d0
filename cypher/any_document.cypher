// One stored document's id, or no row in an empty store: cheaper than listing them all.
MATCH (d:Document)
RETURN d.doc_id AS doc_id
LIMIT 1
