"""The default retriever: five signals gathered per candidate region, fused by weighted scores.

Candidates are the union of the dense top regions, the GNN top regions (when a GNN retriever is
given), the BM25 top regions and the best region of each of the BM25 top pages; one database query
returns the dense top regions and the exact cosine of every candidate, one more the GNN's. Every
candidate then has every signal:

- ``dense``: cosine of the query with the region's stored (contextual) embedding; for a long region
  embedded passage by passage, with its best passage's cosine where that is higher,
- ``bm25``: BM25 of the region text,
- ``page``: BM25 of the region's whole page (a region on a page that is about the query as a whole
  is more likely the answer than an isolated match), the page led by the part of its sections that
  is on the page before (``corpus.page_lead_in``), so that a page continuing a topic is scored on
  the topic's words too,
- ``section``: title similarity of the best-matching section enclosing the region (ToC retrieval),
- ``gnn``: cosine of the query with the region's GNN embedding (``app.retrieval.gnn``); 0 for a
  region without one, so documents ingested without the GNN simply lack this signal. The GNN is
  fed a long region's mean passage vector, so the region's best-passage lift is added here too.

Each signal is divided by its best value among the candidates, so all lie in [0, 1] whatever their
scale, and the region score is their weighted sum; ``signals`` records each weighted term. When the
question asks about something a passage refers to, the pages the best hits refer to then gain a
share of their score (``reference``, see :mod:`app.retrieval.references`). Scores, not ranks, are
fused (docs/experiments/retrieval-weights.md says why). The default weights keep ``dense``,
``page`` and ``gnn``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from docgraph.app.retrieval.base import PageHit, ScoredRegion, check_query
from docgraph.app.retrieval.bm25 import scores_across, top_k_of
from docgraph.app.retrieval.bm25_page import BM25PageRetriever, best_pages
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.document_index import FURNITURE, DocumentIndex, RegionInfo
from docgraph.app.retrieval.expansion import expand
from docgraph.app.retrieval.gnn import GnnRetriever
from docgraph.app.retrieval.hits import REGIONS_FOR_PAGES, QueryVectors, hit_from, parts_first
from docgraph.app.retrieval.kinds import named_kinds, named_label_words, named_labels
from docgraph.app.retrieval.labels import LabelledPlaces
from docgraph.app.retrieval.named_parts import (
    PART_CANDIDATES,
    asks_only_where,
    named_parts,
    names_parts,
    notice_words,
    part_label_words,
    without_note_owners,
)
from docgraph.app.retrieval.named_series import series_words
from docgraph.app.retrieval.pages import rank_pages
from docgraph.app.retrieval.references import asks_about_reference, describes_referral, follow_references
from docgraph.app.retrieval.sections import region_section_scores, section_scores
from docgraph.app.retrieval.text import tokenize
from docgraph.app.retrieval.vector import MIN_CANDIDATES, OVERFETCH, DenseRetriever
from docgraph.app.stores.base import GraphStore

SIGNALS = ("dense", "bm25", "page", "section", "gnn")


@dataclass(frozen=True, slots=True)
class HybridWeights:
    """Signal weights of the hybrid, chosen on the hand-written train questions.

    ``page_lead_in`` scores each page with the previous page's part of the sections that go on onto
    it, except for questions whose references are followed. ``kind`` is added to a region of the
    kind the question names ("the table of ...", "Table 3": :func:`app.retrieval.kinds.named_kinds`).
    How each weight was chosen, and what was tried beside it: docs/experiments/retrieval-weights.md."""

    dense: float = 1.0
    bm25: float = 0.0
    page: float = 1.0
    section: float = 0.0
    gnn: float = 1.0
    depth: int = 50  # candidates taken from each region-level signal
    pages: int = 10  # pages taken from the page-level signal
    page_bonus: float = 0.0  # see app.retrieval.pages.SUM_BONUS
    page_lead_in: bool = True  # score pages with their lead-in (see the class docstring)
    reference: float = 0.5  # share of a referring hit's score its targets gain (reference questions)
    reference_hops: int = 2  # how many of the best hits have their references followed
    kind: float = 0.5  # added to a region of the kind the question names (``app.retrieval.kinds``)
    part: float = 1.0  # added to a region of a part the question names ("clause 7.3": ``named_parts``)
    named_document: float = 1.0  # added to a region of a document the question names ("invoice 1043")
    one_scale: bool = True  # lexical scores of several documents on one scale (``bm25.scores_across``)
    document: float = 0.0  # added, scaled by its document's share of the best evidence (see ``fuse``)
    document_regions: int = 5  # the best candidates of each document that make its evidence

    def of(self, signal: str) -> float:
        return float(getattr(self, signal))


@dataclass(slots=True)
class Candidate:
    info: RegionInfo
    raw: dict[str, float]  # signal -> raw value (cosine, BM25 score...)


class HybridRetriever:
    name = "hybrid"

    def __init__(
        self,
        store: GraphStore,
        corpus: Corpus,
        vectors: QueryVectors,
        weights: HybridWeights | None = None,
        with_context: bool = True,
        gnn: GnnRetriever | None = None,
    ) -> None:
        self.store = store
        self.corpus = corpus
        self.vectors = vectors
        self.weights = weights or HybridWeights()
        self.with_context = with_context
        self.dense = DenseRetriever(store, corpus, vectors)
        self.pages = BM25PageRetriever(corpus)
        self.gnn = gnn

    # ---- gathering ---------------------------------------------------------------------------

    def gather(self, query: str, doc_id: str | None = None, weights: HybridWeights | None = None) -> list[Candidate]:
        """Candidate regions with all raw signals (four database round trips at most); ``weights``
        (default: the retriever's) say which signals to gather: none whose weight is 0."""
        w = weights or self.weights
        query_vector = self.vectors(query)
        found = self.corpus.documents(doc_id)
        if not found:  # nothing stored: no index to ask (a never-written graph may have none yet)
            return []
        documents = {d.doc_id: d for d in found}
        lexical: dict[str, RegionInfo] = {}
        bm25_scores = scores_across({name: doc.region_bm25 for name, doc in documents.items()}, query, w.one_scale)
        for info in _lexical_top(documents, bm25_scores, w.depth):
            lexical.setdefault(info.region_id, info)
        page_scores: dict[tuple[str, int], float] = {}
        lead_in = w.page_lead_in and not self.follows_references(query, doc_id)
        for document, page, score in best_pages(found, query, w.pages, lead_in, w.one_scale):
            page_scores[(document.doc_id, page)] = score
            best = _best_on_page(document, page, bm25_scores[document.doc_id])
            if best is not None:
                lexical.setdefault(best.region_id, best)
        in_reach = set(documents) if len(documents) == 1 else {info.doc_id for info in lexical.values()}
        for info in _named_part_starts(documents, query, in_reach) if w.part else []:
            lexical.setdefault(info.region_id, info)
        wanted = max(MIN_CANDIDATES, round(w.depth * OVERFETCH))
        cosines = self.dense.candidates(query_vector, wanted, list(lexical), doc_id, passages=False)
        chosen = dict(lexical)
        dense_ranked = sorted(cosines.items(), key=lambda item: -item[1])
        for region_id, _ in dense_ranked:
            near = self.corpus.region(region_id)
            if near is not None and near.kind not in FURNITURE and _in_snapshot(near, documents):
                chosen.setdefault(region_id, near)
        gnn_cosines = self._gnn_signal(query_vector, chosen, documents, doc_id, w)
        lifts = self.dense.passage_lifts(query_vector, {r: cosines[r] for r in chosen if r in cosines})
        sections: dict[str, dict[str, float]] = {}
        if w.section:
            title_scores = section_scores(self.store, query_vector, doc_id)
            sections = {name: region_section_scores(doc, title_scores.get(name, {})) for name, doc in documents.items()}
        candidates: list[Candidate] = []
        for region_id, info in chosen.items():
            document = documents[info.doc_id]
            lift = lifts.get(region_id, 0.0)
            raw = {
                "dense": max(0.0, cosines.get(region_id, 0.0) + lift),
                "bm25": float(bm25_scores[info.doc_id][document.region_row[region_id]]),
                "page": page_scores.get((info.doc_id, info.page), 0.0),
                "section": max(0.0, sections.get(info.doc_id, {}).get(info.section_id or "", 0.0)),
                "gnn": max(0.0, gnn_cosines[region_id] + lift) if region_id in gnn_cosines else 0.0,
            }
            candidates.append(Candidate(info, raw))
        return candidates

    def _gnn_signal(
        self,
        query_vector: NDArray[np.float32],
        chosen: dict[str, RegionInfo],
        documents: dict[str, DocumentIndex],
        doc_id: str | None,
        w: HybridWeights,
    ) -> dict[str, float]:
        """Add the GNN's top regions to ``chosen``; the GNN cosine of every chosen region (none
        without a GNN retriever or weight, or for regions stored without a GNN embedding)."""
        if self.gnn is None or not w.gnn:
            return {}
        if self.gnn.searchable(doc_id):
            ranked = self.gnn.ranked_by_vector(query_vector, w.depth, doc_id, rescore=False)
            for info, _ in ranked:
                if _in_snapshot(info, documents):
                    chosen.setdefault(info.region_id, info)
        return self.gnn.exact_cosines(query_vector, list(chosen))

    # ---- fusing ------------------------------------------------------------------------------

    def scored(self, query: str, n: int, doc_id: str | None = None) -> list[ScoredRegion]:
        """The ``n`` best regions by fused score, without graph context."""
        w = self.weights
        following = self.follows_references(query, doc_id)
        # Following references already carries a hit's score along REF edges; the GNN, whose REF
        # messages make a referring passage resemble what it refers to, would count that relation
        # twice and lift the referring passage over its target (see ``follows_references``).
        if following:
            w = replace(w, gnn=0.0)
        # a question naming a stored document ("invoice 1043") is scored without the naming words,
        # the named document's regions lifted instead
        named = self.corpus.named_documents(query, doc_id) if w.named_document else None
        query = named.unnamed if named is not None else query
        candidates = self.gather(query, doc_id, w)
        return self.ranked(candidates, query, w, following, named.doc_ids if named else frozenset())[:n]

    def ranked(
        self,
        candidates: list[Candidate],
        query: str,
        weights: HybridWeights,
        following: bool,
        named_documents: frozenset[str] = frozenset(),
    ) -> list[ScoredRegion]:
        """Gathered ``candidates`` fused under ``weights``, best first, with references followed when
        ``following`` (scripts/gnn_headroom.py re-fuses one gathering under several weightings); the
        regions of ``named_documents`` (those the question names) are lifted."""
        # "note 2 of Table 5" asks for the note: the table says which, and is no place to look in
        labels, doc_ids = named_labels(without_note_owners(query)), {c.info.doc_id for c in candidates}
        places = self.corpus.labelled(labels, doc_ids) if labels else None
        in_parts = self.corpus.part_regions(query, doc_ids) if weights.part and names_parts(query) else frozenset()
        # a region holding an option the question names ("--retries") is named by it as a part is
        options = self.corpus.option_regions(query, doc_ids) if weights.part else frozenset()
        # so is a region holding every name the question writes ("Smith 1998", "release 3.6.12")
        options |= self.corpus.naming_regions(query, doc_ids) if weights.part else frozenset()
        # and a safety notice by its signal word ("the CAUTION notice"), a heading by the word and
        # number it opens with ("Ground 1: ...")
        notices = self.corpus.notice_regions(query, doc_ids) if weights.part else frozenset()
        series = self.corpus.headed_regions(query, doc_ids) if weights.part else frozenset()
        titled = (
            self.corpus.headed_regions(query, doc_ids, whole_title=True) if weights.part else frozenset()
        )  # "the conclusion"
        series |= titled
        options |= notices | series
        # and a header field whose label it names ("Who was present?": "Present: ..."), of the documents
        # it names when it names some ("the March meeting": not a board paper's "Meeting:" field)
        scope = set(named_documents) or doc_ids
        fields = self.corpus.field_regions(query, scope) if weights.part else {}
        options |= frozenset(fields)
        # a particulars table's row ("When is the break date?": "| Break Date | 24 June 2029 |")
        rows = self.corpus.row_label_tables(query, scope) if weights.part else {}
        kinds = named_kinds(without_note_owners(query)) | {kind for kind, _ in labels}
        hits = fuse(candidates, weights, kinds, places, in_parts | options, named_documents)
        if following:
            hits = follow_references(hits, self.corpus.references, weights.reference, weights.reference_hops)
        asked_places = in_parts | notices | series | (places.regions if places else frozenset())
        named_words = part_label_words(query) | named_label_words(query) | notice_words(query)
        named_words |= series_words(query) if series else set()
        named_words |= set(tokenize(query)) if titled else set()
        if asked_places and asks_only_where(query, named_words):
            # "What is on page 3?": nothing else to rank by; "What does 5.3.2 require?": the part as it reads
            # "Ground 1": the series' heading on, in reading order
            hits = parts_first(hits, asked_places, self.corpus.reading_order(in_parts | series))
        elif fields and asks_only_where(query, set().union(*fields.values())):
            hits = parts_first(hits, frozenset(fields))  # "Who was present?": the field "Present: ..."
        elif rows and asks_only_where(query, set().union(*rows.values())):
            hits = parts_first(hits, frozenset(rows))
        return hits

    def follows_references(self, query: str, doc_id: str | None = None) -> bool:
        """Whether ``query`` asks about what a passage refers to and references are followed for it.

        Such a question is scored without page lead-ins and without the GNN signal, so that the
        referring passage stays among the best hits and its target can overtake it. A part named
        by its label that no document in scope (``doc_id``'s, or all) has is no reference to follow:
        "the section 106 agreement" names an Act's section, not the report's, and nothing in the
        report refers to it (only questions naming a part ask the store)."""
        if not self.weights.reference or not asks_about_reference(query):
            return False
        if describes_referral(query) or not named_parts(query):
            return True
        return any(document.part_rows(query) for document in self.corpus.documents(doc_id))

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        check_query(query, k)
        hits = self.scored(query, k, doc_id)
        if self.with_context:
            expand(self.store, hits)
        return hits

    def rank_pages(self, query: str, k: int = 5, doc_id: str | None = None) -> list[PageHit]:
        check_query(query, k)
        return rank_pages(self.scored(query, REGIONS_FOR_PAGES, doc_id), k, self.weights.page_bonus)


def fuse(
    candidates: list[Candidate],
    weights: HybridWeights,
    kinds: frozenset[str] = frozenset(),
    labelled: LabelledPlaces | None = None,
    in_parts: frozenset[str] = frozenset(),
    named_documents: frozenset[str] = frozenset(),
) -> list[ScoredRegion]:
    """Weighted sum of max-normalised signals, best first; a region of one of ``kinds`` (the kinds the
    question names) gains ``weights.kind``; of a kind whose named label was found (``labelled``),
    only the label's caption and what it captions do; a region of a part the question names by
    number, or holding an option it names (``in_parts``), gains ``weights.part``; a region of a
    document the question names (``named_documents``) gains ``weights.named_document``. Across documents
    a region of a document that holds much of the best evidence gains up to ``weights.document``
    (:func:`document_terms`)."""
    best = {s: max((c.raw[s] for c in candidates), default=0.0) for s in SIGNALS}
    named = _named_place(kinds, labelled)
    hits: list[ScoredRegion] = []
    for candidate in candidates:
        terms = {s: weights.of(s) * candidate.raw[s] / best[s] for s in SIGNALS if best[s] > 0 and weights.of(s)}
        if weights.kind and named(candidate.info):
            terms["kind"] = weights.kind
        if candidate.info.region_id in in_parts:
            terms["part"] = weights.part
        if candidate.info.doc_id in named_documents:
            terms["named_document"] = weights.named_document
        hits.append(hit_from(candidate.info, sum(terms.values()), terms))
    if weights.document:
        for hit, term in zip(hits, document_terms(hits, weights.document, weights.document_regions), strict=True):
            if term:
                hit.signals["document"] = term
                hit.score += term
    hits.sort(key=lambda h: -h.score)
    return hits


def _named_place(kinds: frozenset[str], labelled: LabelledPlaces | None) -> Callable[[RegionInfo], bool]:
    if labelled is None:
        return lambda info: info.kind in kinds
    return lambda info: info.region_id in labelled.regions or (info.kind in kinds and info.kind not in labelled.kinds)


def document_terms(hits: list[ScoredRegion], weight: float, regions: int) -> list[float]:
    """Per hit, ``weight`` x its document's evidence / the best document's: a document's evidence is
    the sum of its ``regions`` best hits' scores, so a document that explains a topic over several
    passages leads one that mentions it once. All zero when the hits are of one document."""
    by_document: dict[str, list[float]] = {}
    for hit in hits:
        by_document.setdefault(hit.doc_id, []).append(hit.score)
    if len(by_document) < 2:
        return [0.0] * len(hits)
    evidence = {doc: sum(sorted(scores, reverse=True)[:regions]) for doc, scores in by_document.items()}
    top = max(evidence.values())
    return [weight * evidence[hit.doc_id] / top if top > 0 else 0.0 for hit in hits]


def _lexical_top(
    documents: dict[str, DocumentIndex], scores: dict[str, NDArray[np.float32]], n: int
) -> list[RegionInfo]:
    """The ``n`` best body regions by BM25 over all the given documents."""
    ranked: list[tuple[float, RegionInfo]] = []
    for name, document in documents.items():
        for row, score in top_k_of(scores[name], n + 5):  # a few spare for furniture
            info = document.regions[row]
            if info.kind not in FURNITURE:
                ranked.append((score, info))
    ranked.sort(key=lambda item: -item[0])
    return [info for _, info in ranked[:n]]


def _named_part_starts(documents: dict[str, DocumentIndex], query: str, doc_ids: set[str]) -> list[RegionInfo]:
    """The first body regions of each part ``query`` names, in the documents ``doc_ids``: their words
    need not be the question's ("What does clause 7.3 say?")."""
    starts: list[RegionInfo] = []
    for doc_id in sorted(doc_ids):
        rows = documents[doc_id].part_rows(query) if names_parts(query) else []
        rows += documents[doc_id].series_rows(query) + documents[doc_id].titled_rows(query)
        regions = [documents[doc_id].regions[row] for row in rows]
        starts += [info for info in regions if info.kind not in FURNITURE][:PART_CANDIDATES]
    return starts


def _best_on_page(document: DocumentIndex, page: int, scores: NDArray[np.float32]) -> RegionInfo | None:
    """The page's body region with the best BM25 score (its first one when nothing matches)."""
    rows = document.page_rows.get(page, [])
    if not rows:
        return None
    best = max(rows, key=lambda row: (float(scores[row]), -row))
    return document.regions[best]


def _in_snapshot(info: RegionInfo, documents: dict[str, DocumentIndex]) -> bool:
    """Whether ``info`` is a region of the document versions this gathering began with: a document
    replaced meanwhile (another thread reloaded it) keeps its id but not its regions."""
    document = documents.get(info.doc_id)
    return document is not None and info.region_id in document.region_row
