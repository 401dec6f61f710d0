// FalkorDB indexes of the docgraph graph. Statements end with ';'. {dimension} is filled in by
// app/schema.py. Re-running a statement fails with "already indexed", which the store ignores.

// Range indexes on every id property: fast lookups, and the unique constraints need them.
CREATE INDEX FOR (n:Document) ON (n.doc_id);
CREATE INDEX FOR (n:Page) ON (n.page_id);
CREATE INDEX FOR (n:Section) ON (n.section_id);
CREATE INDEX FOR (n:Region) ON (n.region_id);

// Range indexes on doc_id: a document's nodes are found (and deleted or replaced) through them.
CREATE INDEX FOR (n:Page) ON (n.doc_id);
CREATE INDEX FOR (n:Section) ON (n.doc_id);
CREATE INDEX FOR (n:Region) ON (n.doc_id);

// Vector indexes (cosine) on the embeddings.
CREATE VECTOR INDEX FOR (n:Region) ON (n.embedding) OPTIONS {dimension: {dimension}, similarityFunction: 'cosine'};
CREATE VECTOR INDEX FOR (n:Region) ON (n.gnn_embedding) OPTIONS {dimension: {dimension}, similarityFunction: 'cosine'};
CREATE VECTOR INDEX FOR (n:Section) ON (n.embedding) OPTIONS {dimension: {dimension}, similarityFunction: 'cosine'};

// Full-text indexes for keyword search.
CREATE FULLTEXT INDEX FOR (n:Region) ON (n.text);
CREATE FULLTEXT INDEX FOR (n:Section) ON (n.title);
