"""What llama.cpp's OpenAI-compatible server does that OpenAI does not, replayed by the scripted
server (real HTTP through the openai SDK): HTTP 500 for log-probabilities it was started without,
HTTP 200 with an empty body when a streamed prompt overflows its context, and queries fenced with
whatever tag a small model picks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from docgraph.app.cli.main import app
from docgraph.app.llm.client import make_client
from docgraph.app.llm.service import ask, text2cypher
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.errors import LLMRequestError, LLMTimeoutError
from docgraph.models.encoder_loader import load_encoder
from tests.llm_data import llm_settings, zoo_batch
from tests.llm_server import Reply, ScriptedLLMServer, confident, hesitant, uncertain

DOCGRAPH = Path(sys.executable).with_name("docgraph")
QUESTION = "When are the penguins fed?"
ROUTE_RETRIEVE = json.dumps({"route": "retrieve", "reason": "one fact", "sub_questions": []})
HELLO = [{"role": "user", "content": "hello"}]
TIME_OUT_1S = {"DOCGRAPH_LLM_TIMEOUT_S": "1"}


def scripted_env(server: ScriptedLLMServer, store: GraphStore, home: Path, local_home: Path) -> dict[str, str]:
    """The CLI's environment: ``store``'s graph on the shared test server, ``server`` as the model."""
    return {
        "DOCGRAPH_HOME": str(home),
        "DOCGRAPH_STORE": f"falkordb-local://{local_home}?graph={store.graph_name}",  # type: ignore[attr-defined]
        "DOCGRAPH_LLM_BASE_URL": server.base_url,
        "DOCGRAPH_LLM_API_KEY": "test-key",
        "DOCGRAPH_LLM_MODEL": "test-model",
    }


@pytest.fixture
def zoo_store(falkordb_store: GraphStore) -> GraphStore:
    falkordb_store.write_document(zoo_batch())
    return falkordb_store


@pytest.mark.parametrize("streamed", [False, True])
def test_an_http_500_for_logprobs_is_asked_again_without_them(
    zoo_store: GraphStore, tmp_path: Path, streamed: bool
) -> None:
    chunks: list[str] = []
    retriever = make_retriever("bm25-region", zoo_store, load_encoder())
    refusal = Reply(status=500, error="logits_all is off")
    with ScriptedLLMServer() as server:  # the SDK tries a 500 twice before docgraph sees it
        server.add(ROUTE_RETRIEVE, refusal, refusal, Reply("At 10:00 [zoo p.1 #r1]."))
        result = ask(
            QUESTION,
            zoo_store,
            llm_settings(server.base_url, tmp_path),
            retriever,
            k=1,
            stream_callback=chunks.append if streamed else None,
        )
        refused, again, plain = server.requests[1:]
    assert refused["logprobs"] is True and again["logprobs"] is True and "logprobs" not in plain
    assert result.answer == "At 10:00 [zoo p.1 #r1]." and result.entropy is None
    assert not streamed or "".join(chunks) == result.answer


def test_an_error_that_is_not_about_logprobs_keeps_them_and_is_reported(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        client = make_client(llm_settings(server.base_url, tmp_path))
        server.add(Reply(status=400, error="the prompt is too long"), Reply(status=400, error="the prompt is too long"))
        with pytest.raises(LLMRequestError, match="the prompt is too long"):
            client.chat(HELLO, logprobs=True)
        server.add(Reply("hi"))
        client.chat(HELLO, logprobs=True)
        assert [("logprobs" in body) for body in server.requests] == [True, False, True]
    assert not client.logprobs_refused  # the next call still asks for them


@pytest.mark.parametrize("streamed", [True, False])
def test_a_reply_that_breaks_off_is_not_asked_again_without_logprobs(tmp_path: Path, streamed: bool) -> None:
    """The first words went to the stream; asked again, the whole reply followed them (text twice).
    Unheard (POST /ask), the retry's success switched log-probabilities off for good."""
    chunks: list[str] = []
    piece = {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "At"}}]}
    broken = f"data: {json.dumps(piece)}\n\ndata: {json.dumps({'error': {'message': 'the model crashed'}})}\n\n"
    with ScriptedLLMServer() as server:
        client = make_client(llm_settings(server.base_url, tmp_path))
        server.add(Reply(raw=broken.encode()), Reply("At 10:00, asked again"))
        with pytest.raises(LLMRequestError, match="the model crashed"):
            client.chat(HELLO, stream=chunks.append if streamed else None, logprobs=True)
        assert len(server.requests) == 1
    assert chunks == (["At"] if streamed else []) and not client.logprobs_refused


