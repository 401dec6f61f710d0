// How a stored document's graph was built (Document.build; empty for documents stored before builds).
MATCH (d:Document)
WHERE d.doc_id = $doc_id
RETURN coalesce(d.build, '') AS build
