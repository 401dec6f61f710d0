"""Uncertainty-guided generation: token entropy from real logprobs over HTTP decides on re-reads."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.client import TokenLogprob
from docgraph.app.llm.service import ask
from docgraph.app.llm.uncertainty import mean_token_entropy, token_entropy
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.models.encoder_loader import load_encoder
from tests.llm_data import llm_settings, region_id, zoo_batch
from tests.llm_server import Reply, ScriptedLLMServer, confident, hesitant, uncertain

QUESTION = "When are the penguins fed?"
ROUTE_RETRIEVE = json.dumps({"route": "retrieve", "reason": "one fact", "sub_questions": []})


@pytest.fixture
def zoo_store(falkordb_store: GraphStore) -> GraphStore:
    falkordb_store.write_document(zoo_batch())
    return falkordb_store


@pytest.fixture
def retriever(zoo_store: GraphStore) -> Retriever:
    return make_retriever("bm25-region", zoo_store, load_encoder())


def tagged_entries(prompt: str) -> int:
    """How many evidence entries a prompt shows (each starts a line with its tag)."""
    return sum(1 for line in prompt.splitlines() if line.startswith("[zoo p."))


def test_entropy_of_flat_and_peaked_distributions() -> None:
    flat = TokenLogprob("a", math.log(0.2), tuple([math.log(0.2)] * 5))
    peaked = TokenLogprob("a", math.log(0.99), (math.log(0.99), math.log(0.005), math.log(0.005)))
    assert token_entropy(flat) == pytest.approx(math.log(5))
    assert token_entropy(peaked) < 0.1
    # Mass outside the top alternatives counts: a token at p=0.5 with no listed rivals is not certain.
    assert token_entropy(TokenLogprob("a", math.log(0.5), (math.log(0.5),))) == pytest.approx(math.log(2))
    assert token_entropy(TokenLogprob("a", math.log(0.25))) == pytest.approx(math.log(4))  # surprisal
    assert mean_token_entropy(None) is None and mean_token_entropy([]) is None
    assert mean_token_entropy([flat, peaked]) == pytest.approx((token_entropy(flat) + token_entropy(peaked)) / 2)


def test_an_uncertain_answer_is_reread_with_more_evidence(
    zoo_store: GraphStore, retriever: Retriever, tmp_path: Path
) -> None:
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, uncertain("Maybe at noon [zoo p.1 #r1]."), confident("At 10:00 [zoo p.1 #r1]."))
        settings = llm_settings(server.base_url, tmp_path, llm_max_rereads=2, llm_entropy_threshold=0.6)
        result = ask(QUESTION, zoo_store, settings, retriever, k=1)
        first, second = server.prompts()[1:]
        answer_requests = server.requests[1:]

    assert all(r["logprobs"] is True and r["top_logprobs"] == 5 for r in answer_requests)
    assert result.rereads == 1
    assert tagged_entries(second) > tagged_entries(first)
    # The reading-order neighbours of the first evidence came in: the section header and the lions.
    assert "1 Feeding" in second and "Lions are fed once a day" in second and "Lions" not in first
    rounds = [step for step in result.trace if step["step"] == "generate"]
    assert [r["outcome"] for r in rounds] == ["reread", "confident"]
    assert rounds[0]["entropy"] > 0.6 > rounds[1]["entropy"]
    assert result.entropy is not None and result.entropy < 0.6
    assert result.answer == "At 10:00 [zoo p.1 #r1]."
    # Pruned: the evidence kept is only what the final answer cites.
    assert [p.region_id for p in result.evidence] == [region_id(1, 1)]


def test_a_confident_answer_is_not_reread(zoo_store: GraphStore, retriever: Retriever, tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, confident("At 10:00 and 15:30 [zoo p.1 #r1]."))
        result = ask(QUESTION, zoo_store, llm_settings(server.base_url, tmp_path), retriever, k=1)
        requests = len(server.requests)

    assert requests == 2  # the router and one answer
    assert result.rereads == 0
    assert [s["outcome"] for s in result.trace if s["step"] == "generate"] == ["confident"]


def test_rereads_stop_at_the_limit(zoo_store: GraphStore, retriever: Retriever, tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, uncertain("Perhaps [zoo p.1 #r1]."), uncertain("Perhaps at ten [zoo p.1 #r1]."))
        settings = llm_settings(server.base_url, tmp_path, llm_max_rereads=1)
        result = ask(QUESTION, zoo_store, settings, retriever, k=1)

    assert result.rereads == 1
    assert [s["outcome"] for s in result.trace if s["step"] == "generate"] == ["reread", "reread limit"]
    assert result.answer == "Perhaps at ten [zoo p.1 #r1]."


def test_the_most_certain_round_is_kept_not_the_last(
    zoo_store: GraphStore, retriever: Retriever, tmp_path: Path
) -> None:
    chunks: list[str] = []
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, hesitant("At 10:00 [zoo p.1 #r1]."), uncertain("Lions eat at noon [zoo p.1 #r1]."))
        settings = llm_settings(server.base_url, tmp_path, llm_max_rereads=1, llm_entropy_threshold=0.6)
        result = ask(QUESTION, zoo_store, settings, retriever, k=1, stream_callback=chunks.append)

    assert result.rereads == 1 and result.answer == "At 10:00 [zoo p.1 #r1]."
    rounds = [step for step in result.trace if step["step"] == "generate"]
    assert 0.6 < rounds[0]["entropy"] < rounds[1]["entropy"]
    assert result.entropy == pytest.approx(rounds[0]["entropy"], abs=1e-4)
    assert [step["round"] for step in result.trace if step["step"] == "kept"] == [0]
    streamed = "".join(chunks)  # the stream showed both rounds, then says which one stands
    assert streamed.index("Lions eat at noon") < streamed.rindex("round 1 was the most certain")
    assert streamed.endswith("At 10:00 [zoo p.1 #r1].")


def test_without_logprobs_the_first_answer_stands(zoo_store: GraphStore, retriever: Retriever, tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, Reply("At 10:00 [zoo p.1 #r1]."))
        result = ask(QUESTION, zoo_store, llm_settings(server.base_url, tmp_path), retriever, k=1)

    assert result.entropy is None and result.rereads == 0
    assert [s["outcome"] for s in result.trace if s["step"] == "generate"] == ["no logprobs from the endpoint"]


def test_an_endpoint_refusing_logprobs_is_asked_again_without(
    zoo_store: GraphStore, retriever: Retriever, tmp_path: Path
) -> None:
    with ScriptedLLMServer() as server:
        server.add(
            ROUTE_RETRIEVE, Reply(status=400, error="logprobs are not supported"), Reply("At 10:00 [zoo p.1 #r1].")
        )
        result = ask(QUESTION, zoo_store, llm_settings(server.base_url, tmp_path), retriever, k=1)
        refused, plain = server.requests[1:]

    assert refused["logprobs"] is True and "logprobs" not in plain
    assert result.answer == "At 10:00 [zoo p.1 #r1]." and result.entropy is None


def test_streamed_rereads_are_announced(zoo_store: GraphStore, retriever: Retriever, tmp_path: Path) -> None:
    chunks: list[str] = []
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, uncertain("Maybe noon [zoo p.1 #r1]."), confident("At 10:00 [zoo p.1 #r1]."))
        ask(QUESTION, zoo_store, llm_settings(server.base_url, tmp_path), retriever, k=1, stream_callback=chunks.append)

    streamed = "".join(chunks)
    assert streamed.startswith("Maybe noon [zoo p.1 #r1].")
    assert "re-reading with more evidence" in streamed
    assert streamed.endswith("At 10:00 [zoo p.1 #r1].")


def test_a_reread_cut_short_keeps_the_round_answered_and_the_stream_says_so(
    zoo_store: GraphStore, retriever: Retriever, tmp_path: Path
) -> None:
    chunks: list[str] = []
    cut_short = replace(uncertain("Lions eat at noon [zoo p.1 #r1]."), stall_after=3, stall_s=3.0)
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, hesitant("At 10:00 [zoo p.1 #r1]."), cut_short)
        settings = llm_settings(
            server.base_url, tmp_path, llm_max_rereads=1, llm_entropy_threshold=0.6, llm_timeout_s=1.0
        )
        result = ask(QUESTION, zoo_store, settings, retriever, k=1, stream_callback=chunks.append)

    assert result.mode == "llm" and result.answer == "At 10:00 [zoo p.1 #r1]." and result.citations
    streamed = "".join(chunks)
    assert "Lions" in streamed and streamed.rindex("Lions") < streamed.index("the answer of round 1 is kept")
    assert streamed.endswith("At 10:00 [zoo p.1 #r1].")


def test_a_reread_past_the_model_s_context_keeps_the_round_answered(
    zoo_store: GraphStore, retriever: Retriever, tmp_path: Path
) -> None:
    """llama.cpp answers a streamed prompt longer than its context with an empty 200: the reread,
    which adds evidence, failed the whole ask and lost round 1's answer."""
    chunks: list[str] = []
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, hesitant("At 10:00 [zoo p.1 #r1]."), Reply(raw=b""))
        settings = llm_settings(server.base_url, tmp_path, llm_max_rereads=1, llm_entropy_threshold=0.6)
        result = ask(QUESTION, zoo_store, settings, retriever, k=1, stream_callback=chunks.append)

    assert_round_one_kept(result, chunks, "ended the stream")


