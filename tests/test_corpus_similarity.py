"""IS_SIMILAR edges across documents (``similarity_corpus_k``) and the in-document ``similarity_k``,
on a real store with real PDFs and the real encoder."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from docgraph.app.config import Settings
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.similarity import CorpusSimilarityStage, corpus_similarity_edges
from docgraph.app.pipeline.stages import IngestContext
from docgraph.app.stores.base import WriteResult
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.ui_support.evidence import region_evidence
from docgraph.app.ui_support.examples import load_examples
from docgraph.errors import ConfigError, CorpusChangedError
from docgraph.records import FURNITURE_KINDS, GraphBatch

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"
SPEC = Path("/work/shared/bench/train/shared-mime-info-spec.pdf")


def settings_for(store: FalkorDBStore, home: Path, **values: object) -> Settings:
    return Settings(home=home, graph=store.graph_name, store="", **values)  # type: ignore[arg-type]


def ingest(store: FalkorDBStore, settings: Settings, pdf: Path) -> None:
    report = build_ingest_pipeline(store, settings).ingest(pdf)
    assert report.status in ("ingested", "replaced"), report.error


def body_vectors(store: FalkorDBStore, doc_id: str) -> dict[str, np.ndarray]:
    rows = store.read(
        "MATCH (r:Region) WHERE r.doc_id = $doc AND r.embedding IS NOT NULL AND NOT r.kind IN $furniture "
        "RETURN r.region_id AS id, r.embedding AS v",
        {"doc": doc_id, "furniture": sorted(FURNITURE_KINDS)},
    )
    vectors = {str(row["id"]): np.asarray(row["v"], dtype=np.float32) for row in rows}
    return {key: vector / np.linalg.norm(vector) for key, vector in vectors.items()}


def similar_edges(store: FalkorDBStore) -> list[dict[str, object]]:
    """Every IS_SIMILAR edge, in a document or across two (``cross``)."""
    return store.read(
        "MATCH (a:Region)-[e:IS_SIMILAR]->(b:Region) "
        "RETURN a.region_id AS src, a.doc_id AS src_doc, b.region_id AS dst, b.doc_id AS dst_doc, "
        "b.kind AS dst_kind, e.score AS score, e.cross_document AS cross"
    )


def test_a_new_document_links_each_region_to_its_nearest_in_the_stored_ones(
    falkordb_store: FalkorDBStore, local_home: Path
) -> None:
    k = 2
    settings = settings_for(falkordb_store, local_home, similarity_corpus_k=k, similarity_corpus_min=0.0)
    ingest(falkordb_store, settings, SAMPLE)
    assert not [e for e in similar_edges(falkordb_store) if e["cross"]]  # alone in the store: nothing to link
    ingest(falkordb_store, settings, SPEC)

    edges = similar_edges(falkordb_store)
    across = [e for e in edges if e["src_doc"] != e["dst_doc"]]
    assert across and all(e["cross"] is True for e in across)
    assert all(e["cross"] is None for e in edges if e["src_doc"] == e["dst_doc"])
    assert all(e["dst_kind"] not in FURNITURE_KINDS for e in across)
    scores = {(str(e["src"]), str(e["dst"])): float(str(e["score"])) for e in across}
    assert all(scores.get((dst, src)) == score for (src, dst), score in scores.items())  # both ways, one score

    # Each region of the later document: its k best cosines over the earlier one's body regions.
    earlier, later = (
        body_vectors(falkordb_store, "docgraph-sample"),
        body_vectors(falkordb_store, "shared-mime-info-spec"),
    )
    keys = list(earlier)
    matrix = np.stack([earlier[key] for key in keys])
    for region, vector in later.items():
        best = np.sort(matrix @ vector)[::-1][:k]
        found = sorted((s for (src, _), s in scores.items() if src == region), reverse=True)
        np.testing.assert_allclose(found, best, atol=2e-3)

    # The evidence panel names the other document's neighbours apart from the document's own.
    region = next(iter(later))
    elsewhere = [
        n for n in region_evidence(falkordb_store, region).evidence_neighbours() if n.relation == "similar elsewhere"
    ]
    assert elsewhere and {n.doc_id for n in elsewhere} == {"docgraph-sample"}
    assert "docgraph-sample" in elsewhere[0].summary()

    # The analysts' query lists the closest pairs across documents, best first.
    pairs = falkordb_store.read(next(e for e in load_examples() if e.name == "similar_elsewhere").query)
    assert pairs and all(row["doc_id"] != row["other_doc"] for row in pairs)
    assert [row["score"] for row in pairs] == sorted((row["score"] for row in pairs), reverse=True)
    assert pairs[0]["score"] == max(scores.values())

    # Ingested again as it is, the document keeps its links; built another way, it is replaced and
    # relinked, to the other document only (its stored version is still indexed while it is read).
    unchanged = build_ingest_pipeline(falkordb_store, settings).ingest(SPEC)
    assert unchanged.status == "unchanged" and not unchanged.stats.get("corpus_similarity_edges")
    assert len([e for e in similar_edges(falkordb_store) if e["cross"]]) == len(across)
    forced = build_ingest_pipeline(falkordb_store, settings, force=True).ingest(SPEC)  # rewritten: linked again
    assert forced.status == "replaced" and forced.stats.get("corpus_similarity_edges") == len(across)
    assert len([e for e in similar_edges(falkordb_store) if e["cross"]]) == len(across)
    ingest(
        falkordb_store, settings_for(falkordb_store, local_home, similarity_corpus_k=1, similarity_corpus_min=0.0), SPEC
    )
    relinked = [e for e in similar_edges(falkordb_store) if e["cross"]]
    assert all(e["src_doc"] != e["dst_doc"] for e in relinked)
    assert sorted(str(e["src"]) for e in relinked if e["src_doc"] == "shared-mime-info-spec") == sorted(
        body_vectors(falkordb_store, "shared-mime-info-spec")
    )

    # Deleting the earlier document takes its links with it.
    falkordb_store.delete_document("docgraph-sample")
    assert not [e for e in similar_edges(falkordb_store) if e["cross"]]


def test_links_below_the_least_score_are_left_out(falkordb_store: FalkorDBStore, local_home: Path) -> None:
    ingest(falkordb_store, settings_for(falkordb_store, local_home), SAMPLE)
    batch = sample_batch()
    every = corpus_similarity_edges(falkordb_store, batch, 3, min_score=-1.0)
    kept = corpus_similarity_edges(falkordb_store, batch, 3, min_score=0.6)
    assert all(float(edge.props["score"]) >= 0.6 for edge in kept)
    assert 0 < len(kept) < len(every)
    assert {(e.src_key, e.dst_key) for e in kept} <= {(e.src_key, e.dst_key) for e in every}
    assert corpus_similarity_edges(falkordb_store, batch, 0) == []


def sample_batch() -> GraphBatch:
    """The sample's graph under another document id: its regions' nearest stored ones are their twins."""
    from docgraph.app.pipeline.embedding import embed_batch
    from docgraph.ingest.graph import build_graph
    from docgraph.ingest.readers.native import NativeReader
    from docgraph.models.encoder_loader import load_encoder

    batch = build_graph(NativeReader().read(SAMPLE), ingested_at="1970-01-01T00:00:00+00:00")
    embed_batch(batch, load_encoder("all-MiniLM-L6-v2"))
    twin = copy.deepcopy(batch)
    twin.doc_id = "sample-twin"
    return twin


def test_reembed_computes_in_document_edges_beside_links_to_other_documents(
    falkordb_store: FalkorDBStore, local_home: Path
) -> None:
    from docgraph.app.jobs.reembed import reembed
    from docgraph.ingest.links.similarity import similarity_edges

    plain = build_ingest_pipeline(
        falkordb_store, settings_for(falkordb_store, local_home, gnn_checkpoint=Path("/nonexistent.pt"))
    )
    assert plain.ingest(SAMPLE).status == "ingested"  # embedded, but no GNN: no IS_SIMILAR edges
    ingest(
        falkordb_store, settings_for(falkordb_store, local_home, similarity_corpus_k=2, similarity_corpus_min=0.0), SPEC
    )
    assert any(e["cross"] and e["src_doc"] == "docgraph-sample" for e in similar_edges(falkordb_store))

    reembed(falkordb_store, Settings(encoder_model="all-MiniLM-L6-v2"), doc_id="docgraph-sample")
    # Without the links to the other document read as its own, the document gets its kNN edges.
    inside = [e for e in similar_edges(falkordb_store) if e["src_doc"] == e["dst_doc"] == "docgraph-sample"]
    assert len(inside) == len(similarity_edges(sample_batch()))


def test_similarity_k_sets_the_in_document_neighbours(falkordb_store: FalkorDBStore, local_home: Path) -> None:
    k = 3
    settings = settings_for(falkordb_store, local_home, similarity_k=k)
    pipeline = build_ingest_pipeline(falkordb_store, settings)
    assert f"similar k={k}" in pipeline.build
    assert pipeline.ingest(SAMPLE).status == "ingested"
    out: dict[str, int] = {}
    for edge in similar_edges(falkordb_store):
        out[str(edge["src"])] = out.get(str(edge["src"]), 0) + 1
    assert out and max(out.values()) == k
    assert "similar" not in build_ingest_pipeline(falkordb_store, settings_for(falkordb_store, local_home)).build


def test_in_document_neighbours_do_not_need_the_gnn(falkordb_store: FalkorDBStore, local_home: Path) -> None:
    missing = local_home / "no-such-checkpoint.pt"
    pipeline = build_ingest_pipeline(falkordb_store, settings_for(falkordb_store, local_home, gnn_checkpoint=missing))
    assert [stage.name for stage in pipeline.stages if stage.name in ("similarity", "gnn")] == ["similarity"]
    assert any(note.startswith("GNN embeddings off") for note in pipeline.notes)
    report = pipeline.ingest(SAMPLE)
    assert report.status == "ingested", report.error
    inside = [e for e in similar_edges(falkordb_store) if e["src_doc"] == e["dst_doc"] == "docgraph-sample"]
    assert inside and report.stats["similarity_edges"] == len(inside)
    assert not falkordb_store.read("MATCH (r:Region) WHERE r.gnn_embedding IS NOT NULL RETURN r LIMIT 1")


def test_relink_gives_every_region_its_nearest_in_the_other_documents(
    falkordb_store: FalkorDBStore, local_home: Path
) -> None:
    from docgraph.app.jobs.relink import relink_corpus

    k = 2
    ingest(falkordb_store, settings_for(falkordb_store, local_home), SAMPLE)  # stored unlinked
    ingest(
        falkordb_store, settings_for(falkordb_store, local_home, similarity_corpus_k=k, similarity_corpus_min=0.0), SPEC
    )
    inside = sorted((str(e["src"]), str(e["dst"])) for e in similar_edges(falkordb_store) if not e["cross"])
    at_ingest = len([e for e in similar_edges(falkordb_store) if e["cross"]])

    report = relink_corpus(falkordb_store, k, min_score=0.0)
    assert (report.documents, report.links_before) == (2, at_ingest)
    links = {
        (str(e["src"]), str(e["dst"])): float(str(e["score"])) for e in similar_edges(falkordb_store) if e["cross"]
    }
    assert report.links_after == len(links) > at_ingest  # the earlier document now chose too
    assert all(links.get((dst, src)) == score for (src, dst), score in links.items())

    # Each region's best links are its k best cosines over the other document, whichever came first,
    # and every link was chosen by one of its ends (its cosine is within that end's k best).
    vectors = {doc: body_vectors(falkordb_store, doc) for doc in ("docgraph-sample", "shared-mime-info-spec")}
    kth_best: dict[str, float] = {}
    for doc, own in vectors.items():
        [others] = [v for other, v in vectors.items() if other != doc]
        matrix = np.stack(list(others.values()))
        for region, vector in own.items():
            best = np.sort(matrix @ vector)[::-1][:k]
            found = sorted((s for (src, _), s in links.items() if src == region), reverse=True)[:k]
            np.testing.assert_allclose(found, best, atol=2e-3)
            kth_best[region] = float(best[-1])
    assert all(score >= min(kth_best[src], kth_best[dst]) - 2e-3 for (src, dst), score in links.items())

    # The kNN edges inside each document are left alone; relinking again changes nothing.
    assert sorted((str(e["src"]), str(e["dst"])) for e in similar_edges(falkordb_store) if not e["cross"]) == inside
    again = relink_corpus(falkordb_store, k, min_score=0.0)
    assert again.links_before == again.links_after == len(links)
    assert {(str(e["src"]), str(e["dst"])) for e in similar_edges(falkordb_store) if e["cross"]} == set(links)

    # A least score keeps only the links above it; k = 0 removes them all.
    relink_corpus(falkordb_store, k, min_score=0.6)
    assert all(float(str(e["score"])) >= 0.6 for e in similar_edges(falkordb_store) if e["cross"])
    kept = similar_edges(falkordb_store)
    # Vectors of another encoder cannot be compared: a clear error, and the links stay as they were.
    falkordb_store.write(
        "MATCH (r:Region) WHERE r.doc_id = 'docgraph-sample' AND r.embedding IS NOT NULL "
        "SET r.embedding = vecf32([1.0, 0.0, 0.5])"
    )
    with pytest.raises(ConfigError, match="different encoders"):
        relink_corpus(falkordb_store, k, min_score=0.0)
    assert similar_edges(falkordb_store) == kept
    assert relink_corpus(falkordb_store, 0).links_after == 0
    assert not [e for e in similar_edges(falkordb_store) if e["cross"]]
    assert len([e for e in similar_edges(falkordb_store) if not e["cross"]]) == len(inside)


def test_relink_starts_again_when_a_document_is_stored_while_it_runs(
    falkordb_store: FalkorDBStore, local_home: Path
) -> None:
    from docgraph.app.jobs.relink import relink_corpus

    settings = settings_for(falkordb_store, local_home)
    for pdf in (SAMPLE, SPEC):
        ingest(falkordb_store, settings, pdf)

    def store_sample_again(times: int) -> Callable[[str, int, int], None]:
        """A progress hook that, after relink wrote the sample's links, deletes the sample and
        ingests the same file again (same version, same second), ``times`` times."""
        left = [times]

        def hook(stage: str, done: int, total: int) -> None:
            if stage == "writing links" and done == 1 and left[0] > 0:
                left[0] -= 1
                falkordb_store.delete_document("docgraph-sample")
                ingest(falkordb_store, settings, SAMPLE)

        return hook

    # Only a pass with nothing stored under it counts: the second one here.
    report = relink_corpus(falkordb_store, 2, min_score=0.0, progress=store_sample_again(1))
    assert report.passes == 2 and report.documents == 2
    links = {(str(e["src"]), str(e["dst"])) for e in similar_edges(falkordb_store) if e["cross"]}
    assert links and all((dst, src) in links for src, dst in links)
    again = relink_corpus(falkordb_store, 2, min_score=0.0)
    assert again.passes == 1 and again.links_before == again.links_after == len(links)
    assert {(str(e["src"]), str(e["dst"])) for e in similar_edges(falkordb_store) if e["cross"]} == links

    # A single pass with the same interference would have left the sample's own links out (they
    # went with its deleted regions): relink says so instead of reporting success.
    with pytest.raises(CorpusChangedError, match=r"during each of 1 relinks \(docgraph-sample"):
        relink_corpus(falkordb_store, 2, min_score=0.0, progress=store_sample_again(1), max_passes=1)
    left = [(str(e["src"]), str(e["dst"])) for e in similar_edges(falkordb_store) if e["cross"]]
    assert left and not [src for src, _ in left if src.startswith("docgraph-sample")]


def changed_copy(pdf: Path, target: Path, line: str) -> Path:
    doc = pymupdf.open(pdf)
    doc[0].insert_text((72, 40), line, fontsize=9)
    doc.save(target)
    return target


def linked_pair_changed_since(store: FalkorDBStore, settings: Settings, folder: Path) -> tuple[Path, Path]:
    """alpha.pdf and beta.pdf (the sample, one line apart) stored and linked to each other, then
    both changed on disk."""
    alpha, beta = folder / "alpha.pdf", folder / "beta.pdf"
    for path in (changed_copy(SAMPLE, alpha, "Alpha edition."), changed_copy(SAMPLE, beta, "Beta edition.")):
        ingest(store, settings, path)
    changed_copy(SAMPLE, alpha, "Alpha edition, revised.")
    changed_copy(SAMPLE, beta, "Beta edition, revised.")
    return alpha, beta


def test_links_are_written_before_another_document_s_write_removes_their_targets(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two changed documents ingested at once, linked to each other: the second document's write
    (replacing its regions) came between the first one's link stage and its write, which then failed
    with "a relationship endpoint is not in the graph"."""
    settings = settings_for(falkordb_store, local_home, similarity_corpus_k=2, similarity_corpus_min=0.0)
    alpha, beta = linked_pair_changed_since(falkordb_store, settings, tmp_path)

    pipeline = build_ingest_pipeline(falkordb_store, settings)
    other_pipeline = build_ingest_pipeline(falkordb_store, settings)  # as a UI batch beside an API job
    beta_linking, beta_written = threading.Event(), threading.Event()
    linked = CorpusSimilarityStage.run

    def alpha_waits_after_linking(stage: CorpusSimilarityStage, ctx: IngestContext) -> None:
        linked(stage, ctx)
        if ctx.path == alpha:  # give beta the chance to write now (it can only when no lock stops it)
            assert beta_linking.wait(120)
            beta_written.wait(10)

    monkeypatch.setattr(CorpusSimilarityStage, "run", alpha_waits_after_linking)
    first = threading.Thread(target=lambda: reports.append(pipeline.ingest(alpha)))
    reports: list[IngestReport] = []
    first.start()

    def beta_progress(stage: str, done: int, total: int) -> None:
        if stage == "corpus_similarity":
            beta_linking.set()

    write = falkordb_store.write_document

    def noted_write(batch: GraphBatch, force: bool = False) -> WriteResult:
        result = write(batch, force)
        if batch.doc_id == "beta":
            beta_written.set()
        return result

    monkeypatch.setattr(falkordb_store, "write_document", noted_write)
    reports.append(other_pipeline.ingest(beta, progress=beta_progress))
    first.join(180)
    assert sorted((r.doc_id, r.status, r.error) for r in reports) == [
        ("alpha", "replaced", ""),
        ("beta", "replaced", ""),
    ]
    across = {(e["src_doc"], e["dst_doc"]) for e in similar_edges(falkordb_store) if e["cross"]}
    assert across == {("alpha", "beta"), ("beta", "alpha")}


