"""Self-supervised training of the relational GNN on pseudo-queries.

Objective: InfoNCE between a pseudo-query (embedded by the frozen text encoder) and the GNN output
of its target region(s). The candidates of a query are all body regions of its document, so the
other queries' targets in the batch (in-batch negatives) and every other region of the document
(same-document hard negatives: same vocabulary, same topic) compete with the target. A query with
several targets (both sides of a page break) counts any of them (multi-positive InfoNCE). A second
term keeps each GNN output near the node's input embedding, so plain text matching survives.

One step runs the GNN over one whole document (3 layers reach 3 hops, and similarity edges make
any subgraph most of the document) for a large batch of that document's queries. Early stopping
watches the loss of held-out queries whose targets no training query has.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from docgraph.errors import ModelError
from docgraph.models.gnn import GnnConfig, RelationalAdjacency, RelationalGNN
from docgraph.models.graph_tensors import GROUPS, GraphTensors, batch_to_tensors
from docgraph.models.pseudo_queries import PseudoQuery
from docgraph.records import FURNITURE_KINDS, GraphBatch

ProgressFn = Callable[[str, int, int, dict[str, float]], None]  # (phase, done, total, numbers)
ALL_KINDS = "all"  # the row of compare_by_kind over every query


@dataclass(frozen=True)
class TrainConfig:
    epochs: int = 8
    lr: float = 2e-3
    weight_decay: float = 0.05
    temperature: float = 0.05
    batch_queries: int = 2048
    anchor_weight: float = 1.0  # weight of mean(1 - cos(gnn, input)) over all nodes
    max_grad_norm: float = 1.0
    page_positives: bool = False  # count every region on a target's page as a target (page-level retrieval)
    patience: int = 2  # epochs without a better held-out loss before stopping
    min_delta: float = 1e-4
    seed: int = 0
    gnn: GnnConfig = field(default_factory=GnnConfig)


@dataclass(slots=True)
class QuerySet:
    vectors: torch.Tensor  # (Q, D) query embeddings, L2-normalised
    positives: torch.Tensor  # (Q, P) candidate columns of each query's targets, -1 padded
    kinds: list[str]

    @property
    def size(self) -> int:
        return int(self.vectors.shape[0])

    def subset(self, rows: torch.Tensor) -> QuerySet:
        picked = rows.tolist()
        return QuerySet(self.vectors[rows], self.positives[rows], [self.kinds[i] for i in picked])


@dataclass(slots=True)
class DocumentData:
    """One document ready for training: its graph, its candidate regions and its queries."""

    name: str
    graph: GraphTensors
    adjacency: RelationalAdjacency
    candidates: torch.Tensor  # (C,) graph rows of the body regions a query may retrieve
    candidate_pages: torch.Tensor  # (C,) their page numbers
    train: QuerySet
    held_out: QuerySet


@dataclass(slots=True)
class EpochLog:
    epoch: int
    train_loss: float
    held_out_loss: float
    held_out_page_r1: float  # share of held-out queries whose top region is on a target's page
    seconds: float

    def to_json(self) -> dict[str, float]:
        return {
            "epoch": self.epoch,
            "train_loss": round(self.train_loss, 5),
            "held_out_loss": round(self.held_out_loss, 5),
            "held_out_page_r1": round(self.held_out_page_r1, 4),
            "seconds": round(self.seconds, 2),
        }


@dataclass(slots=True)
class TrainResult:
    model: RelationalGNN
    history: list[EpochLog]
    best_epoch: int
    baseline: dict[str, float]  # held-out loss and page R@1 of the input embeddings alone
    by_kind: dict[str, dict[str, float]]  # held-out page R@1 per query kind: input vs GNN


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)


# ---- data ----------------------------------------------------------------------------------


def prepare_document(
    batch: GraphBatch,
    train_queries: Sequence[PseudoQuery],
    train_vectors: np.ndarray,
    held_queries: Sequence[PseudoQuery],
    held_vectors: np.ndarray,
    groups: Sequence[str] = GROUPS,
) -> DocumentData:
    """Tensors for one embedded batch (with its IS_SIMILAR edges) and its embedded queries."""
    graph = batch_to_tensors(batch, groups)
    body = {
        node.key: int(node.props.get("page", 0))
        for node in batch.nodes
        if node.label == "Region" and node.props.get("kind") not in FURNITURE_KINDS
    }
    rows = [(row, ref[1]) for row, ref in enumerate(graph.nodes) if ref[0] == "Region" and ref[1] in body]
    column = {key: position for position, (_, key) in enumerate(rows)}
    return DocumentData(
        name=batch.doc_id,
        graph=graph,
        adjacency=RelationalAdjacency.of(graph),
        candidates=torch.tensor([row for row, _ in rows], dtype=torch.int64),
        candidate_pages=torch.tensor([body[key] for _, key in rows], dtype=torch.int64),
        train=query_set(train_queries, train_vectors, column),
        held_out=query_set(held_queries, held_vectors, column),
    )


def unseen_document(
    batch: GraphBatch, queries: Sequence[PseudoQuery], vectors: np.ndarray, groups: Sequence[str] = GROUPS
) -> DocumentData:
    """A document only scored, never trained on: every query is held out."""
    return prepare_document(batch, [], vectors[:0], queries, vectors, groups)


def query_set(queries: Sequence[PseudoQuery], vectors: np.ndarray, column: dict[str, int]) -> QuerySet:
    """Queries whose targets are all missing from the candidates are dropped."""
    kept: list[int] = []
    targets: list[list[int]] = []
    for index, query in enumerate(queries):
        columns = [column[key] for key in query.positives if key in column]
        if columns:
            kept.append(index)
            targets.append(columns)
    width = max((len(t) for t in targets), default=1)
    positives = torch.full((len(targets), width), -1, dtype=torch.int64)
    for row, columns in enumerate(targets):
        positives[row, : len(columns)] = torch.tensor(columns)
    dim = vectors.shape[1] if vectors.ndim == 2 else 0
    matrix = torch.from_numpy(np.ascontiguousarray(vectors[kept], dtype=np.float32)).reshape(len(kept), dim)
    return QuerySet(matrix, positives, [queries[i].kind for i in kept])


# ---- objective -----------------------------------------------------------------------------


def positive_mask(positives: torch.Tensor, candidates: int) -> torch.Tensor:
    mask = torch.zeros((positives.shape[0], candidates + 1), dtype=torch.bool)
    mask.scatter_(1, torch.where(positives < 0, candidates, positives), True)
    return mask[:, :candidates]


def page_mask(positives: torch.Tensor, pages: torch.Tensor) -> torch.Tensor:
    """(Q, C) bool: the candidates on the page of one of each query's targets."""
    target_pages = torch.where(positives >= 0, pages[positives.clamp(min=0)], -1)  # (Q, P)
    return (pages.view(1, 1, -1) == target_pages.unsqueeze(2)).any(dim=1)


