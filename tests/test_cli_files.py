"""Which files the command line reads and stores: a bad file among good ones, names given twice,
copies, renames, links and new editions, and Ctrl-C during an ingest; a real local FalkorDB."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.stages import ProgressFn
from docgraph.errors import IngestInterrupted
from tests.cli_helpers import PDFS, ROOT, SAMPLE, run


def test_bad_file_fails_alone_and_leaves_graph_unchanged(cli_env: dict[str, str], tmp_path: Path) -> None:
    fake = tmp_path / "notes.pdf"
    fake.write_text("this is not a PDF")
    code, out, _ = run("ingest", str(fake), str(SAMPLE), "--no-embed", "--json")
    assert code == 1
    reports = {Path(r["file"]).name: r for r in json.loads(out)}
    assert reports["notes.pdf"]["status"] == "failed" and reports["notes.pdf"]["doc_id"] == "notes"  # was ""
    assert "notes.pdf" in reports["notes.pdf"]["error"]
    assert reports[SAMPLE.name]["status"] == "ingested"
    code, out, _ = run("documents", "--json")
    assert [d["file_name"] for d in json.loads(out)] == [SAMPLE.name]


def test_a_file_named_twice_is_ingested_once_with_one_report(cli_env: dict[str, str], tmp_path: Path) -> None:
    """Its folder and the file itself: both reports said "unchanged", though it was just ingested."""
    (tmp_path / "fold").mkdir()
    pdf = tmp_path / "fold" / "okapi.pdf"
    pdf.write_bytes(SAMPLE.read_bytes())
    code, out, _ = run(
        "ingest", str(tmp_path / "fold"), str(pdf), f"{tmp_path}/fold/../fold/okapi.pdf", "--no-embed", "--json"
    )
    assert code == 0 and [(r["file"], r["status"]) for r in json.loads(out)] == [(str(pdf), "ingested")]


def test_files_that_would_share_one_document_id_fail_and_the_others_still_ingest(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """Neither of the clashing files is written (one would replace the other), and one clash in a
    folder no longer refuses the whole library."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "Zoo Manual.pdf", tmp_path / "b" / "zoo-manual.pdf"
    first.write_bytes(SAMPLE.read_bytes())
    second.write_bytes((ROOT / "tests" / "data" / "pdfs" / "water-report.pdf").read_bytes())
    (tmp_path / "other.pdf").write_bytes(SAMPLE.read_bytes())
    code, out, err = run("ingest", str(tmp_path), "--no-embed", "--json")
    reports = {Path(r["file"]).name: r for r in json.loads(out)}
    assert code == 1 and reports["other.pdf"]["status"] == "ingested", err
    for name in ("Zoo Manual.pdf", "zoo-manual.pdf"):
        assert reports[name]["status"] == "failed"
        assert "would all be stored as 'zoo-manual', one replacing the other: rename them" in reports[name]["error"]
    code, out, _ = run("documents", "--json")
    assert [row["doc_id"] for row in json.loads(out)] == ["other"]  # neither replacing the other


