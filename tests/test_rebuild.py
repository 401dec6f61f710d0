"""Re-ingesting a stored file: the same build is a no-op, another build replaces the stored graph."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from docgraph.app.config import Settings
from docgraph.app.evaluation.corpus_ingest import ensure_ingested
from docgraph.app.jobs.reembed import reembed
from docgraph.app.pipeline.build import build_ingest_pipeline, with_gnn_build
from docgraph.app.pipeline.gnn import DEFAULT_CHECKPOINT, GNN_VARIANTS, checkpoint_tag, configured_checkpoint
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.readers import make_reader
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.resources import ROOT
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.stores.stamps import changed_documents, document_stamps, set_build_if_unchanged
from docgraph.errors import IngestError
from docgraph.ingest.structure.ids import file_sha256, version_tag
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import DEFAULT_MODEL
from docgraph.records import document_version
from tests.conftest import local_settings

SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"


def test_a_document_stored_with_vectors_by_an_older_release_keeps_them_under_no_embed(
    falkordb_store: FalkorDBStore, local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--no-embed keeps a document stored with embeddings: it only takes from it. A document stored
    by another release was re-read without its vectors."""
    settings = local_settings(local_home, falkordb_store.graph_name)
    monkeypatch.setattr("docgraph.app.pipeline.build.docgraph_release", lambda: "0.0.1")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(SAMPLE).status == "ingested"
    monkeypatch.undo()
    report = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(SAMPLE)
    assert report.status == "unchanged" and any("kept as it is" in note for note in report.notes)
    embedded = "MATCH (r:Region) WHERE r.embedding IS NOT NULL RETURN count(r) AS n"
    assert falkordb_store.read(embedded)[0]["n"] > 0


def test_another_reader_rebuilds_a_stored_document(falkordb_store: FalkorDBStore, local_home: Path) -> None:
    settings = local_settings(local_home, falkordb_store.graph_name)
    native = build_ingest_pipeline(falkordb_store, settings, reader=make_reader("native", settings), embed=False)
    detector = build_ingest_pipeline(falkordb_store, settings, reader=make_reader("detector", settings), embed=False)
    assert "reader native" in native.build and "reader detector" in detector.build

    first = native.ingest(SAMPLE)
    assert first.status == "ingested", first.error
    corpus = Corpus(falkordb_store)
    [before] = corpus.documents(first.doc_id)
    assert native.ingest(SAMPLE).status == "unchanged"

    second = detector.ingest(SAMPLE)
    assert second.status == "replaced", second.error
    sha256 = file_sha256(SAMPLE)
    version = document_version(sha256, detector.build)
    [stored] = falkordb_store.read(
        "MATCH (d:Document {doc_id: $doc}) RETURN d.build AS build, d.sha256 AS sha256, d.doc_sha256 AS version",
        {"doc": first.doc_id},
    )
    assert stored == {"build": detector.build, "sha256": sha256, "version": version}
    [left] = falkordb_store.read(
        "MATCH (n) WHERE n.doc_id = $doc RETURN count(n) AS nodes, sum(CASE WHEN n.doc_sha256 = $version "
        "THEN 0 ELSE 1 END) AS other_versions",
        {"doc": first.doc_id, "version": version},
    )
    assert left == {"nodes": 1 + second.pages + second.sections + second.regions, "other_versions": 0}

    # Retrieval sees the rebuilt graph although the file is the same.
    [after] = corpus.documents(first.doc_id)
    assert (before.version, after.version) == (document_version(sha256, native.build), version)
    assert len(after.regions) == second.regions
    assert all(r.region_id.startswith(f"{first.doc_id}@{version_tag(version)}:") for r in after.regions)

    assert detector.ingest(SAMPLE).status == "unchanged"


def test_a_stored_document_keeps_its_embeddings_when_ingested_again_without(
    falkordb_store: FalkorDBStore, local_home: Path
) -> None:
    """Re-running a folder with --no-embed (to pick up new files fast) replaced every embedded
    document by one without vectors or similarity links; it is kept, saying so, unless --force."""
    settings = local_settings(local_home, falkordb_store.graph_name)
    embedded = build_ingest_pipeline(falkordb_store, settings).ingest(SAMPLE)
    assert embedded.status == "ingested", embedded.error

    def vectors() -> int:
        rows = falkordb_store.read("MATCH (r:Region) WHERE r.embedding IS NOT NULL RETURN count(r) AS n")
        return int(rows[0]["n"])

    with_vectors = vectors()
    without = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(SAMPLE)
    assert without.status == "unchanged" and "kept as it is" in " ".join(without.notes)
    assert with_vectors == embedded.regions and vectors() == with_vectors
    forced = build_ingest_pipeline(falkordb_store, settings, embed=False, force=True).ingest(SAMPLE)
    assert forced.status == "replaced" and vectors() == 0  # as asked
    plain = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(SAMPLE)
    assert plain.status == "unchanged" and "kept as it is" not in " ".join(plain.notes)  # nothing to keep


