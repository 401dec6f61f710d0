"""The wheel: built from the checkout, installed in a fresh venv outside it, and used from there.

The fresh venv takes docgraph from the wheel alone; its dependencies come from this checkout's venv
(a path entry, not an install), so the test needs no network and no second copy of torch.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui_helpers import free_port, wait_for_json, wait_healthy

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"
TOP_LEVEL_NAMES = ("app", "ingest", "models", "ui", "cypher", "schema")
NOT_PACKAGED = (".git", ".venv", "build", "*.egg-info", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache")

pytestmark = pytest.mark.slow


class Installed:
    """A venv with the wheel installed, and an environment whose data home is its own."""

    def __init__(self, prefix: Path, home: Path) -> None:
        self.bin = prefix / "bin"
        self.site = Path(sysconfig.get_path("purelib", vars={"base": str(prefix), "platbase": str(prefix)}))
        self.env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
        self.env.update({"DOCGRAPH_HOME": str(home), "DOCGRAPH_STORE": "", "OMP_THREAD_LIMIT": "1"})
        self.cwd = home.parent

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / args[0]), *args[1:]],
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    # Built from a copy: pip builds in the source tree, and a build/ left there from another run
    # could carry modules deleted since into the wheel.
    source = base / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(*NOT_PACKAGED))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "-w", str(dist), "--no-deps", "--no-build-isolation", "-q"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    wheel = next(dist.glob("docgraph-*.whl"))
    prefix = base / "venv"
    venv.create(prefix, with_pip=False)
    target = Installed(prefix, base / "home")
    # The dependencies: this venv's site-packages as a plain path entry (its .pth files are not read,
    # so the checkout's editable install does not come along).
    (target.site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(prefix / "bin" / "python"),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr
    yield target
    target.run("docgraph", "store", "stop", timeout=60)


def test_the_wheel_installs_one_import_root_with_its_data(installed: Installed) -> None:
    assert (installed.site / "docgraph" / "__init__.py").is_file()
    assert [name for name in TOP_LEVEL_NAMES if (installed.site / name).exists()] == []
    probe = (
        "import json, docgraph, docgraph.ingest.graph, docgraph.models.gnn; from docgraph.app import resources; "
        "print(json.dumps({'package': docgraph.__file__, 'cypher': str(resources.CYPHER_DIR), "
        "'queries': len(list(resources.CYPHER_DIR.rglob('*.cypher'))), 'api': sorted(docgraph.__all__), "
        "'ask': callable(docgraph.ask), 'retriever': docgraph.DocgraphRetriever.__name__, "
        "'shadowed': [n for n in docgraph.__all__ if not callable(getattr(docgraph, n))]}))"
    )
    done = installed.run("python", "-c", probe)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert Path(found["package"]).is_relative_to(installed.site)
    assert Path(found["cypher"]).is_relative_to(installed.site) and found["queries"] > 40
    assert {"ingest_pdfs", "ask", "retriever", "open_store", "DocgraphRetriever"} <= set(found["api"])
    assert found["ask"] and found["retriever"] == "DocgraphRetriever"
    assert found["shadowed"] == []  # no public name is hidden by a subpackage of the same name


def test_the_installed_command_ingests_and_answers(installed: Installed) -> None:
    ingest = installed.run("docgraph", "ingest", str(SAMPLE), "--json")
    assert ingest.returncode == 0, ingest.stderr
    reports = json.loads(ingest.stdout)
    assert reports[0]["status"] in ("ingested", "unchanged") and reports[0]["pages"] == 3
    assert "gnn" in reports[0]["stages"]  # the checkpoint shipped inside the wheel was found
    ask = installed.run("docgraph", "ask", "When are the penguins fed?", "--json")
    assert ask.returncode == 0, ask.stderr
    answer = json.loads(ask.stdout)
    assert "10:30" in answer["answer"] and answer["citations"]


def test_the_installed_servers_start(installed: Installed, tmp_path: Path) -> None:
    port = free_port()
    api = subprocess.Popen(
        [str(installed.bin / "docgraph"), "serve", "--port", str(port)],
        cwd=installed.cwd,
        env=installed.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        health = wait_for_json(f"http://127.0.0.1:{port}/health", api)
        assert health["status"] == "ok" and health["documents"] >= 1
    finally:
        api.terminate()
        api.wait(timeout=30)
    port = free_port()
    log = tmp_path / "ui.log"
    with log.open("wb") as out:
        ui = subprocess.Popen(
            [str(installed.bin / "docgraph"), "ui", "--port", str(port)],
            cwd=installed.cwd,
            env=installed.env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_healthy(f"http://127.0.0.1:{port}", ui, log, 90)
        finally:
            ui.terminate()
            ui.wait(timeout=30)
    # The app script itself, as the installed package ships it, runs without an error.
    script = (
        "import sys; from streamlit.testing.v1 import AppTest; from docgraph.app.cli.ui_cmds import UI_APP; "
        "at = AppTest.from_file(str(UI_APP), default_timeout=120).run(); "
        "sys.exit(f'{UI_APP}: ' + repr([e.value for e in at.exception]) if at.exception else 0)"
    )
    done = installed.run("python", "-c", script)
    assert done.returncode == 0, done.stdout + done.stderr
