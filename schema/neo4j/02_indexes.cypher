// Neo4j 5 indexes of the docgraph graph. {dimension} is filled in by app/schema.py. Index names are
// fixed: the vector and full-text procedures address indexes by name (<label>_<property>).

// Range indexes on doc_id: a document's nodes are found (and deleted or replaced) through them.
// (Document.doc_id is covered by its unique constraint.)
CREATE INDEX page_doc_id IF NOT EXISTS FOR (n:Page) ON (n.doc_id);
CREATE INDEX section_doc_id IF NOT EXISTS FOR (n:Section) ON (n.doc_id);
CREATE INDEX region_doc_id IF NOT EXISTS FOR (n:Region) ON (n.doc_id);

// Vector indexes (cosine) on the embeddings.
CREATE VECTOR INDEX region_embedding IF NOT EXISTS FOR (n:Region) ON (n.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: {dimension}, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX region_gnn_embedding IF NOT EXISTS FOR (n:Region) ON (n.gnn_embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: {dimension}, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX section_embedding IF NOT EXISTS FOR (n:Section) ON (n.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: {dimension}, `vector.similarity_function`: 'cosine'}};

// Full-text indexes for keyword search.
CREATE FULLTEXT INDEX region_text IF NOT EXISTS FOR (n:Region) ON EACH [n.text];
CREATE FULLTEXT INDEX section_title IF NOT EXISTS FOR (n:Section) ON EACH [n.title];
