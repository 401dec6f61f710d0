"""Azure Document Intelligence reader: AnalyzeResult JSON -> DocumentLayout offline, and the real SDK
against a local stand-in of the service's REST API (no network, no credentials)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from docgraph.errors import ConfigError, IngestError
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.azure import AzureReader, layout_from_analyze_result
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout, PageLayout, Region

DATA = Path(__file__).parent / "data" / "azure"
PDF = Path("/work/shared/bench/dev/libtasn1.pdf")  # has bookmarks, no metadata title
LINKED = Path(__file__).parent / "data" / "pdfs" / "nut-links.pdf"  # see tests/test_link_references.py
_ROLES = {
    "title": "title",
    "section_header": "sectionHeading",
    "page_header": "pageHeader",
    "page_footer": "pageFooter",
}


def load(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return result


@pytest.fixture(scope="module")
def report() -> DocumentLayout:
    return layout_from_analyze_result(load("report.json"), Path("/docs/report.pdf"), sha256="ab" * 32)


def ordered(page: PageLayout) -> list[Region]:
    return sorted(page.regions, key=lambda r: r.order)


def test_pages_units_and_title(report: DocumentLayout) -> None:
    assert report.page_count == 3 and [p.number for p in report.pages] == [1, 2, 3]
    assert (report.pages[0].width, report.pages[0].height) == (612.0, 792.0)  # 8.5 x 11 inches
    assert report.title == "Quarterly Results" and report.file_name == "report.pdf"
    assert report.pages_without_text == []


def test_roles_become_kinds_in_azure_reading_order(report: DocumentLayout) -> None:
    page = ordered(report.pages[0])
    assert [(r.kind, r.text) for r in page] == [
        ("title", "Quarterly Results"),
        ("section_header", "1. Overview"),
        ("paragraph", "Revenue grew in every region. See Table 1 for details of the growth."),
        ("caption", "Table 1: Revenue by region"),
        ("table", "| Region | Revenue |\n| --- | --- |\n| North | 10 |\n| South | 12 |"),
        ("list", "• Costs fell by 5% in the second quarter."),
        ("formula", "E = m c^2"),
        ("footnote", "1 Unaudited figures."),
        ("page_header", "ACME Annual Report"),  # furniture last, whatever its offset
        ("page_footer", "1"),  # a pageNumber at the bottom
    ]
    title = page[0]
    assert title.bbox.as_list() == [72.0, 72.0, 360.0, 108.0]  # (1.0, 1.0)-(5.0, 1.5) inches
    assert report.pages[0].header_text == "ACME Annual Report" and report.pages[0].footer_text == "1"


def test_table_cells_are_not_repeated_as_paragraphs(report: DocumentLayout) -> None:
    table = next(r for r in report.pages[0].regions if r.kind == "table")
    assert table.cells == [["Region", "Revenue"], ["North", "10"], ["South", "12"]]
    texts = [r.text for p in report.pages for r in p.regions if r.kind != "table"]
    assert not {"North", "South", "Revenue", "Jan", "Mar"} & set(texts)


def test_figures_with_captions_and_inner_text(report: DocumentLayout) -> None:
    page = ordered(report.pages[1])
    figure = next(r for r in page if r.kind == "figure")
    assert figure.text == "Sales 2024" and figure.bbox.as_list() == [72.0, 86.4, 504.0, 316.8]
    caption = next(r for r in page if r.kind == "caption")
    assert caption.text == "Figure 1: Sales trend over the year" and caption.order == figure.order + 1
    assert report.pages[1].footer_text == "Confidential"


def test_a_table_across_a_page_break_is_split_and_continues(report: DocumentLayout) -> None:
    first = next(r for r in report.pages[1].regions if r.kind == "table")
    rest = next(r for r in report.pages[2].regions if r.kind == "table")
    assert first.cells == [["Month", "Units", "Price"], ["Jan", "5", "2.0"], ["Feb", "6", "2.1"]]
    assert rest.cells == [["Month", "Units", "Price"], ["Mar", "7", "2.2"], ["Apr", "8", "2.3"]]  # its header again
    assert first.continues and not rest.continues
    page3 = ordered(report.pages[2])
    assert [r.kind for r in page3] == ["table", "paragraph", "page_header"]  # the number at the top
    assert page3[0].bbox.y0 == 72.0


def test_the_graph_builds_from_an_azure_layout(report: DocumentLayout) -> None:
    batch = build_graph(report, ingested_at="2024-01-01T00:00:00+00:00")
    counts = batch.edge_counts()
    assert batch.node_counts()["Page"] == 3
    assert counts.get("CAPTION_OF", 0) == 2  # table caption and figure caption
    assert counts.get("HAS_NEXT", 0) > 0


def test_blank_pages_are_reported() -> None:
    layout = layout_from_analyze_result(load("blank_second_page.json"), Path("scan.pdf"))
    assert layout.pages_without_text == [2] and layout.title == "scan"
    assert [r.text for r in layout.pages[0].regions] == ["Hello scanned world"]
    assert layout.pages[0].width == pytest.approx(595.0, abs=0.01)  # A4 in inches, back to points


def test_missing_credentials_say_what_to_set() -> None:
    with pytest.raises(ConfigError) as raised:
        AzureReader(endpoint="", key="")
    message = str(raised.value)
    assert "AZURE_DI_ENDPOINT" in message and "AZURE_DI_KEY" in message
    with pytest.raises(ConfigError, match="AZURE_DI_KEY"):
        AzureReader(endpoint="https://example.cognitiveservices.azure.com/", key=" ")


class _FakeService(BaseHTTPRequestHandler):
    """The two REST calls the SDK makes: POST analyze -> 202 + Operation-Location, GET the result."""

    result: ClassVar[dict[str, Any]] = {}
    status = 202
    seen: ClassVar[list[tuple[str, str, str, int]]] = []

    def log_message(self, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.seen.append(("POST", self.path, self.headers.get("Ocp-Apim-Subscription-Key", ""), len(body)))
        if self.status != 202:
            payload = json.dumps({"error": {"code": "401", "message": "Access denied due to invalid subscription key"}})
            self._reply(self.status, payload.encode())
            return
        port = self.server.server_address[1]
        self.send_response(202)
        self.send_header(
            "Operation-Location",
            f"http://127.0.0.1:{port}/documentintelligence/documentModels/prebuilt-layout/analyzeResults/1"
            "?api-version=2024-11-30",
        )
        self.send_header("Retry-After", "0")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self.seen.append(("GET", self.path, self.headers.get("Ocp-Apim-Subscription-Key", ""), 0))
        body = {
            "status": "succeeded",
            "createdDateTime": "2024-01-01T00:00:00Z",
            "lastUpdatedDateTime": "2024-01-01T00:00:01Z",
            "analyzeResult": self.result,
        }
        self._reply(200, json.dumps(body).encode())

    def _reply(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def service() -> Iterator[tuple[str, type[_FakeService]]]:
    handler = type("Handler", (_FakeService,), {"result": load("report.json"), "seen": [], "status": 202})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()
    server.server_close()


def test_reader_sends_the_pdf_through_the_sdk(service: tuple[str, type[_FakeService]]) -> None:
    endpoint, handler = service
    layout = AzureReader(endpoint, "secret-key").read(PDF)
    post = handler.seen[0]
    assert post[0] == "POST" and "prebuilt-layout:analyze" in post[1] and post[2] == "secret-key"
    assert post[3] == PDF.stat().st_size
    assert layout.file_name == "libtasn1.pdf" and len(layout.sha256) == 64
    assert layout.title == "Quarterly Results"  # no metadata title: the service's title paragraph
    assert len(layout.outline) == 21  # the PDF's bookmarks, read locally
    assert [r.text for r in layout.pages[0].regions][:2] == ["Quarterly Results", "1. Overview"]


def test_service_errors_become_ingest_errors(service: tuple[str, type[_FakeService]]) -> None:
    endpoint, handler = service
    handler.status = 401
    with pytest.raises(IngestError, match=r"libtasn1\.pdf: Azure Document Intelligence failed: .*invalid subscription"):
        AzureReader(endpoint, "wrong").read(PDF)


def _analyze_result_of(layout: DocumentLayout) -> dict[str, Any]:
    """What the service would say of a PDF whose regions are ``layout``'s (boxes in inches)."""
    pages = [
        {"pageNumber": p.number, "width": p.width / 72, "height": p.height / 72, "unit": "inch"} for p in layout.pages
    ]
    paragraphs: list[dict[str, Any]] = []
    for page in layout.pages:
        for region in sorted(page.regions, key=lambda r: r.order):
            x0, y0, x1, y1 = (v / 72 for v in region.bbox.as_list())
            paragraph = {
                "content": region.text,
                "boundingRegions": [{"pageNumber": page.number, "polygon": [x0, y0, x1, y0, x1, y1, x0, y1]}],
                "spans": [{"offset": 1000 * len(paragraphs), "length": len(region.text)}],
            }
            if region.kind in _ROLES:
                paragraph["role"] = _ROLES[region.kind]
            paragraphs.append(paragraph)
    return {
        "apiVersion": "2024-11-30",
        "modelId": "prebuilt-layout",
        "content": "",
        "pages": pages,
        "paragraphs": paragraphs,
    }


def test_the_pdf_s_links_become_references_as_with_the_other_readers(service: tuple[str, type[_FakeService]]) -> None:
    endpoint, handler = service
    native = NativeReader().read(LINKED)
    handler.result = _analyze_result_of(native)
    layout = AzureReader(endpoint, "secret-key").read(LINKED)

    assert layout.links == native.links and len(layout.links) == 3  # the service returns none: read locally
    refs = [e for e in build_graph(layout).edges if e.type == "REF" and e.props.get("via") == "link"]
    assert {(e.dst_label, e.props["label"]) for e in refs} == {("Section", "Configure options")}
    assert len(refs) == 2
