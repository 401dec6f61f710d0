"""Retrieval on real documents in a real FalkorDB store with the real MiniLM encoder.

One module-wide graph holds a real PDF (the shared-mime-info spec, 17 pages, from the train set)
and a small hand-built document whose captions, references and page-break continuation are known,
both ingested through the real pipeline stages (read or build, graph, embed, write).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from docgraph.app.config import Settings
from docgraph.app.evaluation.corpus_ingest import ensure_ingested
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import embed_batch
from docgraph.app.resources import ROOT
from docgraph.app.retrieval.base import Retriever, ScoredRegion
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.document_index import page_lead_in
from docgraph.app.retrieval.hybrid import SIGNALS, HybridRetriever, HybridWeights
from docgraph.app.retrieval.registry import RETRIEVER_NAMES, make_retriever, make_retrievers
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.errors import ConfigError
from docgraph.ingest.graph import build_graph
from docgraph.ingest.types import BBox, DocumentLayout, OutlineEntry, PageLayout, Region
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import DEFAULT_MODEL, TextEncoder
from tests.conftest import fresh_graph_name, local_settings

SPEC = Path("/work/shared/bench/train/shared-mime-info-spec.pdf")
SPEC_DOC = "shared-mime-info-spec"
SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"
SAMPLE_DOC = "docgraph-sample"
TOY_DOC = "toy-manual"


def _region(kind: str, text: str, y0: float, order: int, continues: bool = False) -> Region:
    return Region(kind, BBox(72, y0, 540, y0 + 40), text, order, 10.0, False, None, continues)  # type: ignore[arg-type]


def toy_layout() -> DocumentLayout:
    """Two pages: a table with its caption, a paragraph that refers to the table, and a paragraph
    that runs on from page 1 to page 2."""
    page1 = PageLayout(
        1,
        612,
        792,
        [
            _region("section_header", "1 Bookmarks", 72, 0),
            _region("paragraph", "Pass a fit type to bookmarkPage; see Table 1 for what each one does.", 120, 1),
            _region("caption", "Table 1: Fit types of bookmarkPage", 170, 2),
            _region("table", "Fit | Effect\nXYZ | keep zoom\nFitV | height scaled to fit the window", 215, 3),
            _region(
                "paragraph", "Outlines nest under their parent entry and the viewer shows them", 700, 4, continues=True
            ),
        ],
    )
    page2 = PageLayout(
        2,
        612,
        792,
        [
            _region("paragraph", "as a collapsible tree next to the pages, closed by default.", 72, 0),
            _region("section_header", "2 Colours", 200, 1),
            _region("paragraph", "Colours may be given as CMYK or RGB; spot colours need a separation name.", 250, 2),
        ],
    )
    outline = [OutlineEntry(1, "1 Bookmarks", 1), OutlineEntry(1, "2 Colours", 2)]
    return DocumentLayout(Path("toy-manual.pdf"), "toy-manual.pdf", "cd" * 32, "Toy manual", 2, [page1, page2], outline)


@pytest.fixture(scope="module")
def encoder() -> TextEncoder:
    return load_encoder(DEFAULT_MODEL)


@pytest.fixture(scope="module")
def corpus_store(local_home: Path, encoder: TextEncoder) -> Iterator[GraphStore]:
    settings: Settings = local_settings(local_home, fresh_graph_name())
    store = open_store(settings)
    store.apply_schema()
    ensure_ingested([SPEC], store, encoder, settings)
    batch = build_graph(toy_layout(), ingested_at="2024-01-01T00:00:00+00:00")
    embed_batch(batch, encoder)
    store.write_document(batch)
    store.wait_for_indexes()
    yield store
    store.delete_graph()  # type: ignore[attr-defined]
    store.close()


@pytest.fixture(scope="module")
def retrievers(corpus_store: GraphStore, encoder: TextEncoder) -> dict[str, Retriever]:
    return make_retrievers(list(RETRIEVER_NAMES), corpus_store, encoder)


def texts(hits: list[ScoredRegion]) -> list[str]:
    return [h.text for h in hits]


def test_hybrid_finds_the_region_that_answers(retrievers: dict[str, Retriever]) -> None:
    hits = retrievers["hybrid"].retrieve(
        "Which file in a packages directory overrides all the other files there?", 5, SPEC_DOC
    )
    assert any("Override.xml" in h.text for h in hits[:3]), texts(hits)
    pages = retrievers["hybrid"].rank_pages("Which file in a packages directory overrides all the others?", 3, SPEC_DOC)
    assert pages[0].page == 3


@pytest.mark.parametrize("name", RETRIEVER_NAMES)
def test_every_variant_ranks_within_the_document_best_first(retrievers: dict[str, Retriever], name: str) -> None:
    hits = retrievers[name].retrieve("magic rules priority of MIME types", 8, SPEC_DOC)
    assert hits, name
    assert len(hits) <= 8
    assert all(h.doc_id == SPEC_DOC and h.region_id.startswith(SPEC_DOC + "@") for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.signals and 1 <= h.page <= 17 for h in hits)
    assert all(h.kind not in ("page_header", "page_footer") for h in hits)
    pages = retrievers[name].rank_pages("magic rules priority of MIME types", 5, SPEC_DOC)
    assert 1 <= len(pages) <= 5 and len({p.page for p in pages}) == len(pages)


def test_an_american_spelling_finds_the_british_text(retrievers: dict[str, Retriever]) -> None:
    # The toy manual spells "Colours"; "colors" shares no other word with it.
    hits = retrievers["bm25-region"].retrieve("colors", 2, TOY_DOC)
    assert hits and all("Colours" in h.text for h in hits), texts(hits)
    assert retrievers["bm25-page"].rank_pages("Which colors?", 1, TOY_DOC)[0].page == 2


def test_search_over_the_whole_corpus_reaches_both_documents(retrievers: dict[str, Retriever]) -> None:
    mime = retrievers["hybrid"].retrieve("glob patterns of MIME types", 3)
    toy = retrievers["hybrid"].retrieve("fit types of bookmarkPage", 3)
    assert mime[0].doc_id == SPEC_DOC
    assert toy[0].doc_id == TOY_DOC
    only_toy = retrievers["hybrid"].retrieve("glob patterns of MIME types", 5, TOY_DOC)
    assert only_toy and all(h.doc_id == TOY_DOC for h in only_toy)


def test_dense_scores_are_exact_cosines_of_stored_vectors_or_passages(
    retrievers: dict[str, Retriever], corpus_store: GraphStore, encoder: TextEncoder
) -> None:
    query = "how is the MIME type of a file guessed from its contents"
    q = encoder.encode([query])[0]
    for doc_id in (None, SPEC_DOC):  # the vector index, and an exact scan inside one document
        hits = retrievers["dense-region"].retrieve(query, 5, doc_id)
        assert len(hits) == 5, doc_id
        rows = corpus_store.read(
            "MATCH (r:Region) WHERE r.region_id IN $ids "
            "RETURN r.region_id AS region_id, r.embedding AS embedding, r.passage_embeddings AS passages",
            {"ids": [h.region_id for h in hits]},
        )
        stored = {row["region_id"]: np.asarray(row["embedding"], dtype=np.float32) for row in rows}
        passages = {row["region_id"]: np.asarray(row["passages"] or [], dtype=np.float32) for row in rows}
        for hit in hits:
            expected = float(stored[hit.region_id] @ q / np.linalg.norm(stored[hit.region_id]))
            if passages[hit.region_id].size:  # a long region: its best passage, when that is better
                expected = max(expected, float((passages[hit.region_id].reshape(-1, q.size) @ q).max()))
            assert hit.score == pytest.approx(expected, abs=1e-4)
            assert hit.signals == {"dense": hit.score}


def test_hybrid_reports_which_signals_contributed(retrievers: dict[str, Retriever]) -> None:
    hits = retrievers["hybrid"].retrieve("user.mime_type extended attribute", 3, SPEC_DOC)
    assert all(h.page == 14 for h in hits)
    assert any("user.mime_type" in h.text for h in hits)
    weighted = {name for name in SIGNALS if HybridWeights().of(name) > 0}
    for hit in hits:
        assert set(hit.signals) <= weighted and "dense" in hit.signals and "page" in hit.signals
        assert hit.score == pytest.approx(sum(hit.signals.values()))


def test_table_hit_carries_its_caption_and_the_paragraph_that_cites_it(retrievers: dict[str, Retriever]) -> None:
    hits = retrievers["hybrid"].retrieve("What does FitV do to the window height?", 3, TOY_DOC)
    table = next(h for h in hits if h.kind == "table")
    relations = {(c.relation, c.kind) for c in table.context}
    assert ("caption", "caption") in relations
    assert ("referred_by", "paragraph") in relations
    caption = next(c for c in table.context if c.relation == "caption")
    assert caption.text.startswith("Table 1") and caption.page == 1


def test_paragraph_broken_by_a_page_carries_its_continuation(retrievers: dict[str, Retriever]) -> None:
    hits = retrievers["hybrid"].retrieve("How are nested outline entries shown by the viewer?", 3, TOY_DOC)
    first_part = next(h for h in hits if h.text.startswith("Outlines nest"))
    continuation = [c for c in first_part.context if c.relation == "continues"]
    assert continuation and continuation[0].page == 2
    assert continuation[0].text.startswith("as a collapsible tree")


def test_section_retriever_prefers_regions_under_the_matching_title(retrievers: dict[str, Retriever]) -> None:
    hits = retrievers["section"].retrieve("colours", 2, TOY_DOC)
    assert hits[0].page == 2 and "CMYK" in " ".join(texts(hits))


def test_bm25_page_is_a_page_ranking(retrievers: dict[str, Retriever]) -> None:
    pages = retrievers["bm25-page"].rank_pages("Override.xml precedence packages directory", 3, SPEC_DOC)
    assert pages[0].page == 3 and pages[0].score > pages[-1].score


def test_deleted_document_disappears_from_results(corpus_store: GraphStore, encoder: TextEncoder) -> None:
    retriever = make_retriever("hybrid", corpus_store, encoder, Corpus(corpus_store))
    assert retriever.retrieve("bookmarkPage fit types", 3, TOY_DOC)
    corpus_store.delete_document(TOY_DOC)
    try:
        assert retriever.retrieve("bookmarkPage fit types", 3, TOY_DOC) == []
        assert all(h.doc_id == SPEC_DOC for h in retriever.retrieve("bookmarkPage fit types", 5))
    finally:
        batch = build_graph(toy_layout(), ingested_at="2024-01-01T00:00:00+00:00")
        embed_batch(batch, encoder)
        corpus_store.write_document(batch)


def test_unknown_variant_is_a_config_error(corpus_store: GraphStore, encoder: TextEncoder) -> None:
    with pytest.raises(ConfigError, match="unknown retriever"):
        make_retriever("tf-idf-magic", corpus_store, encoder)


@pytest.fixture(scope="module")
def sample_store(local_home: Path) -> Iterator[GraphStore]:
    """The sample PDF ingested by the standard pipeline, GNN stage included (the shipped checkpoint
    fits the default encoder)."""
    settings = local_settings(local_home, fresh_graph_name())
    store = open_store(settings)
    store.apply_schema()
    pipeline = build_ingest_pipeline(store, settings)
    assert any(stage.name == "gnn" for stage in pipeline.stages), pipeline.notes
    report = pipeline.ingest(SAMPLE)
    assert report.status == "ingested", report.error
    store.wait_for_indexes()
    yield store
    store.delete_graph()  # type: ignore[attr-defined]
    store.close()


def test_hybrid_fuses_the_gnn_signal_and_gnn_variants_answer(sample_store: GraphStore, encoder: TextEncoder) -> None:
    found = make_retrievers(["hybrid", "no-gnn", "gnn"], sample_store, encoder)
    question = "What is the area of the seal pool enclosure?"
    for doc_id in (None, SAMPLE_DOC):  # the GNN vector index, and an exact scan inside the document
        hybrid = found["hybrid"].retrieve(question, 5, doc_id)
        assert hybrid and any("gnn" in h.signals for h in hybrid), [h.signals for h in hybrid]
        assert all(
            0 <= h.signals.get("gnn", 1) <= 1 and h.score == pytest.approx(sum(h.signals.values())) for h in hybrid
        )
        without = found["no-gnn"].retrieve(question, 5, doc_id)
        assert without and all("gnn" not in h.signals for h in without)
        alone = found["gnn"].retrieve(question, 5, doc_id)
        assert alone and all(h.signals == {"gnn": h.score} and h.doc_id == SAMPLE_DOC for h in alone)
        assert [h.score for h in alone] == sorted((h.score for h in alone), reverse=True)
    assert found["hybrid"].rank_pages(question, 3, SAMPLE_DOC)[0].page == 2
    # A question about what a passage refers to is answered by following references instead: the
    # GNN, whose REF messages blend a referring passage with its target, does not count for it.
    referring = "What is the area of the seal pool enclosure mentioned in the feeding section?"
    assert isinstance(found["hybrid"], HybridRetriever) and found["hybrid"].follows_references(referring)
    hits = found["hybrid"].retrieve(referring, 5, SAMPLE_DOC)
    assert hits and all("gnn" not in h.signals for h in hits) and all("dense" in h.signals for h in hits[:1])
    # Nor is the GNN asked: a signal whose weight is 0 is not gathered.
    hybrid = found["hybrid"]
    assert any(c.raw["gnn"] > 0 for c in hybrid.gather(referring, SAMPLE_DOC))
    assert all(c.raw["gnn"] == 0 for c in hybrid.gather(referring, SAMPLE_DOC, replace(hybrid.weights, gnn=0.0)))


def test_hybrid_works_without_gnn_vectors(retrievers: dict[str, Retriever]) -> None:
    """The toy document was written without the GNN stage, and no ablation vectors were computed:
    the hybrids still answer, without a GNN signal."""
    for name in ("hybrid", "no-cross-page", "no-sim"):
        hits = retrievers[name].retrieve("What does FitV do to the window height?", 3, TOY_DOC)
        assert hits and all("gnn" not in h.signals for h in hits), name
        assert retrievers[name].retrieve("fit types of bookmarkPage", 3)[0].doc_id == TOY_DOC
    assert retrievers["gnn"].retrieve("What does FitV do to the window height?", 3, TOY_DOC) == []


def test_every_variant_finds_nothing_in_a_never_written_graph(local_home: Path, encoder: TextEncoder) -> None:
    """A graph nothing was written to has no vector index yet: retrieval must not query one (asking
    needs no write rights, so it cannot create the schema first)."""
    store = open_store(local_settings(local_home, fresh_graph_name()))
    try:
        for name in RETRIEVER_NAMES:
            retriever = make_retriever(name, store, encoder)
            assert retriever.retrieve("When are the penguins fed?", 5) == [], name
            assert retriever.rank_pages("When are the penguins fed?", 5) == [], name
            assert retriever.retrieve("When are the penguins fed?", 5, SAMPLE_DOC) == [], name
    finally:
        store.close()


REFERRING_QUESTION = (
    "The user modification section sends corrections to a file mentioned in Section 2.1. "
    "Over which files does that file take precedence?"
)


def test_a_reference_question_follows_the_reference_of_the_passage_it_describes(
    corpus_store: GraphStore, encoder: TextEncoder
) -> None:
    """The question's words match the 'User modification' paragraph (page 17) best, but it asks about
    Section 2.1, which that paragraph refers to (pages 2-3); the answer, Override.xml, is on page 3.
    Pages are scored without lead-ins for such a question: page 3's, the start of Section 2.1 on
    page 2, would lift its regions above the referring paragraph, whose reference would then not
    be among the two followed."""
    plain = make_retriever("no-gnn", corpus_store, encoder)
    assert isinstance(plain, HybridRetriever)
    plain.weights = HybridWeights(reference=0.0)
    assert not plain.follows_references(REFERRING_QUESTION)
    assert plain.rank_pages(REFERRING_QUESTION, 3, SPEC_DOC)[0].page == 17
    following = make_retriever("no-gnn", corpus_store, encoder)
    assert isinstance(following, HybridRetriever) and following.follows_references(REFERRING_QUESTION)
    assert following.rank_pages(REFERRING_QUESTION, 3, SPEC_DOC)[0].page == 3
    hits = following.retrieve(REFERRING_QUESTION, 10, SPEC_DOC)
    assert any(referred_pages(following, h.region_id) >= {2, 3} for h in hits if h.page == 17)
    gained = [h for h in hits if "reference" in h.signals]
    assert gained and {h.page for h in gained} <= {2, 3}
    assert all(h.score == pytest.approx(sum(h.signals.values())) for h in hits)


def referred_pages(retriever: Retriever, region_id: str) -> set[int]:
    assert isinstance(retriever, HybridRetriever)
    return set(retriever.corpus.references(region_id))


def test_a_question_that_names_no_reference_is_not_redirected(retrievers: dict[str, Retriever]) -> None:
    question = "Where do the user modification corrections go, and over which files do they take precedence?"
    hits = retrievers["no-gnn"].retrieve(question, 10, SPEC_DOC)
    assert hits and all("reference" not in h.signals for h in hits)


def test_a_page_is_led_by_the_previous_pages_part_of_the_sections_it_continues(corpus_store: GraphStore) -> None:
    """Toy page 2 goes on with section 1 (its first paragraph runs on from page 1), then starts
    section 2: its lead-in is page 1's section-1 text, so page-level BM25 with lead-ins finds page 2
    for section 1's words, which the plain page index does not; page 1 has no lead-in."""
    (toy,) = Corpus(corpus_store).documents(TOY_DOC)
    assert page_lead_in(toy, 1) == ""
    lead_in = page_lead_in(toy, 2)
    assert "1 Bookmarks" in lead_in and "see Table 1" in lead_in and "Outlines nest" in lead_in
    assert "Colours" not in lead_in
    row = toy.page_numbers.index(2)
    assert toy.page_bm25.scores("fit types")[row] == 0
    assert toy.lead_in_page_bm25.scores("fit types")[row] > 0
    assert toy.lead_in_page_bm25.scores("spot colours separation")[toy.page_numbers.index(1)] == 0


