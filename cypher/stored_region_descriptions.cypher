// The vision-model descriptions stored on a document's regions, with what tells a region of the
// next build that is the same one (page, kind, box, text) and the embedding that includes them; and
// the document's file hash and build, since only a rebuild of the same file with the same encoder
// may take them over.
MATCH (d:Document)
WHERE d.doc_id = $doc_id
MATCH (r:Region)
WHERE r.doc_id = d.doc_id AND r.description IS NOT NULL
RETURN d.sha256 AS sha256, coalesce(d.build, '') AS build, r.page AS page, r.kind AS kind, r.bbox AS bbox,
       r.text AS text, r.description AS description, r.embedding AS embedding
