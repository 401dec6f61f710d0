"""The ingest pipeline: the stage framework, the stage list, embedding, similarity and the GNN stage."""
