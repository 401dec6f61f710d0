"""docgraph as an MCP server: the tools an agent needs to read the document graph."""
