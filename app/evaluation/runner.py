"""``docgraph eval``: page Recall@1/3/5 of retriever variants on a questions file.

The documents the questions name are ingested from ``docs_dir`` (skipped when the same version is
already stored); each question is asked inside its own document, and a variant's ranked pages are
compared with the gold pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from docgraph.app.config import Settings, load_settings
from docgraph.app.evaluation.answers import WORD_CUTOFFS, AnswerOutcome, answer_misses, ask_for_answers
from docgraph.app.evaluation.answers import summary as answer_summary
from docgraph.app.evaluation.corpus_ingest import ProgressFn, ensure_ingested
from docgraph.app.evaluation.inputs import check_gold_pages, check_models_usable, distractor_files
from docgraph.app.evaluation.metrics import CUTOFFS, SCOPES, QuestionOutcome, recall, recall_by_type
from docgraph.app.evaluation.paired import PairedComparison, compare, compare_by_type
from docgraph.app.evaluation.questions import Question, QuestionsError, load_questions
from docgraph.app.jobs.documents import check_distinct_ids
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.corpus import stored_builds
from docgraph.app.retrieval.registry import EVAL_VARIANTS, check_names, make_retrievers
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.schema import GNN_ABLATION_PROPERTIES
from docgraph.models.encoders import TextEncoder


@dataclass(slots=True)
class VariantResult:
    name: str
    outcomes: list[QuestionOutcome] = field(default_factory=list)

    def to_json(self, misses: bool = False) -> dict[str, Any]:
        overall = recall(self.outcomes).to_json()
        overall.pop("n")
        overall["by_type"] = {kind: s.to_json() for kind, s in recall_by_type(self.outcomes).items()}
        if misses:
            overall["misses"] = [outcome.to_json() for outcome in self.misses()]
        return overall

    def misses(self, k: int = 1) -> list[QuestionOutcome]:
        """The questions not answered within ``k`` pages."""
        return [o for o in self.outcomes if not o.hit(k)]


@dataclass(slots=True)
class EvalReport:
    n: int
    variants: dict[str, VariantResult] = field(default_factory=dict)
    baseline: str | None = None  # the variant the others are compared with, question by question
    ingested: list[str] = field(default_factory=list)  # files (re-)ingested first: not stored as they would be built
    scope: str = "document"  # each question asked inside its own document, or of the whole store ("corpus")
    documents: int = 0  # documents in the evaluation store: the questions' and the distractors
    answers: dict[str, list[AnswerOutcome]] = field(default_factory=dict)  # variant -> ask outcomes (--answers)

    def to_json(self, misses: bool = False) -> dict[str, Any]:
        """``{"n", "ingested", "variants": {name: {"recall@1", "recall@3", "recall@5", "by_type": {type: {...}}}}}``,
        with a baseline also ``"paired": {"baseline", "variants": {name: {"all": {"recall@K":
        comparison}, "by_type": {type: {"recall@K": comparison}}}}}``; with ``misses`` each variant
        also lists the questions it did not rank a gold page first for (``QuestionOutcome.to_json``)."""
        variants = {name: v.to_json(misses) for name, v in self.variants.items()}
        if self.scope == "corpus":  # how often the first page was at least in the right document
            for name, result in self.variants.items():
                variants[name]["document@1"] = round(document_recall(result.outcomes), 4)
        data: dict[str, Any] = {
            "n": self.n,
            "scope": self.scope,
            "documents": self.documents,
            "ingested": self.ingested,
            "variants": variants,
        }
        if self.answers:
            data["answers"] = {name: _answers_json(outcomes, misses) for name, outcomes in self.answers.items()}
        if self.baseline is not None:
            data["paired"] = {
                "baseline": self.baseline,
                "variants": {name: _paired_json(self.paired(name)) for name in self.compared()},
            }
        return data

    def compared(self) -> list[str]:
        """The variants compared with the baseline (all but the baseline itself)."""
        return [name for name in self.variants if self.baseline is not None and name != self.baseline]

    def paired(self, variant: str) -> dict[str, dict[int, PairedComparison]]:
        """``variant`` against the baseline per cutoff, overall (``"all"``) and per question type."""
        if self.baseline is None:
            raise ValueError("the report has no baseline to compare with")
        mine, theirs = self.variants[variant].outcomes, self.variants[self.baseline].outcomes
        rows: dict[str, dict[int, PairedComparison]] = {"all": {k: compare(mine, theirs, k) for k in CUTOFFS}}
        for k in CUTOFFS:
            for kind, comparison in compare_by_type(mine, theirs, k).items():
                rows.setdefault(kind, {})[k] = comparison
        return rows

    def misses(self, variant: str, k: int = 1) -> list[QuestionOutcome]:
        """The questions ``variant`` did not answer within ``k`` pages (for inspection)."""
        return self.variants[variant].misses(k)


def ask_all(
    retriever: Retriever,
    questions: Sequence[Question],
    doc_ids: dict[str, str],
    scope: str = "document",
    depth: int = max(CUTOFFS),
) -> list[QuestionOutcome]:
    outcomes: list[QuestionOutcome] = []
    for question in questions:
        doc_id = doc_ids[question.doc]
        pages = retriever.rank_pages(question.question, depth, doc_id if scope == "document" else None)
        ranked = tuple((p.doc_id, p.page) for p in pages)
        outcomes.append(QuestionOutcome(question.id, question.type, doc_id, question.pages, ranked, tuple(pages)))
    return outcomes


def run_eval(
    questions_path: Path,
    docs_dir: Path,
    variants: Sequence[str] | None,
    store: GraphStore,
    encoder: TextEncoder,
    progress: ProgressFn | None = None,
    settings: Settings | None = None,
    baseline: str | None = None,
    scope: str = "document",
    distractors: Sequence[Path] = (),
) -> EvalReport:
    """Ingest the questions' documents (and ``distractors``), then score every variant on every
    question in ``scope`` (``baseline`` is scored too when it is not among ``variants``)."""
    reports = run_eval_scopes(
        questions_path, docs_dir, variants, store, encoder, progress, settings, baseline, [scope], distractors
    )
    return reports[scope]


def run_eval_scopes(
    questions_path: Path,
    docs_dir: Path,
    variants: Sequence[str] | None,
    store: GraphStore,
    encoder: TextEncoder,
    progress: ProgressFn | None = None,
    settings: Settings | None = None,
    baseline: str | None = None,
    scopes: Sequence[str] = ("document",),
    distractors: Sequence[Path] = (),
    answers: bool = False,
) -> dict[str, EvalReport]:
    """:func:`run_eval` for each of ``scopes``, on one store: scope -> report. ``distractors`` (PDFs or
    folders) are ingested beside the questions' documents; nobody asks about them. ``answers`` also
    runs the whole ask path per question (:mod:`app.evaluation.answers`)."""
    settings = settings or load_settings()
    names = list(dict.fromkeys(variants or EVAL_VARIANTS))
    if baseline is not None and baseline not in names:
        names.append(baseline)
    check_names(names)  # before the slow ingest
    check_models_usable(names, settings)
    unknown = [scope for scope in scopes if scope not in SCOPES]
    if unknown:
        raise QuestionsError(f"unknown scope {unknown[0]!r}: choose from {', '.join(SCOPES)}")
    questions = load_questions(questions_path)
    if not docs_dir.is_dir():
        raise QuestionsError(f"--docs {docs_dir}: no such folder (the folder holding the questions' PDFs)")
    files = list(dict.fromkeys(q.doc for q in questions))
    missing = [name for name in files if not (docs_dir / name).is_file()]
    if missing:
        raise QuestionsError(f"documents named by the questions are not in {docs_dir}: {', '.join(missing)}")
    check_distinct_ids([docs_dir / name for name in files])
    check_gold_pages(questions, docs_dir, settings.max_pages)
    extra = distractor_files(distractors, [docs_dir / name for name in files])
    paths = [docs_dir / name for name in files] + extra
    ingested = ensure_ingested(paths, store, encoder, settings, progress)
    retrievers = make_retrievers(names, store, encoder, ablation_properties(names, store, settings, progress), settings)
    fresh = [path.name for path in paths if path.name not in ingested.skipped]
    stored = len(stored_builds(store))  # the corpus scope searches them all, the questions' and any other
    reports: dict[str, EvalReport] = {}
    for scope in scopes:
        report = EvalReport(n=len(questions), baseline=baseline, ingested=fresh, scope=scope, documents=stored)
        for done, name in enumerate(names):
            if progress:
                progress(f"eval {name} ({scope})", done, len(names))
            report.variants[name] = VariantResult(name, ask_all(retrievers[name], questions, ingested.doc_ids, scope))
            if answers:
                told = partial(progress, f"answers {name} ({scope})") if progress else None
                report.answers[name] = ask_for_answers(
                    retrievers[name], questions, ingested.doc_ids, store, settings, scope, told
                )
        reports[scope] = report
    if progress:
        progress("eval", len(names), len(names))
    return reports


def ablation_properties(
    names: Sequence[str], store: GraphStore, settings: Settings, progress: ProgressFn | None = None
) -> dict[str, str]:
    """Compute the GNN ablations' vectors (not written at ingest) for the variants that read them;
    variant -> Region property."""
    from docgraph.app.jobs.reembed import ensure_variant  # torch: only when an ablation is asked for

    wanted = [name for name in names if name in GNN_ABLATION_PROPERTIES]
    props: dict[str, str] = {}
    for done, name in enumerate(wanted):
        if progress:
            progress(f"gnn {name}", done, len(wanted))
        props[name] = ensure_variant(store, settings, name)
    if progress and wanted:
        progress("gnn", len(wanted), len(wanted))
    return props


def format_ingested(report: EvalReport, temporary: bool = False) -> str:
    """Which documents were ingested before scoring, and why (empty when none were): a stored
    document built another way (reader, encoder) is rebuilt the configured way, and one whose GNN
    vectors came from another checkpoint gets the configured one's, so vectors written by
    ``docgraph reembed --checkpoint`` alone are overwritten. ``temporary``: into a store made for
    this evaluation, where every document is new."""
    if not report.ingested:
        return ""
    if temporary:
        count = len(report.ingested)
        return (
            f"ingested into a temporary store before scoring, removed afterwards ({count}; --store URL scores "
            f"a store of yours): {', '.join(report.ingested)}"
        )
    return (
        f"ingested before scoring ({len(report.ingested)}; not stored, changed since, or stored by another "
        f"reader, encoder or GNN checkpoint than the configured ones): {', '.join(report.ingested)}"
    )


def document_recall(outcomes: Sequence[QuestionOutcome]) -> float:
    """The share of questions whose first page is in the question's document."""
    return sum(o.right_document() for o in outcomes) / len(outcomes) if outcomes else 0.0


