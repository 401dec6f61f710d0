"""Query routing: the rules, the LLM classifier over real HTTP, and decomposition inside ``ask``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docgraph.app.llm.client import make_client
from docgraph.app.llm.router import classify_by_rules, parse_decision, route_question
from docgraph.app.llm.service import ask
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.models.encoder_loader import load_encoder
from tests.llm_data import llm_settings, region_id, zoo_batch
from tests.llm_server import ScriptedLLMServer, confident


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("How many tables are in chapter 3?", "cypher"),
        ("What is the number of figures in the report?", "cypher"),
        ("List all sections of the manual", "cypher"),
        ("Which figures are on page 4?", "cypher"),
        ("When are the penguins fed?", "retrieve"),
        ("How many penguins live in the zoo?", "retrieve"),  # a fact, not a count of document parts
        ("What does the lion eat?", "retrieve"),
        ("Which file does the keeper read the feeding times from?", "retrieve"),  # a file in the text
        ("Which documents are in the store?", "cypher"),
        ("How many files are stored?", "cypher"),
        ("Compare the penguin pool with the lion house", "decompose"),
        ("What is the difference between the feeding times of penguins and lions?", "decompose"),
        ("What do penguins eat and how often are they fed?", "decompose"),
        ("Who wrote the report? When was it published?", "decompose"),
    ],
)
def test_rules_route_by_question_shape(question: str, route: str) -> None:
    decision = classify_by_rules(question)
    assert decision.route == route
    assert decision.by == "rules"
    assert (len(decision.sub_questions) >= 2) == (route == "decompose")


def test_rules_split_a_comparison_into_its_two_sides() -> None:
    decision = classify_by_rules("What is the difference between the feeding times of penguins and lions?")
    assert decision.sub_questions == ["the feeding times of penguins", "the feeding times of lions"]


def test_sub_questions_given_as_one_string_are_not_read_letter_by_letter() -> None:
    reply = json.dumps({"route": "decompose", "reason": "two", "sub_questions": "penguins and lions"})
    decision = parse_decision(reply, "What is the difference between the feeding times of penguins and lions?")
    assert decision is not None and decision.route == "decompose"
    assert decision.sub_questions == ["the feeding times of penguins", "the feeding times of lions"]  # the rules'


def test_the_llm_classifier_decides_when_its_reply_is_valid(tmp_path: Path) -> None:
    reply = {"route": "cypher", "reason": "structural", "sub_questions": []}
    with ScriptedLLMServer() as server:
        server.add(json.dumps(reply))
        client = make_client(llm_settings(server.base_url, tmp_path))
        decision = route_question("Which part talks about lions?", client)
        request = server.requests[0]

    assert (decision.route, decision.by, decision.reason) == ("cypher", "llm", "structural")
    assert request["messages"][0]["role"] == "system" and "decompose" in request["messages"][0]["content"]
    assert request["messages"][1]["content"] == "Which part talks about lions?"


def test_an_unreadable_classifier_reply_falls_back_to_the_rules(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.add("I would retrieve, probably.", json.dumps({"route": "teleport"}))
        client = make_client(llm_settings(server.base_url, tmp_path))
        prose = route_question("How many tables are in chapter 3?", client)
        unknown = route_question("When are the penguins fed?", client)

    assert (prose.route, prose.by) == ("cypher", "rules")
    assert "not a valid decision" in prose.reason
    assert (unknown.route, unknown.by) == ("retrieve", "rules")


def test_decomposition_retrieves_each_sub_question_and_combines(falkordb_store: GraphStore, tmp_path: Path) -> None:
    falkordb_store.write_document(zoo_batch())
    subs = ["When are penguins fed?", "When are lions fed?"]
    route = json.dumps({"route": "decompose", "reason": "comparison", "sub_questions": subs})
    answer = "Penguins at 10:00 and 15:30 [zoo p.1 #r1], lions at 14:00 [zoo p.1 #r2]."
    retriever = make_retriever("bm25-region", falkordb_store, load_encoder())
    with ScriptedLLMServer() as server:
        server.add(route, confident(answer))
        result = ask(
            "How do the feeding times of penguins and lions differ?",
            falkordb_store,
            llm_settings(server.base_url, tmp_path),
            retriever,
            k=2,
        )
        answer_prompt = server.prompts()[1]

    assert result.route == "decompose"
    retrievals = [step for step in result.trace if step["step"] == "retrieve"]
    assert [step["query"] for step in retrievals] == subs
    assert region_id(1, 1) in retrievals[0]["hits"] and region_id(1, 2) in retrievals[1]["hits"]
    assert "1. When are penguins fed?" in answer_prompt and "2. When are lions fed?" in answer_prompt
    assert "Penguins are fed twice a day" in answer_prompt and "Lions are fed once a day" in answer_prompt
    assert [c.region_id for c in result.citations] == [region_id(1, 1), region_id(1, 2)]
    route_step = result.trace[0]
    assert route_step == {
        "step": "route",
        "route": "decompose",
        "by": "llm",
        "reason": "comparison",
        "sub_questions": subs,
    }