MAGIC_LIST_QUESTION = (
    "In the mime.cache layout, besides the number of matches and the offset of the first match, "
    "what other field does the magic list header hold?"
)


def test_the_page_signal_finds_a_table_that_continues_a_section_from_the_page_before(
    corpus_store: GraphStore, encoder: TextEncoder
) -> None:
    """The mime.cache section starts on page 11 and its magic list header (MAX_EXTENT) is on page
    12. Plain page BM25 favours page 11, which names the cache layout; led by page 11's part of the
    section, page 12 matches those words too and its own decide."""
    retriever = make_retriever("no-gnn", corpus_store, encoder)
    assert isinstance(retriever, HybridRetriever)
    retriever.weights = HybridWeights(page_lead_in=False)
    assert retriever.rank_pages(MAGIC_LIST_QUESTION, 3, SPEC_DOC)[0].page == 11
    retriever.weights = HybridWeights()
    assert retriever.weights.page_lead_in
    assert retriever.rank_pages(MAGIC_LIST_QUESTION, 3, SPEC_DOC)[0].page == 12


def test_a_question_that_names_a_table_prefers_table_regions(retrievers: dict[str, Retriever]) -> None:
    question = "In the table of bookmarkPage fit types, which fit type keeps the zoom?"
    plain = retrievers["no-kind"].retrieve(question, 3, TOY_DOC)
    assert plain[0].kind == "caption" and "kind" not in plain[0].signals  # the caption says "fit types"
    first = retrievers["hybrid"].retrieve(question, 3, TOY_DOC)[0]
    assert first.kind == "table" and first.signals["kind"] == HybridWeights().kind
    assert first.score == pytest.approx(sum(first.signals.values()))
    # Without naming the table the bonus goes to no region.
    hits = retrievers["hybrid"].retrieve("Which fit type of bookmarkPage keeps the zoom?", 3, TOY_DOC)
    assert not any("kind" in h.signals for h in hits)


def test_known_words_load_no_other_document_once_all_are_found(
    corpus_store: GraphStore, encoder: TextEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docgraph.app.retrieval import corpus as corpus_module
    from docgraph.app.retrieval.relevance import dense_part, known

    dense = dense_part(make_retriever("hybrid", corpus_store, encoder))
    assert dense is not None
    first, second = sorted(dense.corpus.versions())
    loads: list[str] = []
    load = corpus_module.load_document
    monkeypatch.setattr(corpus_module, "load_document", lambda *args: loads.append(args[1]) or load(*args))
    (index,) = dense.corpus.documents(first)  # as a question asked inside the first document loads it
    word = next(term for term in index.region_bm25.vocabulary if term.isalpha() and len(term) > 3)
    assert known(word, dense) == 1.0 and loads == [first]  # found in the loaded document: no other loaded
    assert known(f"{word} xqzvblorft", dense) == 0.5 and loads == [first, second]  # looked for in every one