def test_copies_of_one_file_in_two_folders_are_one_document_and_hidden_files_are_skipped(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """A byte-identical copy in an archive folder made both files fail, every run, as "one replacing
    the other"; a macOS ``._manual.pdf`` resource file in the folder failed as "not a PDF"."""
    library = tmp_path / "library"
    (library / "archive").mkdir(parents=True)
    (library / ".Trash").mkdir()
    for folder in (library, library / "archive", library / ".Trash"):
        (folder / "manual.pdf").write_bytes(SAMPLE.read_bytes())
    (library / "._manual.pdf").write_bytes(b"\x00\x05\x16\x07 resource fork")
    code, out, err = run("ingest", str(library), "--no-embed", "--json")
    assert code == 0, err
    statuses = [(Path(r["file"]).relative_to(library).as_posix(), r["status"]) for r in json.loads(out)]
    assert statuses == [("archive/manual.pdf", "ingested"), ("manual.pdf", "unchanged")]
    code, out, _ = run("documents", "--json")
    assert [row["doc_id"] for row in json.loads(out)] == ["manual"]
    code, out, _ = run("ingest", str(library / "._manual.pdf"), "--no-embed", "--json")  # named alone: read
    assert code == 1 and json.loads(out)[0]["status"] == "failed"


def test_pdfs_in_linked_folders_are_found_once(cli_env: dict[str, str], tmp_path: Path) -> None:
    """A library's linked shelves were skipped: "no PDF found in the given paths"."""
    shelf, library = tmp_path / "shelf", tmp_path / "library"
    shelf.mkdir()
    library.mkdir()
    (shelf / "xts.pdf").write_bytes((PDFS / "xts-p6.pdf").read_bytes())
    (library / "shelf").symlink_to(shelf)
    (library / "back-up").symlink_to(library)  # a loop ends where it began
    (library / "same-shelf").symlink_to(shelf)  # and a second way to the same file
    code, out, err = run("ingest", str(shelf), str(library), "--no-embed", "--json")
    assert code == 0, err
    assert [(report["doc_id"], report["status"]) for report in json.loads(out)] == [("xts", "ingested")]


def test_a_copy_under_another_name_is_reported_as_holding_stored_content(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """It was stored a second time without a word: the same PDF, under another name, is another document."""
    original, copy = tmp_path / "manual.pdf", tmp_path / "manual-copy.pdf"
    original.write_bytes((PDFS / "xts-p6.pdf").read_bytes())
    copy.write_bytes(original.read_bytes())
    code, out, err = run("ingest", str(original), "--no-embed")
    assert code == 0, err
    code, out, err = run("ingest", str(copy), "--no-embed", "--json")
    assert code == 0, err
    assert json.loads(out)[0]["stats"]["same_content_as"] == ["manual"]
    code, out, err = run("ingest", str(copy), "--no-embed", "--force")
    assert "  the same content is stored as manual (another name, another document)" in out.splitlines()


def test_a_file_stored_under_the_id_an_older_release_gave_its_name_is_named_and_not_guessed(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """Ids of names with letters an id cannot spell changed (Straße.pdf: strae, now strae-58a377):
    the same file ingested again was "another name, another document", and `delete Straße.pdf`
    deleted one of the two, whichever the store listed first."""
    old = tmp_path / "old" / "strae.pdf"
    old.parent.mkdir()
    old.write_bytes(SAMPLE.read_bytes())
    assert run("ingest", str(old), "--no-embed")[0] == 0
    rename = "MATCH (d:Document {doc_id: 'strae'}) SET d.file_name = 'Straße.pdf'"  # as the older release stored it
    assert run("cypher", "--write", rename)[0] == 0
    current = tmp_path / "Straße.pdf"
    current.write_bytes(SAMPLE.read_bytes())
    code, out, err = run("ingest", str(current), "--no-embed", "--json")
    assert code == 0, err
    [report] = json.loads(out)
    assert report["doc_id"] != "strae" and report["stats"]["same_file_stored_as"] == ["strae"]
    code, out, _ = run("ingest", str(current), "--no-embed", "--force")
    assert (
        "  this file is stored as strae too, the id an older docgraph gave its name: "
        "`docgraph delete strae` removes that copy"
    ) in out.splitlines()

    code, out, err = run("delete", "Straße.pdf", "--json")
    assert code == 1 and json.loads(out)["error"] == (
        f"'Straße.pdf' is the file name of 2 documents (strae, {report['doc_id']}): name one by its id "
        "(see `docgraph documents`)"
    )
    assert run("delete", "strae")[0] == 0
    code, out, _ = run("delete", "Straße.pdf", "--json")
    assert code == 0 and json.loads(out)["doc_id"] == report["doc_id"]


def test_a_renamed_file_is_told_apart_from_a_copy_and_documents_say_whose_file_is_gone(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """A renamed file became a second document beside the first, "another name, another document",
    and nothing listed where documents came from or that a file had gone: a library filled with
    documents of files long renamed."""
    notes = tmp_path / "notes.pdf"
    notes.write_bytes(SAMPLE.read_bytes())
    assert run("ingest", str(notes), "--no-embed")[0] == 0
    code, out, _ = run("documents", "--json")
    [row] = json.loads(out)
    assert (row["source_path"], row["source_found"]) == (str(notes.resolve()), True)
    assert len(row["sha256"]) == 64 and row["build"]

    renamed = notes.rename(tmp_path / "lion-notes.pdf")
    code, out, err = run("ingest", str(renamed), "--no-embed")
    assert code == 0, err
    assert (
        "  the same content is stored as notes, whose file is gone from where it was read: if this is that "
        "file renamed, `docgraph delete notes` removes the old document"
    ) in out.splitlines()
    code, out, err = run("documents")
    assert code == 0 and str(notes) not in out  # the table keeps to the listing
    assert err.splitlines() == [
        "note: 1 document(s) were read from a file that is gone: notes (`docgraph documents --json` gives each "
        "source_path)"
    ]
    code, out, _ = run("documents", "--json")
    assert {row["doc_id"]: row["source_found"] for row in json.loads(out)} == {"lion-notes": True, "notes": False}


def test_a_link_pointed_at_each_new_edition_stays_its_documents_file(cli_env: dict[str, str], tmp_path: Path) -> None:
    """The document of ``manual-latest.pdf -> v1/manual.pdf`` recorded v1's path, so pointing the link
    at v2 and ingesting the same path again was refused as "another file" (--replace every time)."""
    for edition, source in (("v1", SAMPLE), ("v2", PDFS / "xts-p6.pdf")):
        (tmp_path / edition).mkdir()
        (tmp_path / edition / "manual.pdf").write_bytes(source.read_bytes())
    latest = tmp_path / "manual-latest.pdf"
    latest.symlink_to(Path("v1") / "manual.pdf")
    code, out, err = run("ingest", str(latest), "--no-embed", "--json")
    assert code == 0 and json.loads(out)[0]["status"] == "ingested", err
    code, out, _ = run("documents", "--json")
    assert json.loads(out)[0]["source_path"] == str(latest)

    latest.unlink()
    latest.symlink_to(Path("v2") / "manual.pdf")
    code, out, err = run("ingest", str(latest), "--no-embed", "--json")
    assert code == 0, out + err
    assert [(r["doc_id"], r["status"]) for r in json.loads(out)] == [("manual-latest", "replaced")]
    # another file of that name is still refused
    (tmp_path / "elsewhere").mkdir()
    other = tmp_path / "elsewhere" / "manual-latest.pdf"
    other.write_bytes(SAMPLE.read_bytes())
    code, out, _ = run("ingest", str(other), "--no-embed", "--json")
    assert code == 1 and "would replace the stored document 'manual-latest'" in json.loads(out)[0]["error"]


def test_another_file_of_a_stored_name_replaces_it_only_when_told(cli_env: dict[str, str], tmp_path: Path) -> None:
    """The API and the UI refuse a different file under a stored name unless told to replace it;
    the CLI replaced the document read from /a/report.pdf with /b/report.pdf without a word."""
    first, other = tmp_path / "a" / "report.pdf", tmp_path / "b" / "report.pdf"
    first.parent.mkdir()
    other.parent.mkdir()
    first.write_bytes(SAMPLE.read_bytes())
    doc = pymupdf.open(SAMPLE)
    doc[0].insert_text((72, 40), "Another edition", fontsize=9)
    doc.save(other)
    assert run("ingest", str(first), "--no-embed", "--json")[0] == 0

    fresh = pymupdf.open()
    fresh.new_page().insert_text((72, 72), "A note of its own", fontsize=11)
    fresh.save(other.parent / "note.pdf")
    code, out, err = run("ingest", str(other), str(other.parent / "note.pdf"), "--no-embed", "--json")
    refused, noted = json.loads(out)
    assert code == 1 and refused["status"] == "failed" and noted["status"] == "ingested"  # the others still ingest
    assert refused["doc_id"] == "report"  # the stored document the refusal left as it was
    assert f"{other} would replace the stored document 'report', read from another file ({first})" in refused["error"]
    code, out, _ = run("ingest", str(other), "--no-embed", "--replace", "--json")
    assert code == 0 and json.loads(out)[0]["status"] == "replaced"
    # The file it was read from, changed there, updates its document as before.
    changed = pymupdf.open(other)
    changed[0].insert_text((72, 30), "Revised", fontsize=9)
    changed.save(tmp_path / "revised.pdf")
    other.write_bytes((tmp_path / "revised.pdf").read_bytes())
    code, out, err = run("ingest", str(other), "--no-embed", "--json")
    assert code == 0 and json.loads(out)[0]["status"] == "replaced", err


def test_a_stored_file_found_unchanged_elsewhere_is_read_from_there(cli_env: dict[str, str], tmp_path: Path) -> None:
    """A folder moved (or a copy ingested with --replace) is skipped as unchanged; the document kept
    the old path, so the next change of the file where it now is was refused as another file's. A
    copy beside a file that is still there (an upload of the same content) does not take it over."""
    edition = pymupdf.open(SAMPLE)
    edition[0].insert_text((72, 30), "Revised", fontsize=9)
    edition.save(tmp_path / "revised.pdf")
    files = {name: tmp_path / name / "report.pdf" for name in ("a", "b", "c", "d")}
    for path in files.values():
        path.parent.mkdir()
    files["a"].write_bytes(SAMPLE.read_bytes())
    assert run("ingest", str(files["a"]), "--no-embed", "--json")[0] == 0

    def status(name: str, *flags: str) -> str:
        code, out, err = run("ingest", str(files[name]), "--no-embed", "--json", *flags)
        report = json.loads(out)[0] if out else {"status": f"exit {code}", "error": err}
        return f"{report['status']} {report['error']}".strip()

    files["b"].write_bytes(SAMPLE.read_bytes())  # a copy, ingested with --replace: b is its file now
    code, out, err = run("ingest", str(files["b"]), "--no-embed", "--replace")
    assert code == 0 and "report unchanged" in out and "edges:" not in out, err  # no empty edges line
    files["b"].write_bytes((tmp_path / "revised.pdf").read_bytes())
    assert status("b") == "replaced"
    files["c"].write_bytes(files["b"].read_bytes())  # b's folder moved to c
    files["b"].unlink()
    assert status("c") == "unchanged"
    files["c"].write_bytes(SAMPLE.read_bytes())
    assert status("c") == "replaced"
    files["d"].write_bytes(files["c"].read_bytes())  # a copy while c is there: c stays the file
    assert status("d") == "unchanged"
    files["d"].write_bytes((tmp_path / "revised.pdf").read_bytes())
    assert "would replace the stored document 'report'" in status("d")


def test_a_path_through_a_linked_folder_and_back_records_the_file_read(cli_env: dict[str, str], tmp_path: Path) -> None:
    """``shelf/../manual.pdf`` with shelf a link elsewhere recorded ``./manual.pdf`` (the spelling
    made absolute), another file than the one read."""
    (tmp_path / "elsewhere" / "shelf").mkdir(parents=True)
    read = tmp_path / "elsewhere" / "manual.pdf"
    read.write_bytes(SAMPLE.read_bytes())
    (tmp_path / "shelf").symlink_to(tmp_path / "elsewhere" / "shelf")
    code, out, err = run("ingest", f"{tmp_path}/shelf/../manual.pdf", "--no-embed")
    assert code == 0, err
    code, out, _ = run("documents", "--json")
    [row] = json.loads(out)
    assert (row["source_path"], row["source_found"]) == (str(read), True)


def test_ctrl_c_once_every_document_was_under_way_still_exits_130(
    cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With workers, Ctrl-C while every document was under way lets them finish: that exited 0."""
    ingest_many = IngestPipeline.ingest_many

    def finished_then_interrupted(self: IngestPipeline, paths: Any, *args: Any, **kwargs: Any) -> list[IngestReport]:
        raise IngestInterrupted(ingest_many(self, paths, *args, **kwargs), [])

    monkeypatch.setattr(IngestPipeline, "ingest_many", finished_then_interrupted)
    code, out, err = run("ingest", str(SAMPLE), "--no-embed")
    assert code == 130 and out.startswith("docgraph-sample ingested: 3 pages"), (out, err)
    assert err.splitlines()[-1] == "interrupted: every document ended"


def test_ctrl_c_reports_the_documents_that_landed_and_names_the_rest(
    cli_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reports of documents already written were lost, and nothing said which were not."""
    first, second = tmp_path / "first.pdf", tmp_path / "second.pdf"
    first.write_bytes(SAMPLE.read_bytes())
    second.write_bytes((PDFS / "xts-p6.pdf").read_bytes())
    ingest = IngestPipeline.ingest

    def interrupted_at_the_second(
        self: IngestPipeline,
        path: Path,
        progress: ProgressFn | None = None,
        uploaded_as: str = "",
        replace: bool = False,
    ) -> IngestReport:
        if path.name == "second.pdf":
            raise KeyboardInterrupt  # Ctrl-C while it is read
        return ingest(self, path, progress, uploaded_as, replace)

    monkeypatch.setattr(IngestPipeline, "ingest", interrupted_at_the_second)
    code, out, err = run("ingest", str(first), str(second), "--no-embed")
    assert code == 130
    assert out.startswith("first ingested: 3 pages")
    assert "interrupted: not ingested: second.pdf (run the command again for them)" in err.splitlines()
    code, out, err = run("ingest", str(first), str(second), "--no-embed", "--json")
    assert code == 130 and [report["status"] for report in json.loads(out)] == ["unchanged", "not_ingested"]
    code, out, _ = run("documents", "--json")
    assert [document["doc_id"] for document in json.loads(out)] == ["first"]
