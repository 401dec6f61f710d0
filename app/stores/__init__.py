"""Graph stores: one protocol, a FalkorDB and a Neo4j implementation."""
