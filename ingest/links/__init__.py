"""Links between regions: explicit references, citations, PDF links, similarity and the structural edges."""
