// The vision-model descriptions stored on a document's regions, with what tells a region of the
// next build that is the same one (page, kind, box, text) and the embedding that includes them.
MATCH (r:Region)
WHERE r.doc_id = $doc_id AND r.description IS NOT NULL
RETURN r.page AS page, r.kind AS kind, r.bbox AS bbox, r.text AS text, r.description AS description,
       r.embedding AS embedding
