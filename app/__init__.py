"""docgraph orchestration: configuration, graph stores, pipeline, retrieval, LLM and CLI."""
