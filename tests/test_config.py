"""Settings come from arguments, the environment and docgraph.toml, in that order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from docgraph.app.config import Settings, default_home, load_settings
from docgraph.app.llm.client import llm_configured
from docgraph.errors import ConfigError


def test_default_store_is_local_falkordb_under_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DOCGRAPH_STORE", raising=False)
    monkeypatch.setenv("DOCGRAPH_HOME", str(tmp_path))
    assert load_settings().store_url == f"falkordb-local://{tmp_path}"


def test_environment_and_conventional_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCGRAPH_STORE", "bolt://db:7687")
    monkeypatch.setenv("NEO4J_PASSWORD", "secret")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    settings = load_settings()
    assert settings.store_url == "bolt://db:7687"
    assert settings.neo4j_password == "secret"
    assert settings.llm_base_url == "http://127.0.0.1:9/v1"


def test_argument_beats_environment_and_toml(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docgraph.toml").write_text('store = "falkordb://toml:6379"\nquery_timeout_s = 7.5\n')
    monkeypatch.delenv("DOCGRAPH_STORE", raising=False)
    settings = load_settings()
    assert settings.store_url == "falkordb://toml:6379"
    assert settings.query_timeout_s == 7.5
    monkeypatch.setenv("DOCGRAPH_STORE", "falkordb://env:6379")
    assert load_settings().store_url == "falkordb://env:6379"
    assert load_settings(store="falkordb://arg:6379").store_url == "falkordb://arg:6379"


def test_a_bad_setting_is_one_config_error_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCGRAPH_ENCODER_RUNTIME", "tensorrt")
    with pytest.raises(ConfigError) as raised:
        load_settings()
    assert str(raised.value) == "bad setting: encoder_runtime: Input should be 'torch', 'onnx' or 'onnx-int8'"
    (tmp_path / "docgraph.toml").write_text("max_pages = 0\n")
    monkeypatch.setenv("DOCGRAPH_ENCODER_RUNTIME", "onnx-int8")
    with pytest.raises(ConfigError, match=r"^bad setting: max_pages: Input should be greater than 0$"):
        load_settings()
    monkeypatch.delenv("DOCGRAPH_ENCODER_RUNTIME")
    (tmp_path / "docgraph.toml").unlink()
    assert load_settings().encoder_runtime == "onnx"


def test_a_misspelt_setting_is_refused_not_ignored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``Settings(llm_base_ur=...)`` and a misspelt key of docgraph.toml were ignored: answers came back
    extractive with no word why. The environment's other DOCGRAPH_ names are not settings' business."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCGRAPH_NOT_A_SETTING", "1")
    assert load_settings().llm_base_url == ""
    with pytest.raises(ValidationError, match="llm_base_ur"):
        Settings(llm_base_ur="http://127.0.0.1:9/v1")  # type: ignore[call-arg]
    (tmp_path / "docgraph.toml").write_text('llm_base_ur = "http://127.0.0.1:9/v1"\n')
    with pytest.raises(ConfigError, match=r"^bad setting: llm_base_ur: no such setting \(see docs/configuration.md\)$"):
        load_settings()


def test_the_suite_keeps_off_the_users_data_home() -> None:
    """conftest points both the data home and its XDG fallback at the run's own folder, for this
    process and those it starts: a test that forgets its home must not reach the user's store."""
    users = Path.home() / ".local" / "share" / "docgraph"
    homes = [load_settings().home, default_home()]
    started = subprocess.run(
        [
            sys.executable,
            "-c",
            "from docgraph.app.config import default_home, load_settings; "
            "print(load_settings().home); print(default_home())",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    homes += [Path(line) for line in started.stdout.split()]
    assert len(homes) == 4
    for home in homes:
        assert not home.is_relative_to(users) and not home.is_relative_to(Path.home()), home


def test_an_empty_checkpoint_variable_means_the_shipped_checkpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """`DOCGRAPH_GNN_CHECKPOINT= docgraph reembed` said "no GNN checkpoint at ." (an empty path is
    the current folder)."""
    monkeypatch.setenv("DOCGRAPH_GNN_CHECKPOINT", "")
    monkeypatch.setenv("DOCGRAPH_RERANKER_CHECKPOINT", "  ")
    settings = load_settings()
    assert settings.gnn_checkpoint is None and settings.reranker_checkpoint is None
    monkeypatch.setenv("DOCGRAPH_GNN_CHECKPOINT", "ck/g.pt")
    assert load_settings().gnn_checkpoint == Path("ck/g.pt")


def test_an_empty_model_variable_means_the_default_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """.env.example and docker-compose.yml leave DOCGRAPH_LLM_MODEL empty: with a URL and a key set,
    the LLM was off, and the note blamed the URL and the key."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    monkeypatch.setenv("DOCGRAPH_LLM_MODEL", "")
    settings = load_settings()
    assert settings.llm_model == "gpt-4o-mini" and llm_configured(settings)
    monkeypatch.setenv("DOCGRAPH_LLM_MODEL", "smollm2")
    assert load_settings().llm_model == "smollm2"
