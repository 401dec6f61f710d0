"""A small zoo document built by hand as a GraphBatch, and settings pointing at a scripted server.

Two pages, two sections, paragraphs, a table with its caption, a figure with its caption, a
reference from a paragraph to the table. The Document's source path is the bundled sample PDF so
figure regions can be rendered.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docgraph.app.config import Settings
from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.service import ASK_K, ask
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.retrieval.hybrid import HybridRetriever
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.structure.ids import file_sha256
from docgraph.models.encoder_loader import load_encoder
from docgraph.records import EdgeRecord, GraphBatch, NodeRecord

DOC_ID = "zoo"
SAMPLE_PDF = SAMPLES_DIR / "docgraph-sample.pdf"
SHA256 = file_sha256(SAMPLE_PDF)  # its pages render from the sample (describe), which must be that file
PREFIX = f"{DOC_ID}@{SHA256[:8]}"

# (page, position, kind, text, bbox, section index)
REGIONS: list[tuple[int, int, str, str, list[float], int]] = [
    (1, 0, "section_header", "1 Feeding", [72, 72, 300, 90], 0),
    (
        1,
        1,
        "paragraph",
        "Penguins are fed twice a day, at 10:00 and at 15:30, in the penguin pool.",
        [72, 100, 520, 130],
        0,
    ),
    (1, 2, "paragraph", "Lions are fed once a day at 14:00, except on Sundays when they fast.", [72, 140, 520, 170], 0),
    (1, 3, "table", "Animal | Food | kg per day\nPenguin | fish | 0.5\nLion | meat | 7", [72, 180, 520, 260], 0),
    (1, 4, "caption", "Table 1: Daily food per animal.", [72, 265, 400, 280], 0),
    (2, 0, "section_header", "2 Enclosures", [72, 72, 300, 90], 1),
    (2, 1, "figure", "", [72, 100, 400, 300], 1),
    (2, 2, "caption", "Figure 1: Map of the zoo with the penguin pool and the lion house.", [72, 305, 520, 320], 1),
    (2, 3, "paragraph", "The penguin pool holds 200 cubic metres of sea water (see Table 1).", [72, 330, 520, 360], 1),
]


def region_id(page: int, position: int) -> str:
    return f"{PREFIX}:p{page}:r{position}"


def section_id(index: int) -> str:
    return f"{PREFIX}:s{index}"


def zoo_batch(source_path: Path = SAMPLE_PDF) -> GraphBatch:
    batch = GraphBatch(doc_id=DOC_ID, sha256=SHA256)
    batch.nodes.append(
        NodeRecord(
            "Document",
            DOC_ID,
            {
                "doc_id": DOC_ID,
                "title": "Zoo handbook",
                "file_name": "zoo.pdf",
                "sha256": SHA256,
                "page_count": 2,
                "ingested_at": "2025-01-01T00:00:00+00:00",
                "source_path": str(source_path),
            },
        )
    )
    for number in (1, 2):
        batch.nodes.append(
            NodeRecord(
                "Page",
                f"{PREFIX}:p{number}",
                {
                    "page_id": f"{PREFIX}:p{number}",
                    "doc_id": DOC_ID,
                    "number": number,
                    "width": 612.0,
                    "height": 792.0,
                    "text": "",
                },
            )
        )
        batch.edges.append(EdgeRecord("HAS_PAGE", "Document", DOC_ID, "Page", f"{PREFIX}:p{number}"))
    for index, (title, number) in enumerate([("Feeding", "1"), ("Enclosures", "2")]):
        batch.nodes.append(
            NodeRecord(
                "Section",
                section_id(index),
                {
                    "section_id": section_id(index),
                    "doc_id": DOC_ID,
                    "title": title,
                    "level": 1,
                    "number": number,
                    "page_start": index + 1,
                    "order": index,
                },
            )
        )
        batch.edges.append(EdgeRecord("IS_UNDER", "Section", section_id(index), "Document", DOC_ID))
    previous: tuple[str, int] | None = None
    for page, position, kind, text, bbox, section in REGIONS:
        key = region_id(page, position)
        props: dict[str, Any] = {
            "region_id": key,
            "doc_id": DOC_ID,
            "page": page,
            "kind": kind,
            "text": text,
            "bbox": bbox,
            "order": position,
            "font_size": 10.0,
            "continues": False,
            "ocr": kind == "table",  # as if the table were on a scan (the LLM is told)
        }
        batch.nodes.append(NodeRecord("Region", key, props, ("".join(p.capitalize() for p in kind.split("_")),)))
        batch.edges.append(EdgeRecord("ON_PAGE", "Region", key, "Page", f"{PREFIX}:p{page}"))
        batch.edges.append(EdgeRecord("IS_UNDER", "Region", key, "Section", section_id(section)))
        if previous is not None:
            link = {"cross_page": previous[1] != page}
            batch.edges.append(EdgeRecord("HAS_NEXT", "Region", previous[0], "Region", key, link))
        previous = (key, page)
    batch.edges.append(EdgeRecord("CAPTION_OF", "Region", region_id(1, 4), "Region", region_id(1, 3)))
    batch.edges.append(EdgeRecord("CAPTION_OF", "Region", region_id(2, 2), "Region", region_id(2, 1)))
    batch.edges.append(EdgeRecord("REF", "Region", region_id(2, 3), "Region", region_id(1, 3), {"label": "Table 1"}))
    return batch


def llm_settings(base_url: str, home: Path, **overrides: Any) -> Settings:
    """Settings whose LLM endpoint is the scripted test server."""
    values: dict[str, Any] = {
        "home": home,
        "llm_base_url": base_url,
        "llm_api_key": "test-key",
        "llm_model": "test-model",
    }
    values.update(overrides)
    return Settings(**values)


def no_llm_settings(home: Path, **overrides: Any) -> Settings:
    return Settings(home=home, llm_base_url="", llm_api_key="", **overrides)


def ask_of_pdf(store: GraphStore, pdf: Path, question: str, home: Path) -> AnswerResult:
    """``pdf`` ingested into ``store`` (no embeddings) and ``question`` asked of it with no model,
    over BM25 regions, as a user without an endpoint gets it: the extractive answer."""
    settings = no_llm_settings(home)
    report = build_ingest_pipeline(store, settings, embed=False).ingest(pdf)
    assert report.status == "ingested", report.error
    retriever = make_retriever("bm25-region", store, load_encoder())
    return ask(question, store, settings, retriever, k=3)


def hybrid_over(store: FalkorDBStore, pdfs: list[Path], home: Path) -> HybridRetriever:
    """``pdfs`` ingested into ``store`` with embeddings and the GNN, as ``docgraph ingest`` does, and
    the default retriever over them."""
    settings = Settings(home=home, graph=store.graph_name, store="")
    pipeline = build_ingest_pipeline(store, settings)
    for pdf in pdfs:
        report = pipeline.ingest(pdf)
        assert report.status == "ingested", report.error
    store.wait_for_indexes()
    hybrid = make_retriever("hybrid", store, configured_encoder(settings), settings=settings)
    assert isinstance(hybrid, HybridRetriever)
    return hybrid


def answered(store: FalkorDBStore, pdf: Path, question: str, home: Path) -> str:
    """``question`` asked of ``pdf`` as ``docgraph ask`` asks it with no model (the hybrid, its
    default hits): the answer, which must not abstain."""
    hybrid = hybrid_over(store, [pdf], home)
    result = ask(question, store, no_llm_settings(home), hybrid, k=ASK_K)
    assert not result.abstained, (question, result.relevance)
    return result.answer


def sample_eval_inputs(folder: Path, questions: list[dict[str, Any]]) -> tuple[Path, Path]:
    """A docs folder holding the sample PDF and a JSON-lines file of ``questions`` about it, for the
    eval commands."""
    docs = folder / "docs"
    docs.mkdir()
    (docs / SAMPLE_PDF.name).write_bytes(SAMPLE_PDF.read_bytes())
    path = folder / "questions.jsonl"
    path.write_text("".join(json.dumps(question) + "\n" for question in questions))
    return docs, path