def format_scopes(reports: dict[str, EvalReport]) -> str:
    """Both scopes side by side: per variant, page recall inside each question's document and
    across the whole store (and how often the first page was in the right document)."""
    scopes = list(reports)
    first = reports[scopes[0]]
    head = f"{'variant':<17} " + " ".join(f"{scope + ' R@1/3/5':>22}" for scope in scopes)
    lines = [f"{first.n} questions, {_documents(first.documents)} in the store", head + f" {'doc@1':>7}"]
    for name in first.variants:
        cells = []
        for scope in scopes:
            summary = recall(reports[scope].variants[name].outcomes)
            cells.append(f"{' / '.join(f'{100 * summary.recall[k]:.1f}' for k in CUTOFFS):>22}")
        doc_share = document_recall(reports[scopes[-1]].variants[name].outcomes)
        lines.append(f"{name:<17} " + " ".join(cells) + f" {100 * doc_share:7.1f}")
    return "\n".join(lines)


def format_table(report: EvalReport) -> str:
    """A plain-text table: one row per variant and per (variant, type), recall in percent."""
    lines = [f"scope: {report.scope} ({_documents(report.documents)} in the store)"]
    lines.append(f"{'variant':<17} {'type':<11} {'n':>3} " + " ".join(f"{'R@' + str(k):>6}" for k in CUTOFFS))
    for name, result in report.variants.items():
        rows = [("all", recall(result.outcomes))]
        rows += list(recall_by_type(result.outcomes).items())
        for kind, summary in rows:
            values = " ".join(f"{100 * summary.recall[k]:6.1f}" for k in CUTOFFS)
            lines.append(f"{name:<17} {kind:<11} {summary.n:>3} {values}")
    if report.baseline is not None:
        lines += ["", _paired_header(report.baseline)]
        for name in report.compared():
            for kind, by_k in report.paired(name).items():
                cells = " ".join(_paired_cell(by_k[k]) for k in CUTOFFS)
                lines.append(f"{name:<17} {kind:<11} {by_k[CUTOFFS[0]].n:>3} {cells}".rstrip())
    return "\n".join(lines)