def test_a_stream_that_ends_without_a_completion_is_an_error(tmp_path: Path) -> None:
    chunks: list[str] = []
    with ScriptedLLMServer() as server:
        client = make_client(llm_settings(server.base_url, tmp_path))
        server.add(Reply(raw=b""))
        with pytest.raises(LLMRequestError, match="ended the stream without sending a completion"):
            client.chat(HELLO, stream=chunks.append)
    assert chunks == []


FENCED = [
    f"```{tag}\nMATCH (t:Table) RETURN count(t) AS tables\n```" for tag in ("c", "text", "plaintext", "Cypher", "")
]
CUT_OFF = "```cypher\nMATCH (t:Table) RETURN count(t) AS tables"  # the reply's token budget ended before the fence


CUT_OFF_AFTER_PROSE = "Here is the query:\n```cypher\nMATCH (t:Table) RETURN count(t) AS tables"
CLOSED_ON_ITS_LINE = "MATCH (t:Table) RETURN count(t) AS tables ```\nThis counts the tables."


@pytest.mark.parametrize("reply", [*FENCED, CUT_OFF, CUT_OFF_AFTER_PROSE, CLOSED_ON_ITS_LINE])
def test_a_query_fenced_with_any_tag_is_read_without_it(zoo_store: GraphStore, tmp_path: Path, reply: str) -> None:
    with ScriptedLLMServer() as server:
        server.add(reply)
        result = text2cypher("How many tables are there?", zoo_store, llm_settings(server.base_url, tmp_path), run=True)
    assert result.cypher.startswith("MATCH (t:Table)") and len(result.attempts) == 1
    assert result.rows == [{"tables": 1}]


def test_an_endpoint_error_over_several_lines_is_one_error_line(
    zoo_store: GraphStore, local_home: Path, tmp_path: Path
) -> None:
    with ScriptedLLMServer() as server:
        server.add(*[Reply(status=500, error="internal\nline two\n  line three")] * 4)
        env = scripted_env(server, zoo_store, tmp_path / "home", local_home)
        done = CliRunner().invoke(app, ["text2cypher", "How many tables?"], env=env)
    assert done.exit_code == 1
    assert done.stderr == "error: the LLM endpoint answered HTTP 500: internal line two line three\n"


def test_a_reply_whose_first_word_never_comes_ends_at_the_time_out(tmp_path: Path) -> None:
    """A server reading a long prompt sends only keep-alive comments, each of which reset the HTTP
    read time-out: the reply was waited for past DOCGRAPH_LLM_TIMEOUT_S (86 s of a 60 s limit)."""
    with ScriptedLLMServer() as server:
        server.add(Reply(pings_s=8.0))  # then the stream ends empty: an error, had it been waited for
        client = make_client(llm_settings(server.base_url, tmp_path, llm_timeout_s=1.0))
        with pytest.raises(LLMTimeoutError, match=r"did not finish its reply within 1s \(stopped after 0 characters\)"):
            client.chat([{"role": "user", "content": "Say yes."}])


class SlowStream:
    """An endpoint's reply of 100 chunks, one every 20 ms, that records how far it was read."""

    def __init__(self) -> None:
        self.pulled, self.closed = 0, False

    def __iter__(self) -> SlowStream:
        return self

    def __next__(self) -> Any:
        if self.closed or self.pulled == 100:
            raise StopIteration
        time.sleep(0.02)
        self.pulled += 1
        return SimpleNamespace(usage=None, choices=[SimpleNamespace(delta=SimpleNamespace(content="word "))])

    def close(self) -> None:
        self.closed = True


