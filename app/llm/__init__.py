"""The LLM layer: cited answers, safe text-to-Cypher, query routing, uncertainty-guided generation and
visual descriptions. The entry points are in :mod:`app.llm.service`."""