def _answers_json(outcomes: Sequence[AnswerOutcome], misses: bool) -> dict[str, Any]:
    """The measures over ``outcomes``; with ``misses``, also the questions whose gold answer the
    context did not hold within 200 words."""
    row = answer_summary(outcomes)
    if misses:
        row["misses"] = [o.to_json() for o in answer_misses(outcomes)]
    return row


def format_answers(report: EvalReport) -> str:
    """One row per variant: what the ask path handed the generator and what it answered."""
    recall_columns = [f"context_recall@{w}" for w in WORD_CUTOFFS]
    rates = ["evidence_recall", *recall_columns, "answer_contains_gold", "answer_f1", "citation_precision"]
    columns = [*rates, "context_words_before_gold", "abstained", "errors", "llm_fallbacks"]
    lines = [f"{'answers (' + report.scope + ')':<18}  " + "  ".join(columns)]
    for name, outcomes in report.answers.items():
        row = answer_summary(outcomes)
        before = "-" if row["context_words_before_gold"] is None else str(row["context_words_before_gold"])
        cells = [_percent(row[column]) for column in rates]
        cells += [before, _percent(row["abstained"]), str(row["errors"]), str(row["llm_fallbacks"])]
        lines.append(
            f"{name:<18}  " + "  ".join(cell.rjust(len(column)) for cell, column in zip(cells, columns, strict=True))
        )
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:5.1f}"


