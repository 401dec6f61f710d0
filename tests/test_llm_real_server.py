"""The generating half of docgraph against a real model server: llama.cpp's OpenAI-compatible
server with SmolLM2-135M-Instruct (tests/llama_server.py), the sample PDF in a real store, the CLI
as a user runs it. Replies are kept short (48 tokens); what the 135M model says is not the point,
the integration is: streaming, model ids that are paths, missing usage chunks, log-probabilities
into the uncertainty loop, a server without them, context overflow, time-outs, text-to-Cypher's
repair loop with the database's real errors."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from docgraph.app.cli.main import app
from docgraph.app.config import Settings
from docgraph.app.llm import local_model
from docgraph.app.llm.client import LLMClient, LocalModelClient, Message
from docgraph.app.llm.local_model import local_model_path
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.resources import ROOT
from docgraph.app.stores.factory import open_store
from docgraph.errors import AnswerAbandoned, LLMReplyCutOffError, LLMTimeoutError
from tests.conftest import fresh_graph_name
from tests.llama_server import llama_server, missing_reason, smollm2_model

pytestmark = [pytest.mark.skipif(missing_reason() is not None, reason=str(missing_reason())), pytest.mark.timeout(900)]

SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"
QUESTION = "When are the penguins fed?"
MAX_TOKENS = "48"
SMOLLM2_END_TOKENS = (0, 2)  # <|endoftext|>, <|im_end|>
ENDLESS_TOKENS = 1500


@pytest.fixture(scope="module")
def store_url(local_home: Path) -> Iterator[str]:
    graph = fresh_graph_name()
    settings = Settings(home=local_home, graph=graph, store="")
    store = open_store(settings)
    store.apply_schema()
    report = build_ingest_pipeline(store, settings).ingest(SAMPLE)
    assert report.status == "ingested", report.error
    yield f"falkordb-local://{local_home}?graph={graph}"
    store.delete_graph()  # type: ignore[attr-defined]
    store.close()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with llama_server() as url:
        yield url


def run(url: str, store_url: str, home: Path, *args: str, **settings: str) -> tuple[int, str]:
    """Exit code and standard output of ``docgraph ARGS`` against the server at ``url``."""
    done = invoke(url, store_url, home, *args, **settings)
    return done.exit_code, done.stdout if done.exit_code == 0 or "--json" in args else done.output


def invoke(url: str, store_url: str, home: Path, *args: str, **settings: str) -> Result:
    env = {
        "DOCGRAPH_HOME": str(home),
        "DOCGRAPH_STORE": store_url,
        "DOCGRAPH_LLM_BASE_URL": url,
        "DOCGRAPH_LLM_API_KEY": "none",
        "DOCGRAPH_LLM_MODEL": str(smollm2_model()),  # llama.cpp's model ids are file paths
        "DOCGRAPH_LLM_MAX_TOKENS": MAX_TOKENS,
        **settings,
    }
    return CliRunner().invoke(app, list(args), env=env)


def test_ask_streams_an_answer_and_feeds_logprobs_to_the_loop(server: str, store_url: str, tmp_path: Path) -> None:
    code, streamed = run(server, store_url, tmp_path, "ask", QUESTION)
    assert code == 0 and streamed.strip(), streamed
    code, output = run(server, store_url, tmp_path, "ask", QUESTION, "--json")
    assert code == 0, output
    answer = json.loads(output)
    assert answer["mode"] == "llm" and answer["answer"].strip() and not answer["abstained"]
    rounds = [step for step in answer["trace"] if step["step"] == "generate"]
    assert rounds and all(isinstance(step["entropy"], float) for step in rounds)  # logprobs came back
    assert answer["entropy"] == min(step["entropy"] for step in rounds)  # the most certain round stands
    tokens = answer["tokens"]  # the router's call and one per round, each bounded by max_tokens
    bound = int(MAX_TOKENS) * (len(rounds) + 1)  # the router's own bound (300) is lowered to the setting's
    assert tokens["calls"] == len(rounds) + 1 and 0 < tokens["completion"] <= bound


def test_a_server_without_logits_still_answers(store_url: str, tmp_path: Path) -> None:
    with llama_server("--logits_all", "False") as url:
        code, output = run(url, store_url, tmp_path, "ask", QUESTION, "--json")
        streamed_code, streamed = run(url, store_url, tmp_path, "ask", QUESTION)
    assert code == 0, output
    answer = json.loads(output)
    assert answer["mode"] == "llm" and answer["answer"].strip() and answer["entropy"] is None
    assert streamed_code == 0 and streamed.strip(), streamed


def test_a_prompt_longer_than_the_context_is_one_clear_error(store_url: str, tmp_path: Path) -> None:
    with llama_server(context=256) as url:
        code, output = run(url, store_url, tmp_path, "ask", QUESTION)
    assert code == 1, output
    assert output.strip().splitlines()[-1].startswith("error: the LLM endpoint ended the stream without sending")


def test_a_time_out_falls_back_to_an_extractive_answer(server: str, store_url: str, tmp_path: Path) -> None:
    code, output = run(server, store_url, tmp_path, "ask", QUESTION, "--json", DOCGRAPH_LLM_TIMEOUT_S="0.01")
    assert code == 0, output
    answer = json.loads(output)
    assert answer["mode"] == "extractive" and answer["answer"].strip()
    # no reply in time, or one not finished in time: which one depends on the machine's load
    timed_out = ("did not answer within 0.01s", "did not finish its reply within 0.01s")
    assert any(text in str(step.get("status", "")) for step in answer["trace"] for text in timed_out)


def test_a_time_out_in_the_terminal_says_why_the_answer_quotes_the_documents(
    server: str, store_url: str, tmp_path: Path
) -> None:
    """The reason was in the JSON trace only: the terminal showed quotes and "answer: extractive"."""
    done = invoke(server, store_url, tmp_path, "ask", QUESTION, DOCGRAPH_LLM_TIMEOUT_S="0.01")
    assert done.exit_code == 0, done.output
    # no reply at all in time, or a reply not finished in time: which one depends on the machine's load
    notes = [line for line in done.stderr.splitlines() if line.startswith(f"note: the LLM endpoint {server} did not ")]
    assert len(notes) == 1 and notes[0].endswith(": the answer quotes the documents"), done.stderr
    assert "within 0.01s" in notes[0]
    assert "answer: extractive" in done.stdout


def test_text2cypher_repairs_with_the_databases_errors(server: str, store_url: str, tmp_path: Path) -> None:
    question = "How many pages are stored?"  # each try sends a ~3,100-token prompt: a time-out for 2 busy cores
    code, output = run(
        server, store_url, tmp_path, "text2cypher", question, "--run", "--json", DOCGRAPH_LLM_TIMEOUT_S="600"
    )
    result = json.loads(output)
    attempts = result["attempts"]
    assert attempts and all(attempt["query"] for attempt in attempts)
    if code == 0:  # an accepted query ran; every refused one carries the database's own error
        assert result["rows"] is not None and all(a["error"] for a in attempts[:-1])
    else:
        assert code == 1 and all(attempt["error"] for attempt in attempts)


def test_a_local_gguf_model_answers_in_process(store_url: str, tmp_path: Path) -> None:
    local = {"DOCGRAPH_LLM_MODEL": f"local:{smollm2_model()}", "DOCGRAPH_LLM_BASE_URL": "", "DOCGRAPH_LLM_API_KEY": ""}
    code, output = run("", store_url, tmp_path, "ask", QUESTION, "--json", **local)
    assert code == 0, output
    answer = json.loads(output)
    assert answer["mode"] == "llm" and answer["answer"].strip() and isinstance(answer["entropy"], float)
    code, streamed = run("", store_url, tmp_path, "ask", QUESTION, **local)
    assert code == 0 and streamed.strip(), streamed
    missing = {**local, "DOCGRAPH_LLM_MODEL": f"local:{tmp_path / 'none.gguf'}"}
    code, output = run("", store_url, tmp_path, "ask", QUESTION, **missing)
    assert code == 1 and output.strip().splitlines()[-1].endswith("none.gguf does not exist")
    folder = {**local, "DOCGRAPH_LLM_MODEL": f"local:{tmp_path}"}  # said "does not exist" of a folder
    code, output = run("", store_url, tmp_path, "ask", QUESTION, **folder)
    assert (
        code == 1
        and output.strip().splitlines()[-1] == f"error: the local model {tmp_path} is a folder, not a GGUF file"
    )
    code, output = run("", store_url, tmp_path, "ask", QUESTION, **{**local, "DOCGRAPH_LLM_MODEL": "local:"})
    assert code == 1 and output.strip().splitlines()[-1].endswith(
        "needs the path of its GGUF file: local:/path/model.gguf"
    )


class EndlessClient(LLMClient):
    """A client whose model never ends its reply by itself (its end tokens are banned): a looping model."""

    def _options(self, messages: list[Message], logprobs: bool, max_tokens: int | None) -> dict[str, Any]:
        options = super()._options(messages, logprobs, max_tokens)
        return {**options, "logit_bias": {str(token): -100 for token in SMOLLM2_END_TOKENS}}


def test_a_reply_abandoned_at_its_time_out_stops_on_the_server(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    with llama_server(log_path=log) as url:
        client = EndlessClient(base_url=url, api_key="none", model=str(smollm2_model()), timeout_s=2.0)
        with pytest.raises(LLMTimeoutError) as abandoned:
            client.chat([{"role": "user", "content": "Count from 1 to 5000."}], max_tokens=ENDLESS_TOKENS)
        assert "did not finish its reply within 2s" in str(abandoned.value) and abandoned.value.partial.strip()
        answered = client.chat([{"role": "user", "content": "Say hi."}], max_tokens=4)
        assert answered.text
    # llama.cpp logs "eval time = ... / N runs" for each completion it finished: the abandoned one
    # was not finished (it ran on, to ENDLESS_TOKENS, when the client gave up without closing).
    runs = [int(found) for found in re.findall(r"eval time = .*? / +(\d+) runs", log.read_text())]
    assert runs and max(runs) < ENDLESS_TOKENS // 2, runs


def test_a_streamed_reply_stops_at_its_time_out(tmp_path: Path) -> None:
    """A streamed reply had no time limit as a whole: a model that never ends went on to max_tokens."""
    shown: list[str] = []
    with llama_server() as url:
        client = EndlessClient(base_url=url, api_key="none", model=str(smollm2_model()), timeout_s=2.0)
        with pytest.raises(LLMTimeoutError) as abandoned:
            client.chat(
                [{"role": "user", "content": "Count from 1 to 5000."}], max_tokens=ENDLESS_TOKENS, stream=shown.append
            )
    assert "did not finish its reply within 2s" in str(abandoned.value)
    assert abandoned.value.partial.strip() and abandoned.value.partial == "".join(shown)


class EndlessLocalClient(EndlessClient, LocalModelClient):
    """The looping model run in this process."""


def test_a_local_models_reply_stops_at_its_time_out() -> None:
    """A local model's reply had no time limit at all; it now has the endpoint's, and the model is
    free for the next request afterwards."""
    client = EndlessLocalClient(base_url="", api_key="", model=f"local:{smollm2_model()}", timeout_s=2.0)
    with pytest.raises(LLMTimeoutError) as abandoned:
        client.chat([{"role": "user", "content": "Count from 1 to 5000."}], max_tokens=ENDLESS_TOKENS)
    assert "did not finish its reply within 2s" in str(abandoned.value) and abandoned.value.partial.strip()
    assert client.chat([{"role": "user", "content": "Say hi."}], max_tokens=4).text


LONG_PROMPT = "The penguins are fed herring at half past ten, and the seals at noon. " * 200  # ~3,000 tokens


def prompt_tokens_read(client: LocalModelClient) -> int:
    """How many tokens of its last prompt the client's model has in its context."""
    return int(local_model._loaded(local_model_path(client.model) or Path())[0].n_tokens)