def test_a_reply_its_reader_gives_up_on_is_stopped(tmp_path: Path) -> None:
    """A stream callback that raised (Streamlit's rerun, a closed pipe) left the reply read to its end."""
    stream = SlowStream()
    client = make_client(llm_settings("http://127.0.0.1:9/v1", tmp_path))
    client._sdk = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=lambda **_: stream)))  # type: ignore[assignment]
    heard: list[str] = []

    def hear(text: str) -> None:
        heard.append(text)
        if len(heard) == 3:
            raise RuntimeError("the reader is gone")

    with pytest.raises(RuntimeError, match="the reader is gone"):
        client.chat([{"role": "user", "content": "Say many words."}], stream=hear)
    deadline = time.monotonic() + 30
    while not stream.closed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert stream.closed and stream.pulled < 100


def test_a_failed_text2cypher_json_prints_its_attempts(zoo_store: GraphStore, local_home: Path, tmp_path: Path) -> None:
    graph = zoo_store.graph_name  # type: ignore[attr-defined]
    with ScriptedLLMServer() as server:
        server.add("```c\nMATCH (t:Tabel RETURN t\n```", "MATCH (t:Tabel RETURN t")
        env = {
            "DOCGRAPH_HOME": str(tmp_path / "home"),
            "DOCGRAPH_STORE": f"falkordb-local://{local_home}?graph={graph}",
            "DOCGRAPH_LLM_BASE_URL": server.base_url,
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "test-key",
            "DOCGRAPH_LLM_MODEL": "test-model",
            "DOCGRAPH_TEXT2CYPHER_MAX_TRIES": "2",
        }
        done = CliRunner().invoke(app, ["text2cypher", "How many tables?", "--json"], env=env)
        server.add(*[Reply("MATCH (t:Table) RETURN count(t)", delay_s=3.0)] * 2)  # a hung endpoint
        hung = CliRunner().invoke(app, ["text2cypher", "How many tables?", "--json"], env=env | TIME_OUT_1S)
    assert done.exit_code == 1
    printed = json.loads(done.stdout)
    assert printed["question"] == "How many tables?" and "no valid read-only query after 2 tries" in printed["error"]
    assert [attempt["query"] for attempt in printed["attempts"]] == ["MATCH (t:Tabel RETURN t"] * 2
    assert all(attempt["error"] for attempt in printed["attempts"])
    assert hung.exit_code == 1  # a time-out is an error in JSON too, not an empty standard output
    assert json.loads(hung.stdout)["error"].endswith("did not answer within 1s (tried twice)")


def test_ctrl_c_while_an_answer_streams_ends_its_line_and_says_so(
    zoo_store: GraphStore, local_home: Path, tmp_path: Path
) -> None:
    """Ctrl-C left the streamed words without a line end or a word of why, exit 130; landing inside
    Rich's print it lost the line end or wrote the words twice (about one run in six)."""
    answer = "Penguins are fed at ten and at three [zoo p.1 #r1]."
    stalled = confident(answer)
    stalled.stall_after, stalled.stall_s = 3, 30.0
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, stalled)
        env = {**os.environ, **scripted_env(server, zoo_store, tmp_path / "home", local_home)}
        asking = hearing_ctrl_c(["ask", QUESTION], env)
        assert asking.stdout is not None
        shown = os.read(asking.stdout.fileno(), 1000)  # the first words, then the stall
        asking.send_signal(signal.SIGINT)
        out, err = asking.communicate(timeout=60)
    assert asking.returncode == 130
    assert shown.startswith(b"Penguins") and (shown + out).endswith(b"\n")
    assert answer.encode().startswith((shown + out)[:-1])  # no word lost in between or written twice
    assert err.decode().splitlines()[-1] == "interrupted: the answer above is cut off"