def format_misses(report: EvalReport) -> str:
    """Per variant, each question whose gold page was not ranked first: its gold pages, the pages
    ranked first instead, the rank the first gold page got (``-`` when none was ranked) and, when
    it was ranked, by how much it trailed the first page and in which signals (the gold page's best
    hit's weighted terms minus the first page's: which signal lost it)."""
    lines = [
        f"missed at R@1 (gold pages; the first {max(CUTOFFS)} pages ranked; the gold page's rank;"
        " its score minus the first page's, overall and per signal)"
    ]
    for name in report.variants:
        for outcome in report.misses(name):
            miss = outcome.to_json()
            gold = ",".join(str(page) for page in miss["gold"])
            ranked = " ".join(str(page) for page in miss["ranked"])
            rank = miss["gold_rank"] or "-"
            line = f"{name:<17} {miss['type']:<11} {miss['id']:<12} {gold:>9}  {ranked:<24} {rank:<2}"
            lines.append(f"{line} {_margins(outcome)}".rstrip())
    return "\n".join(lines)


def _margins(outcome: QuestionOutcome) -> str:
    pair = outcome.first_and_gold()
    if pair is None:
        return ""
    first, gold = (dict(hit.signals) for hit in pair)
    terms = " ".join(f"{name} {gold.get(name, 0.0) - first.get(name, 0.0):+.3f}" for name in {**first, **gold})
    margin = f"{pair[1].score - pair[0].score:+.3f}"
    return f"{margin} ({terms})" if terms else margin


def _paired_header(baseline: str) -> str:
    legend = f"against {baseline}: recall difference in points, won/lost questions, exact McNemar p"
    cells = " ".join(f"{'R@' + str(k):>6}{'':<12}" for k in CUTOFFS)
    return f"{legend}\n{'variant':<17} {'type':<11} {'n':>3} {cells}".rstrip()


def _paired_cell(comparison: PairedComparison) -> str:
    split = f"{len(comparison.wins)}/{len(comparison.losses)} p={comparison.p_value:.2f}"
    return f"{100 * comparison.delta:+6.1f} {split:<11}"


def _paired_json(rows: dict[str, dict[int, PairedComparison]]) -> dict[str, Any]:
    def cells(by_k: dict[int, PairedComparison]) -> dict[str, Any]:
        return {f"recall@{k}": comparison.to_json() for k, comparison in by_k.items()}

    return {"all": cells(rows["all"]), "by_type": {kind: cells(by_k) for kind, by_k in rows.items() if kind != "all"}}


def _documents(count: int) -> str:
    return f"{count} document" if count == 1 else f"{count} documents"
