// Every stored document and its version: retrieval reloads a document whose version changed (the
// version changes with the file and with how its graph was built; sha256 is the file's alone).
// The build is read by the evaluation's ingest: a reembed since ingest changed it, not the version.
// `described` counts the figure descriptions written since (`docgraph describe`), which change what
// retrieval indexes but not the version.
MATCH (d:Document)
RETURN d.doc_id AS doc_id, d.sha256 AS sha256, coalesce(d.doc_sha256, d.sha256) AS version,
       coalesce(d.build, '') AS build, d.file_name AS file_name, coalesce(d.described, 0) AS described
ORDER BY doc_id
