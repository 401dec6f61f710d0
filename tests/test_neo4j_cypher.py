"""Every Cypher statement docgraph sends to Neo4j, checked by Neo4j's own parser and semantic analysis.

No Neo4j server runs here, so the Neo4j store's queries would otherwise first meet Neo4j at a
user's. Each named query as the Neo4j store loads it, the schema DDL, the worked examples
(text-to-Cypher's few-shot examples), the analyst queries and the README's go through
``tests/neo4j_cypher/lint.mjs``, which runs them through ``@neo4j-cypher/language-support``
(installed by ``make test`` with ``npm ci``): syntax, semantics (undefined variables, aggregation
misuse), Neo4j's procedure and function signatures, and the labels, relationship types and property
keys of ``schema/graph.yaml``. Each Neo4j version of a query must also take the parameters of
its FalkorDB version, which the tests run with what the code passes. The store tests on Neo4j
(``test_store_contract.py`` with ``NEO4J_URI``) still need a server.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from docgraph.app.llm.cypher_guard import code_only
from docgraph.app.resources import CYPHER_DIR
from docgraph.app.stores.cypher import load, render
from docgraph.app.stores.neo4j_store import DIALECT
from docgraph.app.stores.schema import (
    GNN_ABLATION_PROPERTIES,
    GNN_PROPERTY,
    kind_label,
    load_ddl,
    load_graph_schema,
)
from docgraph.app.ui_support.examples import load_examples
from docgraph.records import ID_PROPERTY

ROOT = Path(__file__).resolve().parent.parent
LINTER = ROOT / "tests" / "neo4j_cypher"
PARAMETER = re.compile(r"\$(\w+)")
# Parameters that only one dialect's version of a query takes (its index by name on Neo4j, by label
# and property on FalkorDB): the callers pass both (app/retrieval/gnn.py), or each store builds its
# own (vector_top_k, fulltext_top_k, await_indexes).
DIALECT_PARAMETERS = frozenset({"index", "label", "property", "timeout"})
PLACEHOLDER = re.compile(r"\{[a-z_]+\}")
README_BLOCK = re.compile(r"```cypher\n(.*?)```", re.DOTALL)

pytestmark = [
    pytest.mark.skipif(
        shutil.which("node") is None, reason="Node.js is not installed (the Neo4j Cypher linter runs on it)"
    ),
    pytest.mark.skipif(
        not (LINTER / "node_modules" / "@neo4j-cypher" / "language-support").is_dir(),
        reason="the Neo4j Cypher linter is not installed: `make test` runs `npm ci` in tests/neo4j_cypher",
    ),
]

Statement = dict[str, str]


def lint(statements: list[Statement]) -> list[dict[str, Any]]:
    schema = load_graph_schema()
    payload = {
        "statements": statements,
        "labels": [spec.name for spec in schema.labels] + list(schema.kind_labels.labels),
        "relationshipTypes": sorted({spec.type for spec in schema.relationships}),
        "propertyKeys": sorted(declared_property_keys()),
    }
    done = subprocess.run(
        ["node", "lint.mjs"], cwd=LINTER, input=json.dumps(payload), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


def declared_property_keys() -> set[str]:
    """The properties graph.yaml describes, and those it names as families (the GNN ablations')."""
    schema = load_graph_schema()
    keys = {prop.name for spec in schema.labels for prop in spec.properties}
    keys |= {prop.name for spec in schema.relationships for prop in spec.properties}
    return keys | set(GNN_ABLATION_PROPERTIES.values())


def cypher_statements() -> list[Statement]:
    """Each named query as the Neo4j store loads it; a template is filled with identifiers of one of
    its uses (which labels and types a template gets is the writers' business: only its Cypher is
    checked here, and the identifiers are all the schema's)."""
    names = {path.stem for path in CYPHER_DIR.glob("*.cypher")} | {
        path.stem for path in (CYPHER_DIR / DIALECT).glob("*.cypher")
    }
    return [{"source": f"cypher/{name}", "query": filled(name)} for name in sorted(names)]


def filled(name: str) -> str:
    # {labels} is a label set (Region:Table), which render's identifier check would refuse.
    return render(name, DIALECT, **TEMPLATE_FILL).replace("{labels}", "Region:" + kind_label("table"))


TEMPLATE_FILL = {
    "label": "Region",
    "id": ID_PROPERTY["Region"],
    "property": GNN_PROPERTY,
    "type": "IS_UNDER",
    "src_label": "Region",
    "src_id": ID_PROPERTY["Region"],
    "dst_label": "Section",
    "dst_id": ID_PROPERTY["Section"],
}


def schema_statements() -> list[Statement]:
    return [{"source": f"schema/{DIALECT} #{n}", "query": q} for n, q in enumerate(load_ddl(DIALECT), start=1)]


def example_statements() -> list[Statement]:
    """The worked examples (text-to-Cypher's too) and the analyst queries of ``cypher/``."""
    return [{"source": f"cypher example {example.name}", "query": example.query} for example in load_examples()]


def readme_statements() -> list[Statement]:
    """The ``cypher`` blocks of README.md and docs/."""
    statements: list[Statement] = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        blocks = README_BLOCK.findall(page.read_text(encoding="utf-8"))
        name = page.relative_to(ROOT)
        statements += [{"source": f"{name} cypher block {n}", "query": q} for n, q in enumerate(blocks, start=1)]
    return statements


def test_every_statement_docgraph_sends_to_neo4j_passes_neo4j_s_own_checks() -> None:
    statements = cypher_statements() + schema_statements() + example_statements() + readme_statements()
    assert len(statements) > 80  # every named query, the DDL, the examples and the README's
    unfilled = [s["source"] for s in statements if PLACEHOLDER.search(s["query"])]
    assert unfilled == [], f"templates with a placeholder this test does not fill: {unfilled}"
    found = lint(statements)
    assert found == [], "\n".join(f"{d['source']} line {d['line']}: {d['severity']}: {d['message']}" for d in found)


def test_the_linter_reports_falkordb_calls_unknown_names_and_bad_syntax() -> None:
    found = lint(
        [
            {"source": "vecf32", "query": "MATCH (r:Region) SET r.embedding = vecf32($vector)"},
            {
                "source": "falkordb index",
                "query": "CALL db.idx.vector.queryNodes('Region', 'embedding', 5, $v) YIELD node RETURN node",
            },
            {"source": "label", "query": "MATCH (r:Reigon) RETURN r.text"},
            {"source": "relationship", "query": "MATCH (r:Region)-[:IS_UNDR]->(s:Section) RETURN s.title"},
            {"source": "property", "query": "MATCH (r:Region) RETURN r.txet"},
            {"source": "variable", "query": "MATCH (r:Region) RETURN s"},
            {"source": "syntax", "query": "MATCH (r:Region) RETURN r LIMT 5"},
            {
                "source": "yield",
                "query": "CALL db.index.vector.queryNodes($i, 5, $v) YIELD node, similarity RETURN node",
            },
        ]
    )
    by_source = {d["source"]: d for d in found}
    assert sorted(by_source) == [
        "falkordb index",
        "label",
        "property",
        "relationship",
        "syntax",
        "variable",
        "vecf32",
        "yield",
    ]
    assert "vecf32" in by_source["vecf32"]["message"]
    assert "db.idx.vector.queryNodes" in by_source["falkordb index"]["message"]
    assert "Reigon" in by_source["label"]["message"] and by_source["label"]["severity"] == "warning"
    assert "IS_UNDR" in by_source["relationship"]["message"]
    assert "txet" in by_source["property"]["message"]
    assert "similarity" in by_source["yield"]["message"]
    assert by_source["variable"]["severity"] == by_source["syntax"]["severity"] == "error"


def parameters(query: str) -> set[str]:
    return set(PARAMETER.findall(code_only(query)))


def test_each_neo4j_query_takes_the_parameters_of_its_falkordb_version() -> None:
    # The tests run every query's FalkorDB version with the parameters the code passes; a Neo4j
    # version that asks for another parameter would first fail at a user's.
    shared = {path.name for path in (*CYPHER_DIR.glob("*.cypher"), *(CYPHER_DIR / "falkordb").glob("*.cypher"))}
    overrides = [path for path in sorted((CYPHER_DIR / DIALECT).glob("*.cypher")) if path.name in shared]
    assert len(overrides) > 10
    for path in overrides:
        neo4j, falkordb = parameters(load(path.stem, DIALECT)), parameters(load(path.stem, "falkordb"))
        assert neo4j - DIALECT_PARAMETERS == falkordb - DIALECT_PARAMETERS, path.stem
