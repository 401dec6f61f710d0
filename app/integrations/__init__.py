"""docgraph for frameworks that already have their own vocabulary.

* :mod:`app.integrations.langchain` — ``DocgraphRetriever`` (a LangChain retriever) and
  ``DocgraphCypherTool`` (a LangChain tool); needs the ``docgraph[langchain]`` extra.
* :mod:`app.integrations.regions` — retrieval hits with their section path and graph context, the
  shape both the LangChain retriever and the HTTP API (:mod:`app.api`) hand out.

Nothing here is imported by the package itself, so ``langchain-core`` stays optional.
"""
