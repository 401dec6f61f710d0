"""The deployment files are valid and wire Neo4j and the app together."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from docgraph.app.auth.exposure import check_exposure
from docgraph.app.auth.keys import KeyStore

ROOT = Path(__file__).resolve().parent.parent


def load_compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_services_healthchecks_and_volume() -> None:
    compose = load_compose()
    services = compose["services"]
    assert {"neo4j", "app"} <= set(services)
    neo4j = services["neo4j"]
    assert neo4j["image"].startswith("neo4j:5")
    assert {"127.0.0.1:7474:7474", "127.0.0.1:7687:7687"} <= set(neo4j["ports"])  # an admin login: not on the network
    assert "cypher-shell" in " ".join(neo4j["healthcheck"]["test"])
    volume_names = {mount.split(":")[0] for mount in neo4j["volumes"]}
    assert volume_names & set(compose["volumes"]), "Neo4j data must live on a named volume"
    app = services["app"]
    assert app["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert app["environment"]["DOCGRAPH_STORE"].startswith(("neo4j://", "bolt://"))
    assert "healthcheck" in app
    assert (ROOT / "Dockerfile").is_file()


def test_optional_llm_profile_is_off_by_default() -> None:
    services = load_compose()["services"]
    assert services["llm"]["profiles"] == ["llm"]
    assert all(port.startswith("127.0.0.1:") for port in services["llm"]["ports"])  # no keys of its own


# The Neo4j image's entrypoint writes every other NEO4J_* variable into neo4j.conf as a setting
# (NEO4J_PASSWORD as "PASSWORD"), and Neo4j 5 will not start on a setting it does not know
# (docker-neo4j, docker-image-src/5/coredb/docker-entrypoint.sh, not_configs).
NEO4J_IMAGE_CONTROLS = {
    "NEO4J_AUTH",
    "NEO4J_AUTH_PATH",
    "NEO4J_ACCEPT_LICENSE_AGREEMENT",
    "NEO4J_PLUGINS",
    "NEO4J_DEBUG",
}


def test_neo4j_is_given_only_settings_and_its_healthcheck_only_what_it_is_given() -> None:
    neo4j = load_compose()["services"]["neo4j"]
    environment = neo4j["environment"]
    for name in environment:
        # a setting: a lower-case namespace (server., db., dbms., initial.), dots as _ and _ as __
        assert name in NEO4J_IMAGE_CONTROLS or re.fullmatch(r"NEO4J_[a-z][a-z0-9_]*", name), name
    used = set(re.findall(r"\$\$\{(\w+)", " ".join(neo4j["healthcheck"]["test"])))
    assert used and used <= set(environment), used


def test_the_app_can_be_reached_by_the_names_the_team_uses() -> None:
    app = load_compose()["services"]["app"]
    assert app["environment"]["DOCGRAPH_ALLOWED_HOSTS"] == "${DOCGRAPH_ALLOWED_HOSTS:-}"


def test_the_app_image_does_not_run_as_root() -> None:
    users = [line.split()[1] for line in dockerfile_lines() if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    last_user = max(i for i, line in enumerate(dockerfile_lines()) if line.startswith("USER "))
    assert not any(line.startswith("RUN ") for line in dockerfile_lines()[last_user:])


def test_env_example_names_every_variable_compose_needs() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    example = (ROOT / ".env.example").read_text()
    for name in (
        "NEO4J_PASSWORD",
        "NEO4J_HEAP",
        "DOCGRAPH_ALLOWED_HOSTS",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "DOCGRAPH_LLM_MODEL",
    ):
        assert "${" + name in text
        assert f"{name}=" in example


def dockerfile_lines() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_image_copies_every_package_and_the_files_the_app_reads() -> None:
    copied = {line.split()[1] for line in dockerfile_lines() if line.startswith("COPY ")}
    # docgraph/ maps the top-level folders (code, queries, schema, the sample) under one import root.
    linked = {link.name for link in (ROOT / "docgraph").iterdir() if link.is_symlink()}
    assert {"app", "ingest", "models", "ui", "cypher", "schema", "samples"} <= linked
    assert {"docgraph"} | linked <= copied, f"not copied into the image: {sorted({'docgraph'} | linked - copied)}"


def test_the_image_installs_as_make_does() -> None:
    lines = dockerfile_lines()
    installs = [line for line in lines if re.search(r"pip install -c \S+ \.(\s|$)", line)]
    assert len(installs) == 1, "the package must install (as a wheel, not editable) under constraints.txt"
    assert any(line.startswith("COPY ") and "constraints.txt" in line for line in lines)
    # The run-time Debian packages of the Makefile (chromium is for the browser tests only, DejaVu
    # for a test PDF's combining marks).
    makefile = (ROOT / "Makefile").read_text()
    sysdeps = makefile.split("SYSDEPS := ", 1)[1].split("\n", 1)[0].split()
    apt = " ".join(line for line in lines if "apt-get install" in line)
    test_only = {"chromium", "fonts-dejavu-core"}
    assert [pkg for pkg in sysdeps if pkg not in test_only and pkg not in apt] == []


def test_the_image_makes_its_first_key_once_and_keeps_it_private(tmp_path: Path) -> None:
    cmd = json.loads(next(line for line in dockerfile_lines() if line.startswith("CMD ")).removeprefix("CMD "))
    first_key = cmd[-1].split(" && exec ")[0]  # the part before the UI starts
    assert "docgraph ui --host 0.0.0.0" in cmd[-1]
    docgraph_bin = Path(sys.executable).with_name("docgraph")
    env = {**os.environ, "DOCGRAPH_HOME": str(tmp_path), "PATH": f"{docgraph_bin.parent}:{os.environ['PATH']}"}
    for _ in range(2):  # a restart keeps the first key
        done = subprocess.run(["sh", "-c", first_key], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    key_file = tmp_path / "first-writer-key"
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    key = KeyStore(tmp_path).verify(key_file.read_text().strip())
    assert key is not None and key.role == "writer"
    assert len(KeyStore(tmp_path).records()) == 1
    check_exposure("0.0.0.0", KeyStore(tmp_path))  # so the UI may listen on every address
