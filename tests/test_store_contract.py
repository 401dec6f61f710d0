"""The GraphStore contract, run on a real FalkorDB (and on Neo4j when NEO4J_URI is set)."""

from __future__ import annotations

import itertools
import json
import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from docgraph.app.config import Settings
from docgraph.app.stores.base import GraphCounts, GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.stores.neo4j_store import Neo4jStore
from docgraph.errors import (
    QuerySyntaxError,
    QueryTimeoutError,
    ReadOnlyViolationError,
    StoreError,
    StoreUnavailableError,
)
from docgraph.records import EdgeRecord, GraphBatch, NodeRecord

DIM = 384
T = TypeVar("T")

TEXTS = [
    ("section_header", "Quarterly results"),
    ("paragraph", "Revenue grew strongly in the third quarter, see Table 2."),
    ("table", "Table 2: quarterly revenue by region"),
    ("caption", "Table 2. Revenue per quarter"),
]
CELLS = [["Quarter", "Revenue"], ["Q3", "12.5"]]


def unit(index: int, lean: int | None = None, weight: float = 0.2) -> list[float]:
    """A unit vector along ``index``, leaning a little towards ``lean``."""
    vector = [0.0] * DIM
    vector[index] = 1.0
    if lean is not None:
        vector[lean] = weight
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def make_batch(doc_id: str, version: str, texts: list[tuple[str, str]] = TEXTS) -> GraphBatch:
    """A small hand-built document: 1 page, 1 section, one region per ``texts`` entry."""
    sha = (version * 64)[:64]
    tag = f"{doc_id}@{version}"
    batch = GraphBatch(doc_id=doc_id, sha256=sha)
    document = {"title": f"Report {version}", "file_name": f"{doc_id}.pdf", "sha256": sha, "page_count": 1}
    batch.nodes.append(NodeRecord("Document", doc_id, document))
    batch.nodes.append(NodeRecord("Page", f"{tag}:p1", {"number": 1, "width": 612.0, "height": 792.0}))
    batch.nodes.append(NodeRecord("Section", f"{tag}:s0", {"title": "Results and discussion", "level": 1}))
    batch.edges.append(EdgeRecord("HAS_PAGE", "Document", doc_id, "Page", f"{tag}:p1"))
    batch.edges.append(EdgeRecord("IS_UNDER", "Section", f"{tag}:s0", "Document", doc_id))
    keys = [f"{tag}:p1:r{i}" for i in range(len(texts))]
    for i, (kind, text) in enumerate(texts):
        props: dict[str, Any] = {"page": 1, "kind": kind, "text": text, "order": i, "bbox": [10, 20.5 * i, 300, 40.0]}
        props |= {"continues": i == 1, "embedding": unit(i, i + 1), "gnn_embedding": unit(i + 10)}
        if kind == "table":
            props["cells"] = CELLS
        batch.nodes.append(NodeRecord("Region", keys[i], props))
        batch.edges.append(EdgeRecord("ON_PAGE", "Region", keys[i], "Page", f"{tag}:p1"))
        batch.edges.append(EdgeRecord("IS_UNDER", "Region", keys[i], "Section", f"{tag}:s0"))
    for a, b in itertools.pairwise(keys):
        batch.edges.append(EdgeRecord("HAS_NEXT", "Region", a, "Region", b, {"cross_page": False}))
    if len(keys) >= 4:
        batch.edges.append(EdgeRecord("REF", "Region", keys[1], "Region", keys[2], {"label": "Table 2"}))
        batch.edges.append(EdgeRecord("CAPTION_OF", "Region", keys[3], "Region", keys[2]))
        batch.edges.append(EdgeRecord("IS_SIMILAR", "Region", keys[1], "Region", keys[2], {"score": 0.75}))
    return batch


def doc(name: str) -> str:
    return f"contract-{name}"


def delta(after: GraphCounts, before: GraphCounts) -> tuple[dict[str, int], dict[str, int]]:
    """Changes of the label and relationship type counts."""

    def changes(new: dict[str, int], old: dict[str, int]) -> dict[str, int]:
        diffs = {key: new.get(key, 0) - old.get(key, 0) for key in new.keys() | old.keys()}
        return {key: diff for key, diff in diffs.items() if diff}

    return changes(after.labels, before.labels), changes(after.relationship_types, before.relationship_types)