def test_evaluation_reingests_a_file_stored_by_another_build(falkordb_store: FalkorDBStore, local_home: Path) -> None:
    settings = local_settings(local_home, falkordb_store.graph_name)
    unembedded = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(SAMPLE)
    assert unembedded.status == "ingested", unembedded.error
    encoder = load_encoder(DEFAULT_MODEL)

    first = ensure_ingested([SAMPLE], falkordb_store, encoder, settings)
    assert first.skipped == [] and [report.status for report in first.reports] == ["replaced"]
    [embedded] = falkordb_store.read(
        "MATCH (r:Region {doc_id: $doc}) RETURN count(r.embedding) AS n", {"doc": unembedded.doc_id}
    )
    assert embedded["n"] == unembedded.regions

    second = ensure_ingested([SAMPLE], falkordb_store, encoder, settings)
    assert second.skipped == [SAMPLE.name] and second.reports == []


@pytest.mark.parametrize("force", [False, True], ids=["eval", "bench"])
def test_an_evaluation_never_replaces_another_file_s_document(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path, force: bool
) -> None:
    """`docgraph eval --store` (and bench, which deletes first) overwrote a team's stored document
    with the evaluation's file of the same name, where ingest and the API refuse it."""
    settings = local_settings(local_home, falkordb_store.graph_name)
    (tmp_path / "team").mkdir()
    (tmp_path / "eval").mkdir()
    team, other = tmp_path / "team" / "manual.pdf", tmp_path / "eval" / "manual.pdf"
    shutil.copy(SAMPLE, team)
    shutil.copy(ROOT / "tests" / "data" / "pdfs" / "water-report.pdf", other)
    stored = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(team)
    assert stored.status == "ingested", stored.error
    with pytest.raises(IngestError) as refused:
        ensure_ingested([other], falkordb_store, load_encoder(DEFAULT_MODEL), settings, force=force)
    assert str(refused.value) == (
        f"{other} would replace the stored document 'manual', read from another file ({team}): an evaluation "
        "replaces no stored document: give it a store of its own, or rename the file"
    )
    [kept] = falkordb_store.read("MATCH (d:Document {doc_id: $doc}) RETURN d.sha256 AS sha256", {"doc": stored.doc_id})
    assert kept["sha256"] == file_sha256(team)