@pytest.mark.parametrize("stopped_by", ["time-out", "asker gone"])
def test_a_local_model_stops_reading_a_long_prompt(stopped_by: str) -> None:
    """A local model read a prompt to its end (seconds to minutes) before its time-out or a client
    gone could stop it: both were checked only between the reply's tokens. llama.cpp now stops
    between its compute steps, with part of the prompt read, and the model answers the next request."""
    client = LocalModelClient(base_url="", api_key="", model=f"local:{smollm2_model()}", timeout_s=0.5)
    if stopped_by == "asker gone":
        client.timeout_s, gone_at = 600.0, time.perf_counter() + 0.5
        client.stop_when = lambda: time.perf_counter() > gone_at
    expected = LLMTimeoutError if stopped_by == "time-out" else AnswerAbandoned
    with pytest.raises(expected) as stopped:
        client.chat([{"role": "user", "content": LONG_PROMPT}], max_tokens=4)
    if stopped_by == "time-out":
        assert "did not finish its reply within 0.5s (stopped after 0 characters)" in str(stopped.value)
    assert prompt_tokens_read(client) < len(LONG_PROMPT.split())  # fewer than its words: not read to its end
    client.stop_when = None
    client.timeout_s = 120.0
    assert client.chat([{"role": "user", "content": "Say hi."}], max_tokens=4).text


