"""The PDF a stored document renders from: kept before the write, never left without its document."""

from __future__ import annotations

import threading
from pathlib import Path

import pymupdf
import pytest

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import delete_document, locate_pdf
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.base import WriteResult
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.stores.kept_copies import keep_copy, kept_copies_dir
from docgraph.app.stores.temporary import temporary_local_store
from docgraph.errors import BadDocumentError, DocumentNotFoundError, StoreError
from docgraph.ingest.structure.ids import file_sha256
from docgraph.records import GraphBatch

SAMPLE = SAMPLES_DIR / "docgraph-sample.pdf"


def stored_documents(store: FalkorDBStore) -> list[str]:
    return [str(row["doc_id"]) for row in store.read("MATCH (d:Document) RETURN d.doc_id AS doc_id")]


def test_a_failed_write_keeps_no_copy_and_a_failed_copy_writes_nothing(
    falkordb_store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(home=tmp_path, graph=falkordb_store.graph_name, store="")
    files = kept_copies_dir(settings.home, falkordb_store)
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)

    def store_gone(*args: object, **kwargs: object) -> None:
        raise StoreError("the store went away mid-write")

    with monkeypatch.context() as patched:
        patched.setattr(falkordb_store, "write_document", store_gone)
        failed_write = pipeline.ingest(SAMPLE)
    assert failed_write.status == "failed" and "went away" in failed_write.error
    assert not any(files.glob("*")) and stored_documents(falkordb_store) == []

    files.rmdir()
    files.write_text("a file where the folder of copies should be")
    failed_copy = pipeline.ingest(SAMPLE)
    assert failed_copy.status == "failed" and stored_documents(falkordb_store) == []  # nothing written
    files.unlink()

    landed = pipeline.ingest(SAMPLE)
    assert landed.status == "ingested" and stored_documents(falkordb_store) == ["docgraph-sample"]
    assert [p.name for p in files.iterdir()] == [f"{file_sha256(SAMPLE)}.pdf"]  # no part file left