def test_a_configured_gnn_checkpoint_is_used_and_named_in_the_build(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    settings = local_settings(local_home, falkordb_store.graph_name)
    shipped = build_ingest_pipeline(falkordb_store, settings)
    assert f"gnn {checkpoint_tag(DEFAULT_CHECKPOINT)}" in shipped.build
    mine = tmp_path / "my-rgcn.pt"
    shutil.copyfile(DEFAULT_CHECKPOINT, mine)
    configured = settings.model_copy(update={"gnn_checkpoint": mine})
    pipeline = build_ingest_pipeline(falkordb_store, configured)
    assert f"gnn my-rgcn.pt {checkpoint_tag(DEFAULT_CHECKPOINT).split()[1]}" in pipeline.build
    assert configured_checkpoint(configured) == mine and configured_checkpoint(settings) == DEFAULT_CHECKPOINT
    missing = settings.model_copy(update={"gnn_checkpoint": tmp_path / "none.pt"})
    off = build_ingest_pipeline(falkordb_store, missing)
    assert "gnn " not in off.build and any("GNN embeddings off" in note for note in off.notes)


def test_reembed_names_its_checkpoint_and_a_reingest_restores_the_pipeline_s_vectors(
    falkordb_store: FalkorDBStore, local_home: Path
) -> None:
    settings, pipeline, report, ingested = _sample_ingested(falkordb_store, local_home)
    other = GNN_VARIANTS["no-sim"].checkpoint  # another checkpoint: other vectors

    assert reembed(falkordb_store, settings, checkpoint=other) == report.regions + report.sections
    [stored] = falkordb_store.read(
        "MATCH (d:Document {doc_id: $doc}) RETURN d.build AS build, d.doc_sha256 AS version", {"doc": report.doc_id}
    )
    assert stored["build"] == with_gnn_build(pipeline.build, checkpoint_tag(other))
    assert stored["build"].count("gnn ") == 1 and "gnn rgcn-minilm-no-sim.pt " in stored["build"]
    assert stored["version"] == document_version(file_sha256(SAMPLE), pipeline.build)  # ids and version stay
    reembedded = _gnn_vectors(falkordb_store, report.doc_id)
    assert reembedded.keys() == ingested.keys()
    assert max(float(np.abs(reembedded[key] - ingested[key]).max()) for key in ingested) > 0.01

    # The evaluation does not skip the file, and ingesting it writes back the pipeline's own vectors.
    outcome = ensure_ingested([SAMPLE], falkordb_store, load_encoder(DEFAULT_MODEL), settings)
    assert outcome.skipped == [] and [r.status for r in outcome.reports] == ["refreshed"]
    restored = _gnn_vectors(falkordb_store, report.doc_id)
    assert max(float(np.abs(restored[key] - ingested[key]).max()) for key in ingested) < 1e-4
    [stored] = falkordb_store.read("MATCH (d:Document {doc_id: $doc}) RETURN d.build AS build", {"doc": report.doc_id})
    assert stored["build"] == pipeline.build
    assert pipeline.ingest(SAMPLE).status == "unchanged"


def _sample_ingested(
    store: FalkorDBStore, home: Path
) -> tuple[Settings, IngestPipeline, IngestReport, dict[str, np.ndarray]]:
    """The sample ingested by the standard pipeline: settings, pipeline, report, its GNN vectors."""
    settings = local_settings(home, store.graph_name)
    pipeline = build_ingest_pipeline(store, settings)
    report = pipeline.ingest(SAMPLE)
    assert report.status == "ingested", report.error
    return settings, pipeline, report, _gnn_vectors(store, report.doc_id)


def _gnn_vectors(store: FalkorDBStore, doc_id: str) -> dict[str, np.ndarray]:
    rows = store.read(
        "MATCH (r:Region {doc_id: $doc}) WHERE r.gnn_embedding IS NOT NULL RETURN r.region_id AS id, "
        "r.gnn_embedding AS vector",
        {"doc": doc_id},
    )
    return {str(row["id"]): np.asarray(row["vector"], dtype=np.float32) for row in rows}


def test_a_build_gets_one_gnn_part() -> None:
    assert with_gnn_build("docgraph 1; reader native; encoder m", "a.pt 12345678") == (
        "docgraph 1; reader native; encoder m; gnn a.pt 12345678"
    )
    assert with_gnn_build("docgraph 1; encoder m; gnn a.pt 12345678", "b.pt 9abcdef0") == (
        "docgraph 1; encoder m; gnn b.pt 9abcdef0"
    )
    assert with_gnn_build("", "b.pt 9abcdef0") == "gnn b.pt 9abcdef0"


def test_reembed_starts_a_document_again_when_it_is_stored_again_meanwhile(
    falkordb_store: FalkorDBStore, local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = local_settings(local_home, falkordb_store.graph_name)
    assert build_ingest_pipeline(falkordb_store, settings).ingest(SAMPLE).status == "ingested"
    detector = build_ingest_pipeline(falkordb_store, settings, reader=make_reader("detector", settings))
    other = GNN_VARIANTS["no-sim"].checkpoint
    write = falkordb_store.write
    landed: list[str] = []

    def write_after_another_ingest(query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        # Another process stores the file again, built another way (new version, new region ids),
        # between reembed's reading of the document and its first GNN vector write.
        if "gnn_embedding" in query and not landed:
            monkeypatch.setattr(falkordb_store, "write", write)
            report = detector.ingest(SAMPLE)
            landed.append(report.status)
            monkeypatch.setattr(falkordb_store, "write", write_after_another_ingest)
        return write(query, params)

    monkeypatch.setattr(falkordb_store, "write", write_after_another_ingest)
    updated = reembed(falkordb_store, settings, checkpoint=other)
    assert landed == ["replaced"]
    # The stored version was embedded (the first pass's vectors went to regions that were gone), and
    # the build names the checkpoint on the version that has its vectors.
    [stored] = falkordb_store.read(
        "MATCH (d:Document) OPTIONAL MATCH (r:Region {doc_id: d.doc_id}) RETURN d.build AS build, count(r) AS regions",
    )
    [sections] = falkordb_store.read("MATCH (s:Section) RETURN count(s) AS n")
    assert updated == stored["regions"] + sections["n"]
    assert stored["build"] == with_gnn_build(detector.build, checkpoint_tag(other))


def test_a_build_is_set_only_on_the_stamp_it_was_read_with(falkordb_store: FalkorDBStore, local_home: Path) -> None:
    settings = local_settings(local_home, falkordb_store.graph_name)
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    report = pipeline.ingest(SAMPLE)
    stamp = document_stamps(falkordb_store)[report.doc_id]
    assert stamp.build == pipeline.build and len(stamp.ingest_id) == 32
    # The same file deleted and stored again (same version and build, maybe the same second) is
    # another ingest: the old stamp no longer sets anything.
    falkordb_store.delete_document(report.doc_id)
    assert pipeline.ingest(SAMPLE).status == "ingested"
    again = document_stamps(falkordb_store)[report.doc_id]
    assert (again.version, again.build) == (stamp.version, stamp.build) and again != stamp
    assert changed_documents({report.doc_id: stamp}, {report.doc_id: again}) == [report.doc_id]
    assert not set_build_if_unchanged(falkordb_store, report.doc_id, stamp, "other")
    assert set_build_if_unchanged(falkordb_store, report.doc_id, again, "other")
    assert document_stamps(falkordb_store)[report.doc_id].build == "other"


def test_another_gnn_checkpoint_rewrites_the_vectors_in_place_and_keeps_the_version(
    falkordb_store: FalkorDBStore, local_home: Path
) -> None:
    settings, shipped, report, ingested = _sample_ingested(falkordb_store, local_home)
    other = GNN_VARIANTS["no-sim"].checkpoint
    configured = settings.model_copy(update={"gnn_checkpoint": other})
    pipeline = build_ingest_pipeline(falkordb_store, configured)

    # Ingested with the other checkpoint: the same graph (ids, version), the other GNN vectors.
    again = pipeline.ingest(SAMPLE)
    assert again.status == "refreshed", again.error
    [stored] = falkordb_store.read(
        "MATCH (d:Document {doc_id: $doc}) RETURN d.build AS build, d.doc_sha256 AS version", {"doc": report.doc_id}
    )
    assert stored == {"build": pipeline.build, "version": document_version(file_sha256(SAMPLE), shipped.build)}
    refreshed = _gnn_vectors(falkordb_store, report.doc_id)
    assert refreshed.keys() == ingested.keys()
    assert max(float(np.abs(refreshed[key] - ingested[key]).max()) for key in ingested) > 0.01
    assert pipeline.ingest(SAMPLE).status == "unchanged"
    # Whether the GNN ran is part of the graph (its stage adds the IS_SIMILAR edges).
    off = build_ingest_pipeline(falkordb_store, settings.model_copy(update={"gnn_checkpoint": Path("/none.pt")}))
    assert "gnn " not in off.build
    assert document_version(file_sha256(SAMPLE), off.build) != document_version(file_sha256(SAMPLE), shipped.build)

    # Back to the shipped checkpoint by reembed, then configured to it: nothing is rebuilt.
    reembed(falkordb_store, configured, checkpoint=DEFAULT_CHECKPOINT)
    assert shipped.ingest(SAMPLE).status == "unchanged"
    outcome = ensure_ingested([SAMPLE], falkordb_store, load_encoder(DEFAULT_MODEL), settings)
    assert outcome.skipped == [SAMPLE.name]


def test_an_ingest_refreshing_gnn_vectors_writes_them_again_when_a_reembed_got_in_between(
    falkordb_store: FalkorDBStore, local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, shipped, report, ingested = _sample_ingested(falkordb_store, local_home)
    reembed(falkordb_store, settings, checkpoint=GNN_VARIANTS["no-sim"].checkpoint)
    third = GNN_VARIANTS["no-cross-page"].checkpoint
    write = falkordb_store.write
    interleaved: list[int] = []

    def reembed_after_the_first_vectors(query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        # Another process re-embeds with a third checkpoint just after the ingest's first vector write.
        result = write(query, params)
        if "gnn_embedding" in query and not interleaved:
            monkeypatch.setattr(falkordb_store, "write", write)
            interleaved.append(reembed(falkordb_store, settings, checkpoint=third))
            monkeypatch.setattr(falkordb_store, "write", reembed_after_the_first_vectors)
        return result

    monkeypatch.setattr(falkordb_store, "write", reembed_after_the_first_vectors)
    assert shipped.ingest(SAMPLE).status == "refreshed"
    monkeypatch.setattr(falkordb_store, "write", write)
    assert interleaved == [report.regions + report.sections]
    # The stored build names the checkpoint whose vectors are stored: the pipeline's own.
    [stored] = falkordb_store.read("MATCH (d:Document {doc_id: $doc}) RETURN d.build AS build", {"doc": report.doc_id})
    assert stored["build"] == shipped.build
    restored = _gnn_vectors(falkordb_store, report.doc_id)
    assert max(float(np.abs(restored[key] - ingested[key]).max()) for key in ingested) < 1e-4


def test_reembed_leaves_the_build_of_a_document_without_embeddings(
    falkordb_store: FalkorDBStore, local_home: Path
) -> None:
    settings = local_settings(local_home, falkordb_store.graph_name)
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    report = pipeline.ingest(SAMPLE)
    assert report.status == "ingested" and "no embeddings" in pipeline.build
    assert reembed(falkordb_store, settings, checkpoint=GNN_VARIANTS["no-sim"].checkpoint) == 0
    assert document_stamps(falkordb_store)[report.doc_id].build == pipeline.build  # no GNN part named
    assert pipeline.ingest(SAMPLE).status == "unchanged"  # not "refreshed" with nothing to refresh
