// Neo4j 5 unique constraints on every id property (each is backed by a range index).
CREATE CONSTRAINT document_doc_id IF NOT EXISTS FOR (n:Document) REQUIRE n.doc_id IS UNIQUE;
CREATE CONSTRAINT page_page_id IF NOT EXISTS FOR (n:Page) REQUIRE n.page_id IS UNIQUE;
CREATE CONSTRAINT section_section_id IF NOT EXISTS FOR (n:Section) REQUIRE n.section_id IS UNIQUE;
CREATE CONSTRAINT region_region_id IF NOT EXISTS FOR (n:Region) REQUIRE n.region_id IS UNIQUE;
