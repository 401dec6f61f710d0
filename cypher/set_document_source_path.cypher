// Record where a stored version was last read from: a file found unchanged at another path (moved,
// or copied and ingested with --replace) is the document's file from then on.
MATCH (d:Document)
WHERE d.doc_id = $doc_id AND coalesce(d.doc_sha256, d.sha256) = $version
SET d.source_path = $source_path
RETURN count(d) AS updated
