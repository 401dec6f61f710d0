"""Store fixtures: one real FalkorDB server per test session, a fresh graph per test.

* ``local_home``: the session's data home; its local FalkorDB server is started on first use and
  stopped when the session ends.
* ``falkordb_store``: a store on that server with a graph of its own (schema applied, indexes
  built), dropped after the test.
* ``store``: the store contract's parametrised fixture: FalkorDB always, Neo4j too when
  ``NEO4J_URI`` is set (``NEO4J_USER``/``NEO4J_PASSWORD`` as usual). Neo4j tests share the one
  database, so they remove the documents they wrote (doc ids starting ``contract-``) afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from docgraph.app.config import Settings
from docgraph.app.stores import falkordb_server
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_store import FalkorDBStore

NEO4J_SKIP_REASON = "NEO4J_URI not set: Neo4j contract skipped"
TRAIN_DIR = Path("/work/shared/bench/train")
TRAIN_QUESTIONS = Path(__file__).parent / "data" / "train_questions.jsonl"
TEST_DOC_PREFIX = "contract-"
GUARD_HOME = pytest.StashKey[Path]()


@pytest.fixture(scope="session")
def local_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("docgraph-home")
    yield home
    falkordb_server.stop(home)


def fresh_graph_name() -> str:
    return f"test_{uuid.uuid4().hex[:12]}"


def train_questions_about(documents: Iterable[str], out: Path) -> Path:
    """Write the hand-written train questions about ``documents`` (file names) to ``out``."""
    wanted = set(documents)
    lines = [line for line in TRAIN_QUESTIONS.read_text().splitlines() if line and json.loads(line)["doc"] in wanted]
    out.write_text("\n".join(lines) + "\n")
    return out


def local_settings(home: Path, graph: str) -> Settings:
    return Settings(home=home, graph=graph, store="")


@pytest.fixture
def falkordb_store(local_home: Path) -> Iterator[FalkorDBStore]:
    graph_store = open_store(local_settings(local_home, fresh_graph_name()))
    assert isinstance(graph_store, FalkorDBStore)
    graph_store.apply_schema()
    graph_store.wait_for_indexes()
    yield graph_store
    graph_store.delete_graph()
    graph_store.close()


@pytest.fixture(params=["falkordb", "neo4j"])
def store(request: pytest.FixtureRequest, local_home: Path) -> Iterator[GraphStore]:
    if request.param == "falkordb":
        yield request.getfixturevalue("falkordb_store")
        return
    uri = os.environ.get("NEO4J_URI")
    if not uri:
        pytest.skip(NEO4J_SKIP_REASON)
    graph_store = open_store(Settings(home=local_home, store=uri, graph=os.environ.get("NEO4J_DATABASE", "neo4j")))
    graph_store.apply_schema()
    graph_store.wait_for_indexes()
    yield graph_store
    for row in graph_store.read(
        "MATCH (d:Document) WHERE d.doc_id STARTS WITH $prefix RETURN d.doc_id AS doc_id", {"prefix": TEST_DOC_PREFIX}
    ):
        graph_store.delete_document(str(row["doc_id"]))
    graph_store.close()


def pytest_configure(config: pytest.Config) -> None:
    """Point the default data home (DOCGRAPH_HOME, and XDG_DATA_HOME beneath it) at a folder of the
    run's own, for this process and every one it starts: a test that opens the default store
    never reaches, nor leaves a server in, the user's ~/.local/share/docgraph."""
    guard = Path(tempfile.mkdtemp(prefix="docgraph-tests-"))
    config.stash[GUARD_HOME] = guard
    os.environ["DOCGRAPH_HOME"] = str(guard / "home")
    os.environ["XDG_DATA_HOME"] = str(guard / "data")


def pytest_unconfigure(config: pytest.Config) -> None:
    guard = config.stash.get(GUARD_HOME, None)
    if guard is None:
        return
    for home in (guard / "home", guard / "data" / "docgraph"):
        if home.exists():
            falkordb_server.stop(home)
    shutil.rmtree(guard, ignore_errors=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/data/golden/retrieval.json from this run (see tests/test_golden_retrieval.py)",
    )


@pytest.fixture
def cli_env(local_home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A fresh graph on the shared test server, chosen through the environment as a user would."""
    env = {
        "DOCGRAPH_HOME": str(local_home),
        "DOCGRAPH_STORE": "",
        "DOCGRAPH_GRAPH": f"cli_{uuid.uuid4().hex[:8]}",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env
