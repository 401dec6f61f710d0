"""The packaged sentence encoder and batch embedding, with the real MiniLM model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docgraph.app.pipeline.embedding import (
    EMBEDDING_PROPERTY,
    MAX_TEXT_CHARS,
    DiskCache,
    MemoryCache,
    embed_batch,
    embedding_texts,
    encode_cached,
    table_rows_as_text,
)
from docgraph.errors import ModelError
from docgraph.ingest.graph import build_graph
from docgraph.ingest.types import BBox, DocumentLayout, OutlineEntry, PageLayout, Region
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import DEFAULT_MODEL, RowsDone, TextEncoder


@pytest.fixture(scope="module")
def encoder() -> TextEncoder:
    return load_encoder(DEFAULT_MODEL)


def test_default_encoder_loads_offline_once(encoder: TextEncoder) -> None:
    assert isinstance(encoder, TextEncoder)
    assert encoder.dim == 384
    assert load_encoder(DEFAULT_MODEL) is encoder  # cached per process


def test_vectors_are_unit_length_float32_in_input_order(encoder: TextEncoder) -> None:
    texts = ["How do I draw an image on the canvas?", "Table of fit types for bookmarks", ""]
    vectors = encoder.encode(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    single = encoder.encode([texts[1]])[0]
    assert float(single @ vectors[1]) == pytest.approx(1.0, abs=1e-5)
    assert encoder.encode([]).shape == (0, 384)


def test_length_grouped_batches_give_the_library_s_own_vectors() -> None:
    texts = [("word " * n).strip() + f" {n}" for n in (1, 40, 3, 120, 7, 300, 2, 15)]
    torch_encoder = load_encoder(DEFAULT_MODEL, "torch")
    ours = torch_encoder.encode(texts, batch_size=3)
    model = torch_encoder._model  # type: ignore[attr-defined]
    reference = model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
    assert np.allclose(ours, reference, atol=1e-5)


def test_similar_texts_score_higher_than_unrelated_ones(encoder: TextEncoder) -> None:
    query, near, far = encoder.encode(
        [
            "how to make a link without a visible border",
            "links drawn with Border='[0 0 0]' show no box",
            "monthly time series with yearmon index",
        ]
    )
    assert float(query @ near) > float(query @ far) + 0.1


def test_unknown_model_name_raises_model_error_without_downloading() -> None:
    with pytest.raises(ModelError, match="offline"):
        load_encoder("no-such-org/no-such-model-xyz")


def test_model_folder_must_hold_a_model(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not a sentence-transformers model folder"):
        load_encoder(str(tmp_path))


def _layout() -> DocumentLayout:
    regions = [
        Region("section_header", BBox(72, 72, 400, 90), "2 Drawing images", 0, 14.0, True),
        Region("paragraph", BBox(72, 100, 540, 160), "The mask argument makes a colour range transparent.", 1),
        Region("table", BBox(72, 170, 540, 260), "FitV | height scaled to fit", 2),
        Region("caption", BBox(72, 265, 540, 280), "Table 1: Fit types of bookmarkPage", 3),
        Region("page_footer", BBox(72, 760, 540, 775), "7", 4),
    ]
    page = PageLayout(1, 612, 792, regions)
    return DocumentLayout(
        Path("guide.pdf"), "guide.pdf", "ab" * 32, "Guide", 1, [page], [OutlineEntry(1, "2 Drawing images", 1)]
    )


def test_embedding_texts_carry_section_kind_and_caption_context() -> None:
    batch = build_graph(_layout(), ingested_at="2024-01-01T00:00:00+00:00")
    texts = {key: texts[0] for (label, key), texts in embedding_texts(batch).items() if label == "Region"}
    by_kind = {node.props["kind"]: texts[node.key] for node in batch.nodes if node.label == "Region"}
    assert by_kind["paragraph"].startswith("2 Drawing images.")
    assert "The mask argument" in by_kind["paragraph"]
    assert by_kind["table"].startswith("2 Drawing images. Table: Table 1: Fit types of bookmarkPage.")
    assert "FitV" in by_kind["caption"] and by_kind["caption"].startswith("2 Drawing images. Caption:")
    assert all(len(text) <= MAX_TEXT_CHARS for text in texts.values())


def test_a_long_region_is_embedded_passage_by_passage_under_its_context(encoder: TextEncoder) -> None:
    layout = _layout()
    facts = [f"Option number {n} sets the {word} of the bookmark view." for n, word in enumerate(WORDS)]
    long_paragraph = Region("paragraph", BBox(72, 400, 540, 700), " ".join(facts), 3)
    layout.pages[0].regions.insert(3, long_paragraph)
    batch = build_graph(layout, ingested_at="2024-01-01T00:00:00+00:00")
    node = next(n for n in batch.nodes if n.props.get("text") == long_paragraph.text)
    passages = embedding_texts(batch)[("Region", node.key)]
    assert len(passages) >= 3
    assert all(text.startswith("2 Drawing images.") and len(text) <= MAX_TEXT_CHARS for text in passages)
    assert "Option number 0 " in passages[0] and facts[-1] in passages[-1]  # the end is not lost
    embed_batch(batch, encoder)
    vector = np.asarray(node.props[EMBEDDING_PROPERTY])
    last_fact = encoder.encode([facts[-1]])[0]
    first_only = encoder.encode([passages[0]])[0]
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)
    assert float(vector @ last_fact) > float(first_only @ last_fact)  # the tail now counts


WORDS = ["zoom", "width", "height", "colour", "border", "margin", "title", "origin", "scale", "rotation"] * 3


def test_embed_batch_sets_a_vector_on_every_region_and_section(encoder: TextEncoder, tmp_path: Path) -> None:
    batch = build_graph(_layout(), ingested_at="2024-01-01T00:00:00+00:00")
    embed_batch(batch, encoder, cache_dir=tmp_path)
    for node in batch.nodes:
        if node.label in ("Region", "Section"):
            vector = node.props[EMBEDDING_PROPERTY]
            assert isinstance(vector, np.ndarray) and vector.dtype == np.float32 and vector.shape == (384,)
            assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)
        else:
            assert EMBEDDING_PROPERTY not in node.props
    assert (tmp_path / "embeddings.sqlite").is_file()


class _CountingEncoder:
    """Wraps the real encoder and counts the texts it is asked to encode."""

    def __init__(self, inner: TextEncoder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.encoded = 0

    def encode(self, texts: list[str], batch_size: int = 64, progress: RowsDone | None = None) -> np.ndarray:
        self.encoded += len(texts)
        return self.inner.encode(texts, batch_size, progress)


def test_cache_encodes_each_distinct_text_once_and_survives_on_disk(encoder: TextEncoder, tmp_path: Path) -> None:
    counting = _CountingEncoder(encoder)
    texts = ["alpha beta", "gamma", "alpha beta"]
    first = encode_cached(texts, counting, DiskCache(tmp_path), MemoryCache())
    assert counting.encoded == 2
    again = encode_cached(texts, counting, DiskCache(tmp_path), MemoryCache())  # fresh memory, same disk
    assert counting.encoded == 2
    assert np.allclose(first, again) and np.allclose(first[0], first[2])


def test_the_memory_cache_keeps_the_newest_vectors_up_to_its_capacity(encoder: TextEncoder) -> None:
    counting, memory = _CountingEncoder(encoder), MemoryCache(capacity=2)
    first = np.concatenate([encode_cached([text], counting, memory=memory) for text in ("one alpha", "two beta")])
    again = encode_cached(["one alpha", "two beta", "three gamma"], counting, memory=memory)
    assert counting.encoded == 3 and np.array_equal(again[:2], first)  # two came from memory
    encode_cached(["two beta", "three gamma"], counting, memory=memory)
    assert counting.encoded == 3
    encode_cached(["one alpha"], counting, memory=memory)
    assert counting.encoded == 4  # the oldest was let go
    encode_cached(["four", "five", "six"], counting, memory=memory)  # more than it holds: not kept
    encode_cached(["one alpha", "three gamma"], counting, memory=memory)
    assert counting.encoded == 7


def test_the_cache_reports_every_row_once_the_cached_ones_first(encoder: TextEncoder) -> None:
    memory = MemoryCache()
    encode_cached(["gamma"], encoder, memory=memory)
    texts = [f"text number {n}" for n in range(40)] + ["gamma", "text number 3"]  # encoded in two batches
    reports: list[list[int]] = []
    vectors = encode_cached(texts, encoder, memory=memory, progress=reports.append)
    assert reports[0] == [40] and len(reports) == 3  # the cached row, then one report per encoder batch
    assert sorted(row for report in reports for row in report) == list(range(42))  # "text number 3" twice
    assert np.array_equal(vectors, encode_cached(texts, encoder, memory=MemoryCache()))


def test_the_workers_encoder_reports_each_chunk(encoder: TextEncoder, monkeypatch: pytest.MonkeyPatch) -> None:
    from docgraph.app.pipeline.execution import spread_encoder
    from docgraph.app.pipeline.execution.base import InlineExecutor
    from docgraph.app.pipeline.worker import IngestWorker

    monkeypatch.setattr(spread_encoder, "CHUNK_TEXTS", 2)
    spread = spread_encoder.SpreadEncoder.of(InlineExecutor(IngestWorker(None, lambda: encoder)))  # type: ignore[arg-type]
    reports: list[list[int]] = []
    texts = ["a short one", "a longer text than the others", "mid length text", "x", "y"]
    vectors = spread.encode(texts, progress=reports.append)
    assert [len(report) for report in reports] == [2, 2, 1]  # a report per chunk of two texts
    assert sorted(row for report in reports for row in report) == list(range(5))
    assert np.allclose(vectors, encoder.encode(texts), atol=1e-5)


def test_a_table_is_embedded_row_by_row_with_its_column_names() -> None:
    layout = _layout()
    cells = [["Fit", "Effect"], ["XYZ", "keeps the zoom"], ["FitV", "scales the height to the window"], ["", ""]]
    table = next(r for r in layout.pages[0].regions if r.kind == "table")
    table.cells = cells
    batch = build_graph(layout, ingested_at="2024-01-01T00:00:00+00:00")
    node = next(n for n in batch.nodes if n.props.get("kind") == "table")
    (text,) = embedding_texts(batch)[("Region", node.key)]
    assert text.endswith("Fit: XYZ; Effect: keeps the zoom. Fit: FitV; Effect: scales the height to the window.")
    assert "|" not in text and "---" not in text
    assert table_rows_as_text(None) == "" and table_rows_as_text([["only a header"]]) == ""