CONCURRENT_ASKS = """
import sys, threading
from docgraph.app.config import Settings
from docgraph.app.llm.client import make_client

client = make_client(Settings(llm_model="local:" + sys.argv[1], llm_base_url="", llm_api_key="", llm_max_tokens=16))
replies = []
ask = lambda: replies.append(client.chat([{"role": "user", "content": "Name a bird."}]))
threads = [threading.Thread(target=ask) for _ in range(3)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len([reply for reply in replies if reply.text]))
"""


def test_a_local_model_answers_requests_of_several_threads(tmp_path: Path) -> None:
    """The API's threads shared one llama.cpp context: two /ask at once failed a GGML assertion and
    ended the server (run in a process of its own, which that would kill)."""
    done = subprocess.run(
        [sys.executable, "-c", CONCURRENT_ASKS, str(smollm2_model())], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "3"


STREAM_READER_FAILS = """
import sys
from docgraph.app.config import Settings
from docgraph.app.llm.client import make_client

client = make_client(Settings(llm_model="local:" + sys.argv[1], llm_base_url="", llm_api_key="", llm_max_tokens=8))
def stopped(piece):
    raise KeyboardInterrupt  # the reader of the stream gave up (a UI session stopped, Ctrl-C)
try:
    client.chat([{"role": "user", "content": "Name a bird."}], stream=stopped)
except KeyboardInterrupt as error:
    kept = error  # its traceback keeps the stream's frames alive, as a UI or a logger may
print(bool(client.chat([{"role": "user", "content": "Name a fish."}]).text))
"""


def test_a_local_model_is_free_again_after_a_stream_its_reader_gave_up(tmp_path: Path) -> None:
    """The model's lock was released only when the stream was closed, which nothing did when the
    stream's reader raised: the next completion of that thread waited for ever."""
    done = subprocess.run(
        [sys.executable, "-c", STREAM_READER_FAILS, str(smollm2_model())], capture_output=True, text=True, timeout=120
    )  # a wait for ever ends in TimeoutExpired
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr[-2000:]


def test_a_reply_another_request_interrupts_is_not_taken_as_whole(server: str) -> None:
    """llama.cpp's server ends a streamed reply when another request comes in (`[DONE]` and no finish
    reason): two users asking at once, the first got an empty or half answer as if it were whole."""
    endless = EndlessClient(base_url=server, api_key="none", model=str(smollm2_model()), timeout_s=120.0)
    started = threading.Event()
    outcome: list[object] = []

    def ask_first() -> None:
        try:
            prompt: list[Message] = [{"role": "user", "content": "Count from 1 to 5000."}]
            outcome.append(endless.chat(prompt, max_tokens=ENDLESS_TOKENS, stream=lambda _: started.set()))
        except Exception as error:
            outcome.append(error)

    first = threading.Thread(target=ask_first)
    first.start()
    assert started.wait(120)
    second = LLMClient(base_url=server, api_key="none", model=str(smollm2_model()), timeout_s=120.0)
    assert second.chat([{"role": "user", "content": "Say hi."}], max_tokens=4).text
    first.join(120)
    [cut] = outcome
    assert isinstance(cut, LLMReplyCutOffError), cut
    assert cut.partial.strip() and "ended its reply unfinished" in str(cut)


def test_a_server_killed_mid_reply_is_a_reply_broken_off(tmp_path: Path) -> None:
    """It said "the LLM endpoint ... cannot be reached" after part of the answer was shown, and the
    answer failed; as a reply cut off, ask quotes the documents instead (the partial kept)."""
    shown: list[str] = []
    with llama_server() as url:
        server_pid = next(pid for pid in server_pids() if f"--port\0{url.split(':')[2].split('/')[0]}\0" in pid[1])
        endless = EndlessClient(base_url=url, api_key="none", model=str(smollm2_model()), timeout_s=120.0)

        def kill_at_first_piece(piece: str) -> None:
            shown.append(piece)
            if len(shown) == 1:
                os.kill(server_pid[0], signal.SIGKILL)

        with pytest.raises(LLMReplyCutOffError) as broken:
            prompt: list[Message] = [{"role": "user", "content": "Count from 1 to 5000."}]
            endless.chat(prompt, max_tokens=ENDLESS_TOKENS, stream=kill_at_first_piece)
    assert "broke off its reply after" in str(broken.value) and "the connection was lost" in str(broken.value)
    assert broken.value.partial == "".join(shown)


def server_pids() -> Iterator[tuple[int, str]]:
    """Each process's id and command line (NUL-separated)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                yield int(entry.name), (entry / "cmdline").read_text()
            except OSError:
                continue