def test_links_to_a_document_another_process_replaced_meanwhile_are_chosen_again(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process (here: another connection, so another lock) replaces the linked document
    between a document's link stage and its write: the write named regions that were gone and failed.
    Its links are chosen again, to the new version (dropping them left the two unlinked), and it is
    written."""
    settings = settings_for(falkordb_store, local_home, similarity_corpus_k=2, similarity_corpus_min=0.0)
    alpha, beta = linked_pair_changed_since(falkordb_store, settings, tmp_path)
    other_process = open_store(settings)  # its own connection and lock, as another process has
    linked = CorpusSimilarityStage.run

    def beta_replaced_after_alpha_links(stage: CorpusSimilarityStage, ctx: IngestContext) -> None:
        linked(stage, ctx)
        if ctx.path == alpha:
            report = build_ingest_pipeline(other_process, settings).ingest(beta)
            assert report.status == "replaced", report.error

    monkeypatch.setattr(CorpusSimilarityStage, "run", beta_replaced_after_alpha_links)
    try:
        report = build_ingest_pipeline(falkordb_store, settings).ingest(alpha)
    finally:
        other_process.close()
    assert report.status == "replaced", report.error
    assert report.stats["corpus_similarity_relinks"] == 1
    # Every region of alpha is linked to its nearest in beta's new version, both ways.
    across = [e for e in similar_edges(falkordb_store) if e["cross"]]
    assert {(e["src_doc"], e["dst_doc"]) for e in across} == {("alpha", "beta"), ("beta", "alpha")}
    chosen = {str(e["src"]) for e in across if e["src_doc"] == "alpha"}
    assert chosen == set(body_vectors(falkordb_store, "alpha"))
    assert report.stats["corpus_similarity_edges"] == len(across)


def test_a_replaced_document_says_that_its_relinked_links_went_with_it(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    """A new edition of a relinked document lost its links with the others silently: with the default
    similarity_corpus_k of 0 its ingest makes none, and nothing said `relink` was needed again."""
    from docgraph.app.jobs.relink import relink_corpus

    settings = settings_for(falkordb_store, local_home)
    manual = tmp_path / "manual.pdf"
    manual.write_bytes(SAMPLE.read_bytes())
    ingest(falkordb_store, settings, SAMPLE)
    ingest(falkordb_store, settings, manual)
    linked = relink_corpus(falkordb_store, 2, min_score=0.0).links_after
    assert linked > 0

    with pymupdf.open(SAMPLE) as edition:  # a new edition: the same pages, one word changed
        edition[0].insert_text((72, 40), "Second edition")
        edition.save(manual)
    report = build_ingest_pipeline(falkordb_store, settings).ingest(manual)
    assert report.status == "replaced", report.error
    assert report.stats["links_with_other_documents_dropped"] == linked  # both directions, all of them
    assert not [e for e in similar_edges(falkordb_store) if e["cross"]]

    relink_corpus(falkordb_store, 2, min_score=0.0)
    again = build_ingest_pipeline(falkordb_store, settings, force=True).ingest(manual)
    assert again.status == "replaced" and "links_with_other_documents_dropped" in again.stats
    linking = settings_for(falkordb_store, local_home, similarity_corpus_k=2, similarity_corpus_min=0.0)
    relinked = build_ingest_pipeline(falkordb_store, linking, force=True).ingest(manual)
    assert relinked.status == "replaced" and "links_with_other_documents_dropped" not in relinked.stats