def test_an_answer_cut_short_mid_stream_is_marked_before_the_quotes_that_replace_it(
    zoo_store: GraphStore, retriever: Retriever, tmp_path: Path
) -> None:
    chunks: list[str] = []
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, Reply("Penguins are fed at ten [zoo p.1 #r1].", stall_after=3, stall_s=3.0))
        settings = llm_settings(server.base_url, tmp_path, llm_timeout_s=1.0)
        result = ask(QUESTION, zoo_store, settings, retriever, k=1, stream_callback=chunks.append)

    assert result.mode == "extractive" and "Penguins are fed twice a day" in result.answer
    streamed = "".join(chunks)
    partial, rest = streamed.split("the answer below quotes the documents instead]")
    assert partial.startswith("Penguins") and "twice a day" not in partial
    assert rest.strip() == result.answer


def test_an_endpoint_gone_at_a_reread_keeps_the_round_answered(
    zoo_store: GraphStore, retriever: Retriever, tmp_path: Path
) -> None:
    """A server killed while the reread was asked: "cannot be reached", exit 1, and round 1's answer,
    shown whole already, was lost."""
    chunks: list[str] = []
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, hesitant("At 10:00 [zoo p.1 #r1]."))
        settings = llm_settings(server.base_url, tmp_path, llm_max_rereads=1, llm_entropy_threshold=0.6)

        def stream(piece: str) -> None:
            chunks.append(piece)
            if "re-reading" in piece:  # the reread is asked next, of a server gone
                server.__exit__(None, None, None)

        result = ask(QUESTION, zoo_store, settings, retriever, k=1, stream_callback=stream)

    assert_round_one_kept(result, chunks, "cannot be reached")