def test_a_file_rewritten_while_it_is_read_is_not_written(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """Its pages may come from two versions, and the kept copy from a third: the ingest fails with
    one line, the store and the kept copies stay as they were, and a second ingest reads it whole."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    files = kept_copies_dir(settings.home, falkordb_store)
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(SAMPLE.read_bytes())

    def rewrite_before_the_write(stage: str, done: int, total: int) -> None:
        if stage == "graph_write":  # named as it starts, after every page was read
            pdf.write_bytes(SAMPLE.read_bytes() + b"\n% saved again by another program\n")

    changed = pipeline.ingest(pdf, rewrite_before_the_write)
    said = f"{pdf.name}: the file changed while it was read; nothing was written, ingest it again"
    assert changed.status == "failed" and changed.error == said  # once (it was said again in brackets)
    assert stored_documents(falkordb_store) == [] and not files.exists()

    again = pipeline.ingest(pdf)
    assert again.status == "ingested" and stored_documents(falkordb_store) == ["report"]
    assert [p.name for p in files.iterdir()] == [f"{file_sha256(pdf)}.pdf"]
    assert file_sha256(pdf) != file_sha256(SAMPLE)


def test_a_file_cut_short_while_it_is_read_is_said_to_have_changed(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """A file rewritten in place (another program saving it) while its pages were read failed as a
    corrupt PDF; the ingest now says the file changed, as for a rewrite found before the write."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    pdf = tmp_path / "report.pdf"
    with pymupdf.open() as doc:
        for number in range(1, 81):
            doc.new_page().insert_text((72, 72), f"Page {number} of the report, with a line of its own.")
        doc.save(pdf)
    first = pdf.read_bytes()

    def cut_after_the_first_pages(stage: str, done: int, total: int) -> None:
        if stage == "read" and 0 < done < total and pdf.stat().st_size == len(first):
            pdf.write_bytes(first[:2000])  # the start of the new version, saved so far

    changed = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(pdf, cut_after_the_first_pages)
    said = f"{pdf.name}: the file changed while it was read; nothing was written, ingest it again (reading it"
    assert changed.status == "failed" and changed.error.startswith(said), changed.error
    assert stored_documents(falkordb_store) == []


def test_a_copy_of_other_content_is_not_kept(tmp_path: Path) -> None:
    with pytest.raises(BadDocumentError, match="changed while it was read"):
        keep_copy(SAMPLE, tmp_path / "files", "0" * 64)
    assert list((tmp_path / "files").iterdir()) == []
    assert keep_copy(SAMPLE, tmp_path / "files", file_sha256(SAMPLE))
    assert (tmp_path / "files" / f"{file_sha256(SAMPLE)}.pdf").read_bytes() == SAMPLE.read_bytes()


def test_a_throw_away_store_takes_its_kept_copies_with_it(tmp_path: Path) -> None:
    """eval and bench ingest into a temporary store: the copies kept for it under the data home
    outlived it, one folder per run, for good."""
    settings = Settings(home=tmp_path / "home", store="")
    with temporary_local_store(settings) as store:
        files = kept_copies_dir(settings.home, store)
        assert build_ingest_pipeline(store, settings, embed=False).ingest(SAMPLE).status == "ingested"
        assert (files / f"{file_sha256(SAMPLE)}.pdf").is_file()
    assert not files.exists()
    assert not (settings.home / "files").exists() or not any((settings.home / "files").iterdir())


def test_a_file_stored_as_built_is_not_read_again(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """Re-ingesting a folder where nothing changed read, embedded and ran the GNN on every file
    before the write found the stored version (40 s for four documents)."""
    settings = Settings(home=tmp_path, graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings)
    first = pipeline.ingest(SAMPLE)
    assert first.status == "ingested", first.error
    copy = kept_copies_dir(settings.home, falkordb_store) / f"{file_sha256(SAMPLE)}.pdf"
    copy.unlink()  # gone meanwhile: made again, as the write stage would
    stages: list[str] = []
    again = pipeline.ingest(SAMPLE, progress=lambda stage, done, total: stages.append(stage))
    assert again.status == "unchanged" and stages == ["unchanged"]  # no stage ran
    assert (again.doc_id, again.pages, again.sections, again.regions) == (
        first.doc_id,
        first.pages,
        first.sections,
        first.regions,
    )
    assert copy.is_file()
    forced = build_ingest_pipeline(falkordb_store, settings, force=True).ingest(SAMPLE)
    assert forced.status == "replaced" and forced.timings.get("read", 0) > 0


def test_a_delete_keeps_the_copy_a_write_of_the_same_content_found(
    falkordb_store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deleting one document while another of the same content was being written removed the PDF
    both render from: the write had found it kept, the delete found no other document using it."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    files = kept_copies_dir(settings.home, falkordb_store)
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    assert pipeline.ingest(SAMPLE).status == "ingested"
    twin = tmp_path / "twin.pdf"
    twin.write_bytes(SAMPLE.read_bytes())
    writing, go_on = threading.Event(), threading.Event()
    write_document = falkordb_store.write_document

    def held_write(batch: GraphBatch, force: bool = False) -> WriteResult:
        writing.set()
        go_on.wait(timeout=120)
        return write_document(batch, force)

    monkeypatch.setattr(falkordb_store, "write_document", held_write)
    reports: list[IngestReport] = []
    ingest = threading.Thread(target=lambda: reports.append(pipeline.ingest(twin)))
    ingest.start()
    assert writing.wait(timeout=120)
    delete = threading.Thread(target=delete_document, args=(falkordb_store, "docgraph-sample", files))
    delete.start()
    delete.join(timeout=3)  # the copy went here, before the twin was written
    go_on.set()
    ingest.join(timeout=120)
    delete.join(timeout=120)
    assert reports[0].status == "ingested" and stored_documents(falkordb_store) == ["twin"]
    assert (files / f"{file_sha256(SAMPLE)}.pdf").is_file()


def test_a_page_renders_from_its_source_only_while_that_file_is_the_one_read(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """With the kept copy gone, a new edition saved over the source was drawn with the old edition's
    boxes, without a word."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    files = kept_copies_dir(settings.home, falkordb_store)
    pdf = tmp_path / "manual.pdf"
    pdf.write_bytes(SAMPLE.read_bytes())
    assert build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(pdf).status == "ingested"
    kept = files / f"{file_sha256(pdf)}.pdf"
    [document] = falkordb_store.read(
        "MATCH (d:Document) RETURN d.doc_id AS doc_id, d.sha256 AS sha256, d.source_path AS source_path"
    )
    assert locate_pdf(document, files) == kept
    kept.unlink()
    assert locate_pdf(document, files) == pdf.resolve()  # the file it was read from, unchanged
    pdf.write_bytes(SAMPLE.read_bytes() + b"\n% the next edition\n")
    with pytest.raises(DocumentNotFoundError, match=rf"nor at {pdf.resolve()} as it was read: ingest it again"):
        locate_pdf(document, files)
