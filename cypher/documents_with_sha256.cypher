// The other stored documents with this file content (a copy of the PDF under another name).
MATCH (d:Document)
WHERE d.sha256 = $sha256 AND d.doc_id <> $doc_id
RETURN d.doc_id AS doc_id
ORDER BY doc_id