def test_a_reply_the_endpoint_ends_unfinished_is_not_the_answer(
    zoo_store: GraphStore, retriever: Retriever, tmp_path: Path
) -> None:
    """A stream ended with [DONE] and no finish reason (llama.cpp's server, when another request
    comes in) was taken for the whole answer: an empty or half one, with mode "llm"."""
    piece = {"choices": [{"index": 0, "delta": {"content": "The penguins"}, "finish_reason": None}]}
    unfinished = f"data: {json.dumps(piece)}\n\ndata: [DONE]\n\n".encode()
    chunks: list[str] = []
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, Reply(raw=unfinished, content_type="text/event-stream"))
        settings = llm_settings(server.base_url, tmp_path, llm_max_rereads=1, llm_entropy_threshold=0.6)
        result = ask(QUESTION, zoo_store, settings, retriever, k=1, stream_callback=chunks.append)

    assert result.mode == "extractive" and result.llm_fallback
    assert "ended its reply unfinished after 12 characters" in result.llm_fallback
    assert result.to_json()["llm_fallback"] == result.llm_fallback  # said in --json and the API, not only the trace
    assert "[zoo p.1 #r1]" in result.answer  # the documents quoted
    streamed = "".join(chunks)
    assert streamed.index("The penguins") < streamed.index("the answer below quotes the documents instead")


def assert_round_one_kept(result: AnswerResult, chunks: list[str], reason: str) -> None:
    """The reread failed (``reason``): round 1's answer is the answer, said so in the trace and in
    the stream."""
    assert result.mode == "llm" and result.answer == "At 10:00 [zoo p.1 #r1]."
    kept = next(step for step in result.trace if step["step"] == "kept")
    assert kept["round"] == 0 and reason in kept["reason"]
    assert "".join(chunks).endswith("the answer of round 1 is kept:]\n\nAt 10:00 [zoo p.1 #r1].")
