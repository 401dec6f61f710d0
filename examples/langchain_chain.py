"""Answer a question with docgraph's retriever inside a LangChain chain.

    pip install 'docgraph[langchain]'          # langchain-core; langchain-openai is used if installed
    docgraph ingest samples/docgraph-sample.pdf
    export OPENAI_BASE_URL=http://localhost:8080/v1 OPENAI_API_KEY=... DOCGRAPH_LLM_MODEL=...
    python examples/langchain_chain.py "When are the penguins fed?"

The chain retrieves regions, then answers from them and keeps them as sources:
``{docs: retriever, question} .assign(answer={context: format(docs), question} | prompt | model)``.
The model is any
OpenAI-compatible endpoint: through ``langchain-openai`` when it is installed, otherwise through the
``openai`` SDK wrapped in a ``RunnableLambda`` (so ``langchain-core`` is all this needs). Without an
endpoint configured, the example prints the prompt it would send instead of an answer.
"""

from __future__ import annotations

import argparse
from operator import itemgetter
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import convert_to_openai_messages
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompt_values import PromptValue
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnableLambda, RunnableParallel, RunnablePassthrough

from docgraph.app.config import Settings, load_settings
from docgraph.app.integrations.langchain import DocgraphRetriever
from docgraph.app.llm.client import llm_configured
from docgraph.app.llm.local_model import LOCAL_PREFIX

PROMPT = ChatPromptTemplate.from_messages(
    [
        (
            "system",
            "Answer from the context only, citing passages by their [document p.N] tag. "
            "If the context does not hold the answer, say so.",
        ),
        ("human", "Context:\n{context}\n\nQuestion: {question}"),
    ]
)


def format_docs(docs: list[Document]) -> str:
    """One block per region, tagged with its document and page so the model can cite it."""
    return "\n\n".join(f"[{doc.metadata['doc_id']} p.{doc.metadata['page']}]\n{doc.page_content}" for doc in docs)


def chat_model(settings: Settings) -> Runnable[PromptValue, str]:
    """The configured endpoint as a runnable from prompt to answer text."""
    try:
        from langchain_openai import ChatOpenAI
    except ImportError:
        return RunnableLambda(lambda prompt: openai_completion(settings, prompt))
    model = ChatOpenAI(
        model=settings.llm_model,
        base_url=settings.llm_base_url,
        api_key=settings.llm_api_key,
        max_tokens=settings.llm_max_tokens,  # a bounded reply, as docgraph's own calls have
        timeout=settings.llm_timeout_s,
    )
    chain: Runnable[PromptValue, str] = model | StrOutputParser()
    return chain


def openai_completion(settings: Settings, prompt: PromptValue) -> str:
    import openai

    client = openai.OpenAI(
        base_url=settings.llm_base_url, api_key=settings.llm_api_key or "none", timeout=settings.llm_timeout_s
    )
    messages: Any = convert_to_openai_messages(prompt.to_messages())
    reply = client.chat.completions.create(
        model=settings.llm_model, messages=messages, max_tokens=settings.llm_max_tokens
    )
    return reply.choices[0].message.content or ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("question")
    parser.add_argument("--variant", default="hybrid", help="Retriever variant (default: hybrid)")
    parser.add_argument("--k", type=int, default=6, help="Regions to retrieve (default: 6)")
    parser.add_argument("--doc", default=None, help="Only this document id")
    args = parser.parse_args()

    settings = load_settings()
    retriever = DocgraphRetriever.from_settings(settings, variant=args.variant, k=args.k, doc_id=args.doc)
    try:
        retrieve = RunnableParallel(docs=retriever, question=RunnablePassthrough())
        prompt = {
            "context": itemgetter("docs") | RunnableLambda(format_docs),
            "question": itemgetter("question"),
        } | PROMPT
        if not llm_configured(settings) or settings.llm_model.startswith(LOCAL_PREFIX):
            # docgraph's own test: a URL, a key and a model; a local: model file is not an endpoint
            print("No LLM endpoint configured (DOCGRAPH_LLM_BASE_URL, DOCGRAPH_LLM_API_KEY, DOCGRAPH_LLM_MODEL);")
            print("the prompt would be:\n")
            print((retrieve | prompt).invoke(args.question).to_string())
            return
        result = retrieve.assign(answer=prompt | chat_model(settings)).invoke(args.question)
        print(result["answer"])
        print("\nSources:")
        for doc in result["docs"]:
            meta = doc.metadata
            section = " > ".join(meta["section_path"]) or "-"
            print(f"  {meta['doc_id']} p.{meta['page']} {meta['kind']} ({section}) bbox={meta['bbox']}")
    finally:
        retriever.close()


if __name__ == "__main__":
    main()
