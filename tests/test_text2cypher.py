"""Text-to-Cypher against a real FalkorDB store, the model played by a scripted HTTP server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docgraph.app.llm.context import reading_neighbours, regions_by_id
from docgraph.app.llm.cypher_guard import MAX_LIST_ITEMS, check_read_only, with_row_limit
from docgraph.app.llm.service import ask, text2cypher
from docgraph.app.llm.text2cypher import run_written_query, worked_examples
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.errors import (
    LLMUnavailableError,
    QuerySyntaxError,
    ReadOnlyViolationError,
    StoreUnavailableError,
    Text2CypherError,
)
from docgraph.models.encoder_loader import load_encoder
from tests.llm_data import llm_settings, no_llm_settings, region_id, zoo_batch
from tests.llm_server import Reply, ScriptedLLMServer, confident

COUNT_TABLES = "How many tables are there?"


@pytest.fixture
def zoo_store(falkordb_store: GraphStore) -> GraphStore:
    falkordb_store.write_document(zoo_batch())
    return falkordb_store


def cypher_reply(query: str) -> str:
    return f"```cypher\n{query}\n```"


def graph_snapshot(store: GraphStore) -> tuple[dict[str, int], dict[str, int], list[str]]:
    counts = store.counts()
    texts = store.read("MATCH (r:Region) RETURN r.region_id AS id, r.text AS text ORDER BY id")
    return counts.labels, counts.relationship_types, [f"{row['id']}={row['text']}" for row in texts]


def test_a_malformed_query_is_retried_with_the_database_error(zoo_store: GraphStore, tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.add(
            cypher_reply("MATCH (t:Table RETURN count(t) AS tables"),
            cypher_reply("MATCH (t:Table) RETURN count(t) AS tables"),
        )
        result = text2cypher(COUNT_TABLES, zoo_store, llm_settings(server.base_url, tmp_path), run=True)
        first_prompt, second_prompt = server.prompts()

    assert result.rows == [{"tables": 1}]
    assert [bool(a.error) for a in result.attempts] == [True, False]
    database_error = result.attempts[0].error
    assert "Invalid input" in database_error  # FalkorDB's own words
    assert database_error in second_prompt and database_error not in first_prompt
    assert result.cypher.startswith("MATCH (t:Table) RETURN count(t) AS tables")
    assert result.to_json()["attempts"][0]["error"] == database_error


def test_the_prompt_holds_schema_live_counts_dialect_and_examples(zoo_store: GraphStore, tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.add(cypher_reply("MATCH (d:Document) RETURN d.title AS title"))
        result = text2cypher("What documents are there?", zoo_store, llm_settings(server.base_url, tmp_path))
        prompt = server.prompts()[0]

    assert not result.ran and result.rows == []  # checked by the database, not run
    assert "(:Region)-[:CAPTION_OF]->(:Region)" in prompt  # schema/graph.yaml
    assert "Region 9" in prompt and "CAPTION_OF 2" in prompt  # live counts of this store
    assert "FalkorDB" in prompt and "=~" in prompt  # dialect notes
    assert "Question: How many tables are in chapter 3?" in prompt  # worked examples


WRITE_ATTEMPTS = [
    # a clause word against a quoted name or a comment is still a clause (not a name spelled like one)
    "MATCH (`n`:Region) SET `n`.text = 'x' RETURN 1",
    "MATCH (`a`:Region), (`b`:Page) DELETE `a`, `b`",
    "MATCH (`n`:Region) REMOVE `n`.text",
    "MATCH (n:Region) SET/*c*/n.text = 'x'",
    "CREATE (:Region {region_id: 'evil', text: 'x'})",
    "MATCH (r:Region) DELETE r",
    "MATCH (r:Region) DETACH DELETE r",
    "MATCH (r:Region) SET r.text = 'overwritten' RETURN r.region_id",
    "MERGE (d:Document {doc_id: 'evil'}) RETURN d.doc_id",
    "MATCH (r:Region) REMOVE r.text RETURN count(r)",
    "CALL dbms.security.listUsers()",
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
    "MATCH (r:Region) WITH r LIMIT 1 CREATE (r)-[:REF]->(r) RETURN 1",
    "SHOW USERS",
    "USE system MATCH (n) RETURN n",
    # Procedures and functions that read files or run Cypher from a string, their names quoted or spaced
    "CALL `apoc`.`load`.`json`('file:///etc/passwd') YIELD value RETURN value",
    "CALL apoc . load . json('file:///etc/passwd') YIELD value RETURN value",
    "RETURN apoc.cypher.runFirstColumnSingle('LOAD CSV FROM \"file:///etc/passwd\" AS l RETURN l', {}) AS x",
    "RETURN `apoc`.`cypher`.`runFirstColumnSingle`('MATCH (n) RETURN n', {}) AS x",
    # A call written right after a quoted name
    "WITH 1 AS `x`CALL dbms.procedures() YIELD name RETURN name",
    "WITH 1 AS `x`CALL`apoc`.`load`.`json`('https://example.org/x') YIELD value RETURN value",
    "RETURN`apoc`.`cypher`.`runFirstColumnSingle`(\"LOAD CSV FROM 'https://example.org/x' AS l RETURN l\", {}) AS x",
    # Unicode escapes, which Neo4j decodes in keywords, names and strings alike
    r"LO\u0041D CSV FROM 'file:///etc/passwd' AS row RETURN row",
    r"C\u0041LL dbms.security.listUsers()",
    r"RETURN apoc.cypher.runFirstColumnSingl\u0065('MATCH (n) RETURN n', {}) AS x",
    r"RETURN apoc.load\u002ejsonParams('http://169.254.169.254/', {}, null) AS x",
    r"OPTIONAL MATCH (r:Region) WHERE r.text = 'a\u0027 DETACH DELETE r //' RETURN r.region_id",
]


@pytest.mark.parametrize("query", WRITE_ATTEMPTS)
def test_every_write_attempt_is_refused_and_the_graph_is_unchanged(
    zoo_store: GraphStore, tmp_path: Path, query: str
) -> None:
    before = graph_snapshot(zoo_store)
    with ScriptedLLMServer() as server:
        server.add(cypher_reply(query), cypher_reply(query))
        settings = llm_settings(server.base_url, tmp_path, text2cypher_max_tries=2)
        with pytest.raises(Text2CypherError, match="no valid read-only query after 2 tries") as failure:
            text2cypher("Delete everything", zoo_store, settings, run=True)
        retry_prompt = server.prompts()[1]

    assert "not allowed" in str(failure.value)
    assert "not allowed" in retry_prompt  # the refusal went back to the model
    assert graph_snapshot(zoo_store) == before


@pytest.mark.parametrize("query", [q for q in WRITE_ATTEMPTS if q.split()[0] in ("CREATE", "MATCH", "MERGE")])
def test_the_read_path_of_the_database_refuses_writes_too(zoo_store: GraphStore, query: str) -> None:
    """The second lock: even a query past the guard could not write through ``store.read``."""
    before = graph_snapshot(zoo_store)
    with pytest.raises(ReadOnlyViolationError):
        zoo_store.read(query)
    assert graph_snapshot(zoo_store) == before


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (r:Region) WHERE r.text CONTAINS 'SET the table; DELETE it' RETURN r.region_id AS id",
        "MATCH (r:Region) // create nothing\nRETURN r.set AS value, r.create AS other",
        "CALL db.labels() YIELD label RETURN label",
        "MATCH (r:Region) WHERE r.kind = 'table' RETURN r.`merge` AS m",
        "CALL `db`.`labels`() YIELD label RETURN label",
        "MATCH (r:Region) WHERE r.text CONTAINS 'apoc.load.json(' RETURN r.`apoc.cypher.run` AS x",
        "MATCH (r:Region) RETURN apoc.text.join(collect(r.text), ' ') AS joined",
        r"MATCH (r:Region) WHERE r.text CONTAINS '\u00B0C' RETURN r.region_id AS id",
        # variables spelled as clause words (refused as "USE is not allowed", though the database runs them)
        "MATCH (use:Region) RETURN count(use) AS n",
        "MATCH (set:Region)-[:ON_PAGE]->(show) RETURN set.page, show.number, [delete IN [1] | delete] AS d",
    ],
)
def test_reads_that_mention_write_words_pass_the_guard(query: str) -> None:
    check_read_only(query)


def test_what_a_written_query_returns_is_bounded(zoo_store: GraphStore, tmp_path: Path) -> None:
    """A 3,000,000-number list came back whole (79 MB through the MCP server), nodes with their
    vectors, and a LIMIT of 2,000,000 had the database read that many rows to keep 200."""
    settings = no_llm_settings(tmp_path, text2cypher_row_limit=5)
    listed = run_written_query("RETURN range(1, 50000) AS numbers", zoo_store, settings)
    assert listed.truncated and listed.rows[0]["numbers"] == list(range(1, MAX_LIST_ITEMS + 1))
    limited = run_written_query("UNWIND range(1, 100000) AS i RETURN i LIMIT 2000000", zoo_store, settings)
    assert limited.cypher.endswith("LIMIT 6") and limited.truncated
    assert [row["i"] for row in limited.rows] == [1, 2, 3, 4, 5]

    zoo_store.write("MATCH (r:Region) SET r.embedding = vecf32($vector)", {"vector": [0.5] * 384})
    nodes = run_written_query("MATCH (r:Region) RETURN collect(r) AS regions", zoo_store, settings)
    regions = nodes.rows[0]["regions"]
    assert regions and all(r["properties"]["embedding"] == "<vector of 384 numbers left out>" for r in regions)
    assert all(r["properties"]["text"] for r in regions if r["labels"] != ["Region", "Figure"])
    chosen = run_written_query("MATCH (r:Region) RETURN r.embedding AS v LIMIT 1", zoo_store, settings)
    assert len(chosen.rows[0]["v"]) == 384 and not chosen.truncated  # asked for by name: given


def test_the_row_limit_is_appended_or_applied_after_reading(zoo_store: GraphStore, tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.add(
            cypher_reply("MATCH (r:Region) RETURN r.region_id AS id ORDER BY id;"),
            cypher_reply("MATCH (r:Region) RETURN r.region_id AS id ORDER BY id LIMIT 7"),
        )
        settings = llm_settings(server.base_url, tmp_path, text2cypher_row_limit=3)
        appended = text2cypher("List region ids", zoo_store, settings, run=True)
        kept = text2cypher("List region ids", zoo_store, settings, run=True)

    assert appended.cypher.endswith("LIMIT 4")
    assert len(appended.rows) == 3 and appended.truncated
    assert kept.cypher.endswith("LIMIT 4")  # a larger LIMIT of its own is lowered
    assert len(kept.rows) == 3 and kept.truncated
    assert with_row_limit("CALL db.labels()", 3) == "CALL db.labels()"  # no RETURN: cut after reading
    assert with_row_limit("MATCH (r) RETURN r LIMIT $n", 3).endswith("LIMIT $n")  # a parameter: cut after
    assert with_row_limit("MATCH (r) RETURN r LIMIT 2", 3).endswith("LIMIT 2")


def test_every_worked_example_and_llm_query_runs_on_each_store(store: GraphStore) -> None:
    """On FalkorDB always, on Neo4j too when NEO4J_URI is set: the examples must be portable."""
    store.write_document(zoo_batch())
    try:
        examples = worked_examples()
        assert len(examples) >= 6
        for example in examples:
            check_read_only(example.query)
            store.explain(example.query)
            store.read(example.query)
        by_question = {example.question: example.query for example in examples}
        rows = store.read(by_question["How many tables does each document have?"])
        assert rows == [{"doc_id": "zoo", "tables": 1}]
        rows = store.read(by_question["Which pages were read by OCR (scanned pages, or pictures with text in them)?"])
        assert rows == [{"doc_id": "zoo", "page": 1, "kinds": ["table"], "regions": 1}]
        passages = regions_by_id(store, [region_id(1, 3), "no-such-region"])
        assert [(p.region_id, p.section, p.order, p.ocr) for p in passages] == [(region_id(1, 3), "Feeding", 3, True)]
        neighbours = {p.region_id for p in reading_neighbours(store, [region_id(1, 3)])}
        assert neighbours == {region_id(1, 2), region_id(1, 4)}
    finally:
        store.delete_document("zoo")


def test_text2cypher_needs_an_endpoint(zoo_store: GraphStore, tmp_path: Path) -> None:
    with pytest.raises(LLMUnavailableError, match="no LLM endpoint configured"):
        text2cypher(COUNT_TABLES, zoo_store, no_llm_settings(tmp_path))


def test_ask_answers_structural_questions_from_query_rows(zoo_store: GraphStore, tmp_path: Path) -> None:
    route = json.dumps({"route": "cypher", "reason": "listing tables", "sub_questions": []})
    query = "MATCH (t:Table) RETURN t.region_id AS region_id, t.page AS page"
    answer = "There is one table, on page 1 [zoo p.1 #r3]."
    with ScriptedLLMServer() as server:
        server.add(route, cypher_reply(query), confident(answer))
        retriever = make_retriever("bm25-region", zoo_store, load_encoder())
        result = ask("Which tables are there?", zoo_store, llm_settings(server.base_url, tmp_path), retriever)
        answer_prompt = server.prompts()[2]

    assert result.route == "cypher"
    assert result.cypher is not None and result.cypher.startswith(query)
    assert result.rows == [{"region_id": region_id(1, 3), "page": 1}]
    assert query in answer_prompt and region_id(1, 3) in answer_prompt
    assert [c.region_id for c in result.citations] == [region_id(1, 3)]
    assert not any(step["step"] == "retrieve" for step in result.trace)


def test_a_cypher_prompt_past_the_model_s_context_falls_back_to_retrieval(
    zoo_store: GraphStore, tmp_path: Path
) -> None:
    """The text-to-Cypher prompt (schema, counts, examples: ~3,000 tokens) is longer than a small
    server's context; the endpoint's refusal ended the ask instead of answering from retrieval."""
    route = json.dumps({"route": "cypher", "reason": "count", "sub_questions": []})
    too_long = Reply(status=400, error="the request exceeds the available context size, try increasing it")
    retriever = make_retriever("bm25-region", zoo_store, load_encoder())
    with ScriptedLLMServer() as server:
        server.add(route, too_long, confident("Fish [zoo p.1 #r3]."))
        result = ask("How many tables list fish?", zoo_store, llm_settings(server.base_url, tmp_path), retriever, k=3)

    assert result.route == "retrieve" and result.answer == "Fish [zoo p.1 #r3]."
    failed = next(step for step in result.trace if step["step"] == "cypher")
    assert failed["fallback"] == "retrieve" and "context size" in failed["error"]


def test_a_failed_query_falls_back_to_retrieval_unless_cypher_was_forced(zoo_store: GraphStore, tmp_path: Path) -> None:
    route = json.dumps({"route": "cypher", "reason": "count", "sub_questions": []})
    broken = cypher_reply("MATCH (t:Table RETURN t")
    retriever = make_retriever("bm25-region", zoo_store, load_encoder())
    with ScriptedLLMServer() as server:
        server.add(route, broken, broken, confident("Fish [zoo p.1 #r3]."))
        settings = llm_settings(server.base_url, tmp_path, text2cypher_max_tries=2)
        result = ask("How many tables list fish?", zoo_store, settings, retriever, k=3)
        server.add(broken, broken)
        with pytest.raises(Text2CypherError):
            ask("How many tables list fish?", zoo_store, settings, retriever, force_cypher=True)

    assert result.route == "retrieve"
    failed = next(step for step in result.trace if step["step"] == "cypher")
    assert failed["fallback"] == "retrieve" and "Invalid input" in failed["error"]
    assert result.answer == "Fish [zoo p.1 #r3]."
    assert result.tokens.calls == 4  # router, two failed queries, the answer: failed tries are counted too


def test_a_written_query_keeps_its_own_error_when_the_second_check_fails(
    zoo_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The query as written is explained again to place its error; a failure of that check (the
    store gone, no right to explain) replaced the caller's syntax error with its own."""
    settings = no_llm_settings(tmp_path)

    def store_gone(*args: object, **kwargs: object) -> str:
        raise StoreUnavailableError("the store went away")

    monkeypatch.setattr(zoo_store, "explain", store_gone)
    with pytest.raises(QuerySyntaxError, match="line 2"):  # the limited query's, as the store said it
        run_written_query("MATCH (n) RETURN n LIMIT", zoo_store, settings)
