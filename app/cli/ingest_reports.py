"""What `docgraph ingest` prints of each file's report: a line and its remarks, or JSON."""

from __future__ import annotations

from typing import Any

from docgraph.app.cli.common import console, err_console, print_json
from docgraph.app.pipeline.readers import ocr_packages, reader_ocr_off
from docgraph.app.pipeline.reports import IngestReport
from docgraph.ingest.types import Reader


def untexted_hint(reader: Reader) -> str:
    """What to do about pages that gave no text, given the reader that read them."""
    if reader.name == "native":
        return "`--reader auto` reads them with OCR"
    if reader_ocr_off(reader):
        return f"OCR would read them: apt-get install {' '.join(ocr_packages(reader))}"
    if reader.name == "azure":
        return "the reader found no text on them"
    return "they are blank, or OCR found no text on them either (blank pages are not sent to OCR)"


def print_reports(reports: list[IngestReport], json_out: bool, untexted_hint: str) -> None:
    if json_out:
        print_json([_with_hints(report.to_json(), _text_hints(report, untexted_hint)) for report in reports])
        return
    for report in reports:
        if report.status == "not_ingested":  # named on stderr with the interruption
            continue
        if report.status == "failed":
            err_console.print(f"[bold red]failed:[/] {report.error}", highlight=False)
            continue
        edges = ", ".join(f"{name} {count}" for name, count in sorted(report.edges.items()))
        console.print(
            f"[bold]{report.doc_id}[/] {report.status}: {report.pages} pages, {report.regions} regions, "
            f"{report.sections} sections, {report.seconds:.1f}s" + (f"\n  edges: {edges}" if edges else ""),
            highlight=False,
        )
        same_file = report.stats.get("same_file_stored_as") or []
        gone = report.stats.get("same_content_file_gone") or []
        others = [doc for doc in report.stats.get("same_content_as") or [] if doc not in same_file + gone]
        for doc in gone:
            console.print(
                f"  the same content is stored as {doc}, whose file is gone from where it was read: if this "
                f"is that file renamed, `docgraph delete {doc}` removes the old document",
                highlight=False,
            )
        if others:
            same = ", ".join(others)
            console.print(f"  the same content is stored as {same} (another name, another document)", highlight=False)
        for doc in same_file:
            console.print(
                f"  this file is stored as {doc} too, the id an older docgraph gave its name: "
                f"`docgraph delete {doc}` removes that copy",
                highlight=False,
            )
        if "described_regions" in report.stats:
            console.print(
                f"  described {report.stats['described_regions']} figures/tables "
                f"({report.stats['describe_failed']} failed)"
            )
        if "describe_error" in report.stats:
            err_console.print(f"  descriptions failed: {report.stats['describe_error']}", highlight=False)
        dropped = int(report.stats.get("links_with_other_documents_dropped", 0) or 0)
        if dropped:
            console.print(
                f"  its {dropped} links with other documents (IS_SIMILAR cross_document) went with the "
                "replaced version: `docgraph relink` links it again",
                highlight=False,
            )
        ocr_regions = int(report.stats.get("ocr_regions", 0) or 0)
        if ocr_regions:
            pages = int(report.stats.get("ocr_pages", 0) or 0)
            console.print(f"  {ocr_regions} region(s) on {pages} page(s) read by OCR (Region.ocr)", highlight=False)
        for hint in _text_hints(report, untexted_hint):
            console.print(f"  {hint}", highlight=False)


def _with_hints(record: dict[str, Any], hints: list[str]) -> dict[str, Any]:
    record["notes"] = [*record["notes"], *hints]
    return record


def _text_hints(report: IngestReport, untexted_hint: str) -> list[str]:
    """What to do about pages whose text could not be read (also among the notes of ``--json``)."""
    hints = []
    without_text = int(report.stats.get("pages_without_text", 0) or 0)
    if without_text:
        hints.append(f"{without_text} page(s) have no text: {untexted_hint}")
    unreadable = int(report.stats.get("pages_with_unreadable_text", 0) or 0)
    if unreadable:  # only the native reader keeps such text
        hints.append(
            f"{unreadable} page(s) hold text whose glyphs have no usable characters (a font without a "
            "ToUnicode map): `--reader auto` reads them with OCR"
        )
    return hints
