// Each caption of one document with what it captions, for questions that name a label ("Figure 3").
// Loaded once per document version.
MATCH (c:Region {doc_id: $doc_id})-[:CAPTION_OF]->(t:Region)
RETURN c.region_id AS caption_id, c.text AS caption, t.region_id AS target_id
