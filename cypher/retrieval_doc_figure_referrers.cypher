// Each region of one document that refers to a region (a figure, a table, an equation) by its label,
// with what it refers to: a bare caption ("FIG. 4", as patent drawings print them) says nothing of
// its figure, the text that refers to it does ("FIG. 4 is a flow chart of ..."). Loaded once per
// document version, for questions that name a label (app.retrieval.labels).
MATCH (r:Region {doc_id: $doc_id})-[:REF]->(t:Region)
RETURN r.region_id AS region_id, t.region_id AS target_id
