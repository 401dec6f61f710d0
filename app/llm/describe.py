"""Visual descriptions: figures and tables seen by a vision model, stored on their regions.

Each figure/table region of a document is cut out of its page with PyMuPDF and sent as an image to
``settings.vlm_model``. The reply (a small JSON object: type, summary, details, text) is stored as
``Region.description`` in a readable ``field: value`` form, and the region is embedded again with
the description appended, so retrieval finds a chart by what it shows, not only by its caption.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import find_document, locate_pdf
from docgraph.app.llm.client import NO_VISION_MODEL, LLMClient, TokenUsage, make_client
from docgraph.app.llm.prompting import fill
from docgraph.app.pipeline.embedding import MAX_TEXT_CHARS, configured_encoder, encode_cached, shorten
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore, Row
from docgraph.app.stores.kept_copies import kept_copies_dir
from docgraph.errors import LLMRequestError, LLMUnavailableError
from docgraph.models.encoders import TextEncoder

RENDER_DPI = 144
MAX_IMAGE_SIDE_PX = 1600  # larger images only cost tokens; vision models downscale them anyway
MARGIN_PT = 4.0
MAX_PROMPT_TEXT = 1200
DESCRIPTION_FIELDS = ("type", "summary", "details", "text")

DescribeProgress = Callable[[int, int], None]


def _pymupdf() -> Any:
    """PyMuPDF, imported on use: only describing figures needs it, and it costs ~1 s to import.

    Its constructors are untyped; calling them through Any keeps mypy --strict quiet without ignores."""
    import pymupdf

    return pymupdf


@dataclass
class DescribeReport:
    doc_id: str
    described: list[str] = field(default_factory=list)  # region ids
    failed: dict[str, str] = field(default_factory=dict)  # region id -> why
    tokens: TokenUsage = field(default_factory=TokenUsage)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "described": len(self.described),
            "regions": self.described,
            "failed": self.failed,
            "tokens": self.tokens.to_json(),
            "seconds": round(self.seconds, 3),
        }


def describe_document(
    store: GraphStore,
    settings: Settings,
    doc: str,
    client: LLMClient | None = None,
    encoder: TextEncoder | None = None,
    redo: bool = False,
    progress: DescribeProgress | None = None,
) -> DescribeReport:
    """Describe the figures and tables of ``doc`` (id or file name) not yet described (all with ``redo``).

    A region the vision model fails on is reported in ``failed`` and the others still go on; an
    unreachable endpoint stops the run with :class:`LLMUnavailableError`.
    """
    started = time.perf_counter()
    client = client or make_client(settings)
    if not client.vlm_model:
        raise LLMUnavailableError(NO_VISION_MODEL)
    document = find_document(store, doc)
    report = DescribeReport(doc_id=str(document["doc_id"]))
    targets = store.read(cypher.load("describe_targets", store.dialect), {"doc_id": report.doc_id, "redo": redo})
    if targets:
        pdf = locate_pdf(document, kept_copies_dir(settings.home, store))
        encoder = encoder or _load_encoder(settings)
        try:
            for done, target in enumerate(targets, start=1):
                _describe_region(store, client, encoder, pdf, target, report)
                if progress:
                    progress(done, len(targets))
        finally:  # also when the endpoint goes away midway: the regions described so far were updated
            if report.described:
                store.refresh_fulltext(["Region"])
    report.seconds = time.perf_counter() - started
    return report


def _describe_region(
    store: GraphStore, client: LLMClient, encoder: TextEncoder, pdf: Path, target: Row, report: DescribeReport
) -> None:
    region_id = str(target["region_id"])
    try:
        png = render_region(pdf, int(target["page"]), [float(v) for v in target["bbox"]], int(target["turn"] or 0))
        completion = client.describe_image(describe_prompt(target), png)
    except LLMRequestError as error:
        report.failed[region_id] = str(error)
        return
    report.tokens.add(completion)
    description = format_description(completion.text)
    if not description:
        report.failed[region_id] = "the vision model sent back an empty description"
        return
    vector = encode_cached([description_embedding_text(target, description)], encoder)[0]
    params = {"region_id": region_id, "description": description, "embedding": [float(v) for v in vector]}
    store.write(cypher.load("set_region_description", store.dialect), params)
    report.described.append(region_id)


def render_region(pdf: Path, page_number: int, bbox: list[float], turn: int = 0, dpi: int = RENDER_DPI) -> bytes:
    """The region's box (plus a small margin) on page ``page_number`` (1-based) as PNG bytes;
    ``turn``: the page's stored turn (a scan read upright), whose frame the box is in."""
    from docgraph.ingest.pdf.api import MUPDF_LOCK, close, load_page, open_pdf  # the frame the regions were read in

    fitz = _pymupdf()
    with MUPDF_LOCK:
        document = open_pdf(pdf)
        try:
            page: Any = load_page(document, page_number - 1, turn)
            x0, y0, x1, y1 = bbox
            clip = fitz.Rect(x0 - MARGIN_PT, y0 - MARGIN_PT, x1 + MARGIN_PT, y1 + MARGIN_PT) & page.rect
            longest_pt = max(clip.width, clip.height, 1.0)
            dpi = min(dpi, int(MAX_IMAGE_SIDE_PX * 72 / longest_pt))
            pixmap = page.get_pixmap(clip=clip, dpi=max(dpi, 36))
            png: bytes = pixmap.tobytes("png")
            return png
        finally:
            close(document)


def describe_prompt(target: Row) -> str:
    caption = str(target.get("caption") or "").strip()
    text = " ".join(str(target.get("text") or "").split())
    return fill(
        "describe",
        kind=str(target.get("kind") or "figure"),
        caption=f"Its caption reads: {caption}\n" if caption else "",
        text=f"Text extracted from it: {shorten(text, MAX_PROMPT_TEXT)}\n" if text else "",
    )


def format_description(reply: str) -> str:
    """The reply's JSON fields as ``field: value`` lines; the plain reply when it is not JSON."""
    raw = _json_object(reply)
    if raw is None:
        return reply.strip()
    lines: list[str] = []
    for name in DESCRIPTION_FIELDS:
        value = raw.get(name)
        if isinstance(value, list):
            value = "; ".join(str(item).strip() for item in value if str(item).strip())
        text = " ".join(str(value or "").split())
        if text:
            lines.append(f"{name}: {text}")
    return "\n".join(lines)


def description_embedding_text(target: Row, description: str) -> str:
    """What the region is embedded as once described: kind, caption, its own text, then the description."""
    kind = str(target.get("kind") or "figure").capitalize()
    caption = " ".join(str(target.get("caption") or "").split())
    own = shorten(str(target.get("text") or ""), MAX_TEXT_CHARS // 3)
    parts = [f"{kind}:", f"{caption}." if caption else "", own, " ".join(description.split())]
    return shorten(" ".join(p for p in parts if p), MAX_TEXT_CHARS)


def _json_object(reply: str) -> dict[str, Any] | None:
    match = re.search(r"\{.*\}", reply, re.DOTALL)
    if match is None:
        return None
    try:
        value = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _load_encoder(settings: Settings) -> TextEncoder:
    return configured_encoder(settings)
