"""Training the cross-encoder on ranked groups: a question, the passage that answers it and the
hard negatives a retriever put near it.

The loss is listwise (softmax cross-entropy with the answer first), so the model learns to order a
retriever's candidates, which is all it is asked to do. The frozen layers' output of every pair is
computed once; epochs run only the trained layers. The epoch with the best held-out ordering is
kept.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from docgraph.errors import ModelError
from docgraph.models.cross_encoder import CrossEncoder, CrossEncoderConfig, FrozenStates
from docgraph.models.runtimes import process_threads

ProgressFn = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class RankedGroup:
    """A question and its candidates: ``passages[0]`` answers it, the rest do not.
    ``retriever_rank`` is where the retriever put the answer among them (0 = first)."""

    query: str
    passages: tuple[str, ...]
    kind: str
    retriever_rank: int


@dataclass(frozen=True, slots=True)
class RerankTrainConfig:
    epochs: int = 2
    learning_rate: float = 1e-4  # the trained layers
    head_learning_rate: float = 1e-3  # the scoring head, which starts from random weights
    groups_per_step: int = 4
    weight_decay: float = 0.01
    seed: int = 0


@dataclass
class RerankEpoch:
    epoch: int
    loss: float
    held_out: dict[str, float]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "loss": round(self.loss, 4), "held_out": self.held_out, "seconds": self.seconds}


@dataclass
class RerankTrainResult:
    history: list[RerankEpoch] = field(default_factory=list)
    best_epoch: int = 0
    baseline: dict[str, float] = field(default_factory=dict)  # the retriever's own order, held out
    untrained: dict[str, float] = field(default_factory=dict)  # the model before training, held out

    def to_json(self) -> dict[str, Any]:
        return {
            "history": [epoch.to_json() for epoch in self.history],
            "best_epoch": self.best_epoch,
            "baseline": self.baseline,
            "untrained": self.untrained,
        }


def cache_states(
    model: CrossEncoder, groups: Sequence[RankedGroup], progress: ProgressFn | None = None
) -> list[list[FrozenStates]]:
    """The frozen layers' output for every pair of every group."""
    torch.set_num_threads(process_threads())
    cached = []
    for done, group in enumerate(groups, 1):
        cached.append(model.frozen_states(group.query, group.passages))
        if progress:
            progress("cache", done, len(groups))
    return cached


def new_cross_encoder(seed: int) -> CrossEncoder:
    """The model to train, its scoring head drawn from ``seed``: a run repeats with its seed (the
    head was drawn before the seed was set, so two runs of one seed differed)."""
    torch.manual_seed(seed)
    return CrossEncoder(CrossEncoderConfig())


def train_cross_encoder(
    model: CrossEncoder,
    train: Sequence[list[FrozenStates]],
    held: Sequence[list[FrozenStates]],
    held_groups: Sequence[RankedGroup],
    config: RerankTrainConfig,
    progress: ProgressFn | None = None,
) -> RerankTrainResult:
    """Train ``model`` in place; it ends with the weights of the best held-out epoch. Refused
    (``ModelError``) without held-out groups, or when no epoch beat the untrained model: the
    caller would save a random scoring head."""
    if not held or not train:
        raise ModelError("no training or no held-out question groups came out of these documents: give more PDFs")
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    optimizer = torch.optim.AdamW(
        [
            {"params": model.trained_layer_parameters(), "lr": config.learning_rate},
            {"params": list(model.head.parameters()), "lr": config.head_learning_rate},
        ],
        weight_decay=config.weight_decay,
    )
    result = RerankTrainResult(
        baseline=ordering_scores([g.retriever_rank for g in held_groups]),
        untrained=ordering_scores(answer_ranks(model, held)),
    )
    best, best_state = result.untrained["mrr"], copy.deepcopy(model.state_dict())
    steps = (len(train) + config.groups_per_step - 1) // config.groups_per_step
    for epoch in range(1, config.epochs + 1):
        started, losses = time.perf_counter(), []
        model.train()
        order = rng.permutation(len(train))
        for step in range(steps):
            chosen = [train[i] for i in order[step * config.groups_per_step : (step + 1) * config.groups_per_step]]
            loss = _listwise_loss(model, chosen)
            optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
            losses.append(float(loss.detach()))
            if progress:
                progress(f"epoch {epoch}", step + 1, steps)
        model.eval()
        held_out = ordering_scores(answer_ranks(model, held))
        result.history.append(
            RerankEpoch(epoch, float(np.mean(losses)), held_out, round(time.perf_counter() - started, 1))
        )
        if held_out["mrr"] > best:
            best, best_state, result.best_epoch = held_out["mrr"], copy.deepcopy(model.state_dict()), epoch
    if result.best_epoch == 0:
        raise ModelError(
            f"no epoch beat the untrained reranker's held-out MRR ({result.untrained['mrr']:.3f}): nothing was saved"
        )
    model.load_state_dict(best_state)
    model.eval()
    return result


def _listwise_loss(model: CrossEncoder, groups: Sequence[list[FrozenStates]]) -> torch.Tensor:
    flat = [state for group in groups for state in group]
    scores = model.score_states(flat)
    losses, start = [], 0
    for group in groups:
        logits = scores[start : start + len(group)]
        start += len(group)
        losses.append(nn.functional.cross_entropy(logits[None, :], torch.zeros(1, dtype=torch.long)))
    return torch.stack(losses).mean()


def answer_ranks(model: CrossEncoder, groups: Sequence[list[FrozenStates]]) -> list[int]:
    """Where the model puts each group's answer among its candidates (0 = first)."""
    ranks = []
    with torch.no_grad():
        for group in groups:
            scores = model.score_states(group)
            ranks.append(int((scores[1:] > scores[0]).sum()))
    return ranks


def ordering_scores(ranks: Sequence[int]) -> dict[str, float]:
    """First-place rate and mean reciprocal rank of the answers, in percent and as a fraction."""
    if not ranks:
        return {"first": 0.0, "mrr": 0.0}
    array = np.asarray(ranks)
    return {"first": round(100.0 * float(np.mean(array == 0)), 1), "mrr": round(float(np.mean(1.0 / (array + 1))), 4)}


def config_json(config: RerankTrainConfig) -> dict[str, Any]:
    return asdict(config)