def info_nce(
    queries: torch.Tensor,
    candidates: torch.Tensor,
    positives: torch.Tensor,
    temperature: float,
    pages: torch.Tensor | None = None,
) -> torch.Tensor:
    """Mean multi-positive InfoNCE: -log(sum over targets / sum over all candidates).

    With ``pages`` (each candidate's page), every candidate on a target's page counts as a target.
    """
    logits = queries @ candidates.t() / temperature
    mask = positive_mask(positives, candidates.shape[0])
    if pages is not None:
        mask = mask | page_mask(positives, pages)
    target_logits = logits.masked_fill(~mask, -math.inf)
    return (torch.logsumexp(logits, dim=1) - torch.logsumexp(target_logits, dim=1)).mean()


def anchor_loss(output: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
    """How far the GNN output drifted from the input embedding: mean(1 - cosine)."""
    return (1.0 - F.cosine_similarity(output, inputs, dim=1)).mean()


def page_hits(
    queries: torch.Tensor, candidates: torch.Tensor, positives: torch.Tensor, pages: torch.Tensor
) -> torch.Tensor:
    """(Q,) bool: the best candidate is on the page of one of the query's targets."""
    best = (queries @ candidates.t()).argmax(dim=1)
    target_pages = torch.where(positives >= 0, pages[positives.clamp(min=0)], -1)
    return (target_pages == pages[best].unsqueeze(1)).any(dim=1)


# ---- loop ----------------------------------------------------------------------------------


def train_model(docs: Sequence[DocumentData], config: TrainConfig, progress: ProgressFn | None = None) -> TrainResult:
    """The model of the epoch with the best held-out loss. Refused (``ModelError``) when there is
    nothing to train on or to choose by, or no epoch scored: the caller would save untrained weights."""
    check_trainable(docs, config.epochs)
    seed_everything(config.seed)
    model = RelationalGNN(config.gnn)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    generator = torch.Generator().manual_seed(config.seed)
    baseline = evaluate(None, docs, config)
    history: list[EpochLog] = []
    best_loss, best_state, best_epoch, stale = math.inf, copy.deepcopy(model.state_dict()), 0, 0
    for epoch in range(1, config.epochs + 1):
        started = _clock()
        train_loss = run_epoch(model, optimizer, docs, config, generator, epoch, progress)
        scores = evaluate(model, docs, config)
        history.append(EpochLog(epoch, train_loss, scores["loss"], scores["page_r1"], _clock() - started))
        if progress:
            progress("epoch", epoch, config.epochs, history[-1].to_json())
        if scores["loss"] < best_loss - config.min_delta:
            best_loss, best_state, best_epoch, stale = scores["loss"], copy.deepcopy(model.state_dict()), epoch, 0
        else:
            stale += 1
            if stale >= config.patience:
                break
    if best_epoch == 0:
        raise ModelError("no epoch gave a held-out loss to keep (it was not a number): nothing was saved")
    model.load_state_dict(best_state)
    model.eval()
    return TrainResult(model, history, best_epoch, baseline, compare_by_kind(model, docs))


def check_trainable(docs: Sequence[DocumentData], epochs: int) -> None:
    if epochs < 1:
        raise ModelError(f"epochs must be at least 1, not {epochs}")
    if not sum(doc.train.size for doc in docs):
        raise ModelError("no training queries came out of these documents: give more (or longer) PDFs")
    if not sum(doc.held_out.size for doc in docs):
        raise ModelError(
            "no held-out queries came out of these documents (about one query in ten is held out to choose "
            "the epoch by): give more (or longer) PDFs"
        )


def run_epoch(
    model: RelationalGNN,
    optimizer: torch.optim.Optimizer,
    docs: Sequence[DocumentData],
    config: TrainConfig,
    generator: torch.Generator,
    epoch: int,
    progress: ProgressFn | None,
) -> float:
    """One pass over every training query; returns the mean step loss."""
    steps: list[tuple[int, torch.Tensor]] = []
    for index, doc in enumerate(docs):
        order = torch.randperm(doc.train.size, generator=generator)
        steps += [(index, order[i : i + config.batch_queries]) for i in range(0, doc.train.size, config.batch_queries)]
    shuffled = torch.randperm(len(steps), generator=generator).tolist()
    model.train()
    losses: list[float] = []
    for done, step in enumerate(shuffled, 1):
        doc, rows = docs[steps[step][0]], steps[step][1]
        queries = doc.train.subset(rows)
        output = model(doc.graph.x, doc.adjacency, doc.graph.node_kind)
        pages = doc.candidate_pages if config.page_positives else None
        loss = info_nce(queries.vectors, output[doc.candidates], queries.positives, config.temperature, pages)
        loss = loss + config.anchor_weight * anchor_loss(output, doc.graph.x)
        optimizer.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
        optimizer.step()
        losses.append(float(loss.item()))
        if progress:
            progress("step", done, len(shuffled), {"epoch": epoch, "loss": losses[-1]})
    return float(np.mean(losses)) if losses else math.nan


def evaluate(model: RelationalGNN | None, docs: Sequence[DocumentData], config: TrainConfig) -> dict[str, float]:
    """Held-out InfoNCE loss and page R@1; ``model=None`` scores the input embeddings themselves."""
    total_loss, hits, count = 0.0, 0, 0
    for doc in docs:
        if doc.held_out.size == 0:
            continue
        output = _outputs(model, doc)
        candidates = output[doc.candidates]
        pages = doc.candidate_pages if config.page_positives else None
        loss = info_nce(doc.held_out.vectors, candidates, doc.held_out.positives, config.temperature, pages)
        total_loss += float(loss) * doc.held_out.size
        hits += int(page_hits(doc.held_out.vectors, candidates, doc.held_out.positives, doc.candidate_pages).sum())
        count += doc.held_out.size
    return {"loss": total_loss / count if count else math.nan, "page_r1": hits / count if count else math.nan}


def compare_by_kind(model: RelationalGNN, docs: Sequence[DocumentData]) -> dict[str, dict[str, float]]:
    """Held-out page R@1 per query kind and over ``all`` queries, input embeddings vs GNN embeddings."""
    tally: dict[str, list[int]] = {}  # kind -> [count, input hits, gnn hits]
    for doc in docs:
        held = doc.held_out
        if held.size == 0:
            continue
        plain = page_hits(held.vectors, doc.graph.x[doc.candidates], held.positives, doc.candidate_pages)
        gnn = page_hits(held.vectors, _outputs(model, doc)[doc.candidates], held.positives, doc.candidate_pages)
        for kind, a, b in zip(held.kinds, plain.tolist(), gnn.tolist(), strict=True):
            for key in (kind, ALL_KINDS):
                entry = tally.setdefault(key, [0, 0, 0])
                entry[0] += 1
                entry[1] += int(a)
                entry[2] += int(b)
    return {
        kind: {"queries": n, "input_page_r1": round(a / n, 4), "gnn_page_r1": round(b / n, 4)}
        for kind, (n, a, b) in sorted(tally.items(), key=lambda item: (item[0] != ALL_KINDS, item[0]))
    }


def _outputs(model: RelationalGNN | None, doc: DocumentData) -> torch.Tensor:
    if model is None:
        return doc.graph.x
    model.eval()
    with torch.no_grad():
        vectors: torch.Tensor = model(doc.graph.x, doc.adjacency, doc.graph.node_kind)
    return vectors


def _clock() -> float:
    import time

    return time.perf_counter()


def training_summary(result: TrainResult) -> dict[str, Any]:
    return {
        "best_epoch": result.best_epoch,
        "history": [log.to_json() for log in result.history],
        "baseline": {k: round(v, 5) for k, v in result.baseline.items()},
        "by_kind": result.by_kind,
    }