def hearing_ctrl_c(args: list[str], env: dict[str, str], text: bool = False) -> subprocess.Popen[Any]:
    """``docgraph ARGS`` with its output piped, hearing SIGINT as a terminal's Ctrl-C (a suite
    started in the background passes Ctrl-C on ignored)."""
    command = [str(DOCGRAPH), *args]
    pipe = subprocess.PIPE
    return subprocess.Popen(command, env=env, stdout=pipe, stderr=pipe, text=text, preexec_fn=hears_ctrl_c)


def hears_ctrl_c() -> None:
    """SIGINT as a terminal's Ctrl-C reaches a program: Python turns it into KeyboardInterrupt only
    when it did not start with the signal ignored, as a shell's background jobs do."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (Reply(status=401, error="Invalid API key"), "refused the API key (HTTP 401): Invalid API key"),
        (Reply(status=404, error="Not Found"), "answered HTTP 404: Not Found: is its URL the server's"),
    ],
)
def test_an_endpoint_refusing_the_key_or_the_address_says_which(tmp_path: Path, reply: Reply, said: str) -> None:
    """ "the LLM endpoint answered HTTP 404: Error code: 404" named neither the endpoint nor the cause."""
    with ScriptedLLMServer() as server:
        server.add(reply, reply)
        client = make_client(llm_settings(server.base_url, tmp_path))
        with pytest.raises(LLMRequestError) as refused:
            client.chat(HELLO)
    assert str(refused.value).startswith(f"the LLM endpoint {server.base_url} {said}"), refused.value


def test_ctrl_c_while_text2cypher_waits_says_so(zoo_store: GraphStore, local_home: Path, tmp_path: Path) -> None:
    """Typer ends an interrupted command with 130 and not a word (text2cypher, eval --answers, ...)."""
    with ScriptedLLMServer() as server:
        server.add(Reply("MATCH (n) RETURN count(n)", delay_s=30.0))
        env = {**os.environ, **scripted_env(server, zoo_store, tmp_path / "home", local_home)}
        asking = hearing_ctrl_c(["text2cypher", QUESTION], env, text=True)
        deadline = time.monotonic() + 60
        while not server.requests and time.monotonic() < deadline and asking.poll() is None:
            time.sleep(0.05)
        asking.send_signal(signal.SIGINT)
        out, err = asking.communicate(timeout=60)
    assert (asking.returncode, out, err) == (130, "", "interrupted\n")


def test_a_kept_round_without_its_invented_citations_is_printed_once(
    zoo_store: GraphStore, local_home: Path, tmp_path: Path
) -> None:
    """The stream shows a kept round as checked; "(removed citations ...; the answer as checked:)"
    then printed the same text again."""
    kept = hesitant("At 10:00 [zoo p.1 #r1] [zoo p.9 #r99].")  # the second tag names no passage shown
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, kept, uncertain("Lions eat at noon [zoo p.1 #r1]."))
        env = scripted_env(server, zoo_store, tmp_path / "home", local_home)
        env |= {"DOCGRAPH_LLM_MAX_REREADS": "1", "DOCGRAPH_LLM_ENTROPY_THRESHOLD": "0.6"}
        done = CliRunner().invoke(app, ["ask", QUESTION, "--k", "1"], env=env)
    assert done.exit_code == 0, done.output
    assert "the answer of round 1 was the most certain" in done.stdout
    assert done.stdout.count("At 10:00 [zoo p.1 #r1]") == 2, done.stdout  # round 1 streamed, then kept once


def test_prose_instead_of_a_query_is_told_so(zoo_store: GraphStore, tmp_path: Path) -> None:
    """A small model's prose ("You need to use multiple columns instead.") was refused as "USE is not
    allowed", and the repair prompt told the model about a clause it never wrote."""
    with ScriptedLLMServer() as server:
        server.add("You need to use multiple columns instead.", "MATCH (t:Table) RETURN count(t) AS tables")
        result = text2cypher("How many tables are there?", zoo_store, llm_settings(server.base_url, tmp_path), run=True)
        retry = server.prompts()[1]
    assert result.rows == [{"tables": 1}] and len(result.attempts) == 2
    assert result.attempts[0].error.startswith("the reply is not a Cypher query (it begins 'You need to use")
    assert "is not a Cypher query" in retry and "USE is not allowed" not in retry
