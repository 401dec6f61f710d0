"""The deployment files are valid and wire Neo4j and the app together."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def load_compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_services_healthchecks_and_volume() -> None:
    compose = load_compose()
    services = compose["services"]
    assert {"neo4j", "app"} <= set(services)
    neo4j = services["neo4j"]
    assert neo4j["image"].startswith("neo4j:5")
    assert {"7474:7474", "7687:7687"} <= set(neo4j["ports"])
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


def test_env_example_names_every_variable_compose_needs() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    example = (ROOT / ".env.example").read_text()
    for name in ("NEO4J_PASSWORD", "OPENAI_BASE_URL", "OPENAI_API_KEY", "DOCGRAPH_LLM_MODEL"):
        assert "${" + name in text
        assert f"{name}=" in example