def eventually(probe: Callable[[], T], accept: Callable[[T], bool], timeout_s: float = 10.0) -> T:
    """Index updates may land asynchronously (Neo4j); FalkorDB's are immediate."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if accept(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def region(store: GraphStore, key: str) -> dict[str, Any]:
    rows = store.read("MATCH (r:Region {region_id: $key}) RETURN r AS node, labels(r) AS labels", {"key": key})
    assert len(rows) == 1
    node = rows[0]["node"]
    return {"labels": set(rows[0]["labels"]), **node["properties"]}


def snapshot(store: GraphStore, doc_id: str) -> dict[str, Any]:
    counts = store.counts()
    rows = store.read(
        "MATCH (n) WHERE n.doc_id = $doc RETURN labels(n) AS labels, n.doc_sha256 AS version, "
        "coalesce(n.region_id, n.page_id, n.section_id, n.doc_id) AS key, n.text AS text, n.title AS title "
        "ORDER BY key",
        {"doc": doc_id},
    )
    return {"labels": counts.labels, "types": counts.relationship_types, "nodes": rows}


# ---- schema ---------------------------------------------------------------------------------


def test_schema_is_idempotent(store: GraphStore) -> None:
    assert isinstance(store, FalkorDBStore | Neo4jStore)
    store.apply_schema()
    store.apply_schema()
    store.wait_for_indexes()
    indexes = [(info.label, info.property, info.kind) for info in store.list_indexes()]
    assert len(indexes) == len(set(indexes))
    for expected in [
        ("Region", "embedding", "VECTOR"),
        ("Region", "gnn_embedding", "VECTOR"),
        ("Region", "text", "FULLTEXT"),
        ("Section", "title", "FULLTEXT"),
        ("Region", "doc_id", "RANGE"),
        ("Page", "doc_id", "RANGE"),
        ("Region", "region_id", "RANGE"),
    ]:
        assert expected in indexes


# ---- writing documents ----------------------------------------------------------------------


def test_a_batch_is_written_with_kind_labels_props_and_vectors(store: GraphStore) -> None:
    before = store.counts()
    batch = make_batch(doc("write"), "a")
    result = store.write_document(batch)
    assert (result.written, result.replaced) == (True, False)
    assert (result.nodes, result.relationships) == (len(batch.nodes), len(batch.edges))

    labels, types = delta(store.counts(), before)
    kinds = {"SectionHeader": 1, "Paragraph": 1, "Table": 1, "Caption": 1}
    assert labels == {"Document": 1, "Page": 1, "Section": 1, "Region": 4, **kinds}
    edges = {"HAS_PAGE": 1, "IS_UNDER": 5, "ON_PAGE": 4, "HAS_NEXT": 3, "REF": 1, "CAPTION_OF": 1, "IS_SIMILAR": 1}
    assert types == edges

    table = region(store, f"{doc('write')}@a:p1:r2")
    assert table["labels"] == {"Region", "Table"}
    assert json.loads(table["cells"]) == CELLS
    assert table["bbox"] == [10.0, 41.0, 300.0, 40.0]
    assert table["doc_id"] == doc("write") and table["doc_sha256"] == "a" * 64
    assert table["embedding"] == pytest.approx(unit(2, 3), abs=1e-6)
    assert table["gnn_embedding"] == pytest.approx(unit(12), abs=1e-6)
    assert region(store, f"{doc('write')}@a:p1:r1")["continues"] is True

    edge = store.read("MATCH (:Region)-[r:REF]->(t:Table) RETURN r.label AS label, t.region_id AS target")
    assert edge == [{"label": "Table 2", "target": f"{doc('write')}@a:p1:r2"}]
    keys = store.counts().property_keys
    assert keys["cells"] >= 1 and keys["cross_page"] >= 3


def test_writing_the_same_version_again_is_a_noop(store: GraphStore) -> None:
    store.write_document(make_batch(doc("same"), "a"))
    before = snapshot(store, doc("same"))
    result = store.write_document(make_batch(doc("same"), "a", texts=TEXTS[:1]))
    assert (result.written, result.replaced, result.nodes) == (False, False, 0)
    assert snapshot(store, doc("same")) == before


def test_a_new_version_replaces_the_old(store: GraphStore) -> None:
    store.write_document(make_batch(doc("replace"), "a"))
    before = store.counts()
    result = store.write_document(make_batch(doc("replace"), "b", texts=TEXTS[:2]))
    assert (result.written, result.replaced) == (True, True)

    nodes = snapshot(store, doc("replace"))["nodes"]
    assert {row["version"] for row in nodes} == {"b" * 64}
    assert [row["key"] for row in nodes if "Region" in row["labels"]] == [
        f"{doc('replace')}@b:p1:r0",
        f"{doc('replace')}@b:p1:r1",
    ]
    labels, types = delta(store.counts(), before)
    assert labels == {"Region": -2, "Table": -1, "Caption": -1}
    assert types["HAS_NEXT"] == -2
    hits = store.vector_top_k("Region", "embedding", unit(1, 2), k=5, doc_id=doc("replace"))
    assert [hit.key for hit in hits] == [f"{doc('replace')}@b:p1:r1", f"{doc('replace')}@b:p1:r0"]


def test_the_same_file_built_another_way_replaces_the_old(store: GraphStore) -> None:
    store.write_document(make_batch(doc("rebuild"), "a"))
    rebuilt = make_batch(doc("rebuild"), "b", texts=TEXTS[:2])
    rebuilt.sha256, rebuilt.build = "a" * 64, "reader detector"  # the same file, read another way
    result = store.write_document(rebuilt)
    assert (result.written, result.replaced) == (True, True)
    nodes = snapshot(store, doc("rebuild"))["nodes"]
    assert {row["version"] for row in nodes} == {rebuilt.version} != {"a" * 64}
    assert len(nodes) == 1 + 1 + 1 + 2  # document, page, section, two regions: nothing of the old build
    again = store.write_document(rebuilt)
    assert (again.written, again.replaced) == (False, False)


def _renamed_section(batch: GraphBatch, name: str) -> GraphBatch:
    """``batch`` with its Section under another id, as a changed reader may give it."""
    old = next(node.key for node in batch.nodes if node.label == "Section")
    new = old.rsplit(":", 1)[0] + f":{name}"
    for node in batch.nodes:
        node.key = new if node.key == old else node.key
    for edge in batch.edges:
        edge.src_key = new if edge.src_key == old else edge.src_key
        edge.dst_key = new if edge.dst_key == old else edge.dst_key
    return batch


def test_a_forced_write_rewrites_the_stored_version(store: GraphStore) -> None:
    store.write_document(make_batch(doc("force"), "a"))
    before = store.counts()
    # The same file and build (so the same version), read differently by changed code.
    changed = _renamed_section(make_batch(doc("force"), "a", texts=[TEXTS[0], ("paragraph", "Revenue fell.")]), "s1")
    assert changed.version == make_batch(doc("force"), "a").version
    assert store.write_document(changed).written is False  # unforced, the stored version stands
    result = store.write_document(changed, force=True)
    assert (result.written, result.replaced) == (True, True)

    nodes = snapshot(store, doc("force"))["nodes"]
    assert {row["version"] for row in nodes} == {changed.version}
    assert [row["key"] for row in nodes if "Section" in row["labels"]] == [f"{doc('force')}@a:s1"]
    assert [row["text"] for row in nodes if "Region" in row["labels"]] == [TEXTS[0][1], "Revenue fell."]
    assert not [row["key"] for row in nodes if "#replaced" in row["key"]]
    labels, types = delta(store.counts(), before)
    assert labels == {"Region": -2, "Table": -1, "Caption": -1}
    assert types["HAS_NEXT"] == -2 and types["IS_UNDER"] == -2
    hits = store.vector_top_k("Region", "embedding", unit(1, 2), k=5, doc_id=doc("force"))
    assert [hit.key for hit in hits] == [f"{doc('force')}@a:p1:r1", f"{doc('force')}@a:p1:r0"]
    fell = eventually(lambda: store.fulltext_top_k("Region", "fell", k=5), lambda found: len(found) >= 1)
    assert [hit.key for hit in fell] == [f"{doc('force')}@a:p1:r1"]
    assert store.write_document(changed).written is False


def _missing_endpoint(batch: GraphBatch) -> None:
    batch.edges.append(EdgeRecord("REF", "Region", batch.nodes[-1].key, "Region", "no-such-region"))


def _duplicate_id(batch: GraphBatch) -> None:
    # The last Region reuses the first one's id: the unique constraint rejects it midway.
    last = batch.nodes[-1]
    batch.nodes.append(NodeRecord("Region", batch.nodes[3].key, dict(last.props)))


@pytest.mark.parametrize("breakage", [_missing_endpoint, _duplicate_id], ids=["missing-endpoint", "duplicate-id"])
def test_a_failed_write_leaves_the_graph_as_it_was(store: GraphStore, breakage: Callable[[GraphBatch], None]) -> None:
    store.write_document(make_batch(doc("fail"), "a"))
    before = snapshot(store, doc("fail"))
    broken = make_batch(doc("fail"), "b", texts=[*TEXTS, ("paragraph", "One more region")])
    breakage(broken)
    with pytest.raises(StoreError, match="the graph is unchanged"):
        store.write_document(broken)
    assert snapshot(store, doc("fail")) == before
    hits = store.vector_top_k("Region", "embedding", unit(2, 3), k=1, doc_id=doc("fail"))
    assert [hit.key for hit in hits] == [f"{doc('fail')}@a:p1:r2"]
    everywhere = store.vector_top_k("Region", "embedding", unit(2, 3), k=1)
    assert everywhere[0].key == f"{doc('fail')}@a:p1:r2"


@pytest.mark.parametrize("breakage", [_missing_endpoint, _duplicate_id], ids=["missing-endpoint", "duplicate-id"])
def test_a_failed_forced_write_leaves_the_graph_as_it_was(
    store: GraphStore, breakage: Callable[[GraphBatch], None]
) -> None:
    store.write_document(make_batch(doc("forcefail"), "a"))
    before = snapshot(store, doc("forcefail"))
    broken = make_batch(doc("forcefail"), "a", texts=[*TEXTS, ("paragraph", "One more region")])
    breakage(broken)
    with pytest.raises(StoreError, match="the graph is unchanged"):
        store.write_document(broken, force=True)
    assert snapshot(store, doc("forcefail")) == before
    # The stored nodes were moved aside and back: the indexes must still find them.
    hits = store.vector_top_k("Region", "embedding", unit(2, 3), k=1, doc_id=doc("forcefail"))
    assert [hit.key for hit in hits] == [f"{doc('forcefail')}@a:p1:r2"]
    everywhere = store.vector_top_k("Region", "embedding", unit(2, 3), k=1)
    assert everywhere[0].key == f"{doc('forcefail')}@a:p1:r2"
    found = store.fulltext_top_k("Region", "quarterly revenue by region", k=1, doc_id=doc("forcefail"))
    assert [hit.key for hit in found] == [f"{doc('forcefail')}@a:p1:r2"]


def test_delete_document_removes_its_nodes_only(store: GraphStore) -> None:
    store.write_document(make_batch(doc("keep"), "a"))
    before = store.counts()
    store.write_document(make_batch(doc("drop"), "a"))
    assert store.delete_document(doc("drop")) == 7
    assert store.counts() == before
    assert store.read("MATCH (n) WHERE n.doc_id = $d RETURN count(n) AS c", {"d": doc("drop")}) == [{"c": 0}]
    assert store.delete_document(doc("drop")) == 0


# ---- search ---------------------------------------------------------------------------------


def test_vector_top_k_ranks_by_cosine_similarity(store: GraphStore) -> None:
    store.write_document(make_batch(doc("vec-a"), "a"))
    store.write_document(make_batch(doc("vec-b"), "b"))
    query = unit(2, 1, weight=0.3)  # nearest: region 2, then region 1 (leans to 2), then region 0
    hits = eventually(lambda: store.vector_top_k("Region", "embedding", query, k=3), lambda h: len(h) == 3)
    assert {hits[0].key, hits[1].key} == {f"{doc('vec-a')}@a:p1:r2", f"{doc('vec-b')}@b:p1:r2"}
    assert hits[0].score == pytest.approx(cosine(query, unit(2, 3)), abs=1e-3)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert "embedding" not in hits[0].props and hits[0].props["kind"] == "table"

    only_b = store.vector_top_k("Region", "embedding", query, k=3, doc_id=doc("vec-b"))
    assert [hit.key for hit in only_b] == [f"{doc('vec-b')}@b:p1:r{i}" for i in (2, 1, 0)]
    expected = [cosine(query, unit(i, i + 1)) for i in (2, 1, 0)]
    assert [hit.score for hit in only_b] == pytest.approx(expected, abs=1e-3)
    gnn = store.vector_top_k("Region", "gnn_embedding", unit(11), k=1, doc_id=doc("vec-a"))
    assert [hit.key for hit in gnn] == [f"{doc('vec-a')}@a:p1:r1"]
    assert gnn[0].score == pytest.approx(1.0, abs=1e-3)


# ---- queries ----------------------------------------------------------------------------------


def test_read_refuses_writes_and_writes_nothing(store: GraphStore) -> None:
    store.write_document(make_batch(doc("ro"), "a"))
    before = store.counts()
    with pytest.raises(ReadOnlyViolationError):
        store.read("CREATE (:Intruder {name: 'x'}) RETURN 1 AS one")
    with pytest.raises(ReadOnlyViolationError):
        store.read("MATCH (r:Region) WHERE r.doc_id = $d SET r.text = 'changed'", {"d": doc("ro")})
    assert store.counts() == before
    assert store.write("MATCH (r:Region) WHERE r.doc_id = $d RETURN count(r) AS n", {"d": doc("ro")}) == [{"n": 4}]


def test_a_slow_query_times_out(store: GraphStore) -> None:
    slow = (
        "UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y WITH x, y WHERE (x + y) % 7 = 3 RETURN count(*) AS n"
    )
    with pytest.raises(QueryTimeoutError):
        store.read(slow, timeout_s=0.05)


@pytest.mark.parametrize("query", ["MATC (n) RETURN n", "MATCH (n) RETURN nosuchfunction(n)", "RETURN undefined"])
def test_malformed_queries_are_syntax_errors(store: GraphStore, query: str) -> None:
    with pytest.raises(QuerySyntaxError):
        store.read(query)
    with pytest.raises(QuerySyntaxError):
        store.explain(query)


def test_explain_plans_without_running(store: GraphStore) -> None:
    before = store.counts()
    plan = store.explain("CREATE (:Planned {x: $x})", {"x": 1})
    assert "Create" in plan or "create" in plan.lower()
    assert store.counts() == before


def test_rows_are_plain_json(store: GraphStore) -> None:
    store.write_document(make_batch(doc("rows"), "a"))
    rows = store.read(
        "MATCH p = (r:Region)-[e:REF]->(t:Table) WHERE r.doc_id = $d RETURN r, e, p, t.embedding AS vector",
        {"d": doc("rows")},
    )
    assert len(rows) == 1
    json.dumps(rows)
    row = rows[0]
    assert "Paragraph" in row["r"]["labels"] and row["r"]["properties"]["text"].startswith("Revenue")
    assert row["e"]["type"] == "REF" and row["e"]["properties"] == {"label": "Table 2"}
    assert row["e"]["start"] == row["r"]["id"]
    assert len(row["p"]["nodes"]) == 2 and len(row["p"]["relationships"]) == 1
    assert isinstance(row["vector"], list) and len(row["vector"]) == DIM


@pytest.mark.parametrize("url", ["falkordb://127.0.0.1:1", "bolt://127.0.0.1:1", "neo4j://127.0.0.1:1/db"])
def test_an_unreachable_store_is_reported(tmp_path: Any, url: str) -> None:
    with pytest.raises(StoreUnavailableError, match=r"127\.0\.0\.1.*(unavailable|cannot reach)|cannot reach"):
        open_store(Settings(home=tmp_path), url)


def test_concurrent_document_writes_all_land(falkordb_store: FalkorDBStore) -> None:
    names = [doc(f"thread-{i}") for i in range(8)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda name: falkordb_store.write_document(make_batch(name, "a")), names))
    assert all(result.written for result in results)
    counts = falkordb_store.counts()
    assert (counts.labels["Document"], counts.labels["Region"]) == (8, 32)
    assert counts.labels.get("DocgraphWrite") is None
