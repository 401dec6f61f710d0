"""Uncertainty-guided generation: re-read with more evidence while the model is unsure.

When the endpoint returns token log-probabilities, the mean token entropy of an answer measures how
sure the model was. Above the model's threshold (app.llm.calibration: the setting, else the model's
calibrated one, else 0.6 nats) the answer is treated as uncertain and
the question is asked again with more evidence: the next-ranked retrieved regions (with their graph
context) and the reading-order neighbours of the regions already used, up to
``settings.llm_max_rereads`` times. Without log-probabilities the first answer stands.

The evidence finally reported is pruned to the smallest set the answer rests on: the regions it
cites, or the whole context when it cites none.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from docgraph.app.config import Settings
from docgraph.app.llm.answer import AnswerResult, Extras, generate_answer
from docgraph.app.llm.calibration import EntropyThreshold, entropy_threshold
from docgraph.app.llm.citations import CheckedAnswer
from docgraph.app.llm.client import LLMClient, StreamCallback, TokenLogprob
from docgraph.app.llm.context import Context, Passage, build_context, first_groups, reading_neighbours
from docgraph.app.llm.focus import focus_passages
from docgraph.app.stores.base import GraphStore
from docgraph.errors import LLMRequestError, LLMUnavailableError

REREAD_NOTICE = "\n\n[uncertain (mean token entropy {entropy:.2f}): re-reading with more evidence]\n\n"
KEPT_MARK = "kept:]\n\n"  # how a kept round's notices end: its answer follows, as checked
KEPT_NOTICE = "\n\n[the answer of round {round} was the most certain (mean token entropy {entropy:.2f}); " + KEPT_MARK
CUT_NOTICE = "\n\n[{error}; the answer of round {round} is " + KEPT_MARK


def shows_kept_answer(streamed: str, answer: str) -> bool:
    """Whether a stream ended with a kept round's notice and ``answer`` after it, as checked."""
    answer = answer.strip()
    return bool(answer) and KEPT_MARK in streamed and streamed.rstrip().endswith(answer)


def token_entropy(entry: TokenLogprob) -> float:
    """Entropy (nats) of one token's distribution over its top alternatives; the probability mass
    outside them counts as one more outcome, so a flat distribution is never under-counted to zero.
    Without alternatives, the chosen token's surprisal stands in for it.
    """
    if not entry.top:
        return -entry.logprob
    probabilities = [math.exp(lp) for lp in entry.top]
    entropy = -sum(p * lp for p, lp in zip(probabilities, entry.top, strict=True))
    rest = 1.0 - sum(probabilities)
    if rest > 1e-9:
        entropy -= rest * math.log(rest)
    return max(0.0, entropy)


def mean_token_entropy(logprobs: Sequence[TokenLogprob] | None) -> float | None:
    if not logprobs:
        return None
    return sum(token_entropy(entry) for entry in logprobs) / len(logprobs)


def answer_with_rereads(
    result: AnswerResult,
    question: str,
    groups: Sequence[Sequence[Passage]],
    k: int,
    store: GraphStore,
    client: LLMClient,
    settings: Settings,
    extras: Extras = Extras(),
    stream: StreamCallback | None = None,
) -> tuple[CheckedAnswer, Context]:
    """Answer from the first ``k`` groups; while uncertain, add evidence and answer again. The most
    certain round's answer is kept (a later round read more, which can also lead a model astray)."""
    used = first_groups(groups, k)
    next_group = k
    rounds: list[tuple[float, CheckedAnswer, Context]] = []
    threshold = entropy_threshold(settings)
    result.note("uncertainty", threshold=threshold.value, threshold_from=threshold.source)
    while True:
        context = build_context(focus_passages(used, question, settings.context_focus))
        try:
            completion, checked = generate_answer(
                question, context, client, extras=extras, stream=stream, logprobs=True
            )
        except (LLMUnavailableError, LLMRequestError) as error:  # a reread cut short, refused (its longer
            if not rounds:  # context past the model's) or unreachable: the rounds answered still stand
                raise
            return _kept_after_failure(result, rounds, error, stream)
        result.tokens.add(completion)
        entropy = mean_token_entropy(completion.logprobs)
        result.entropy = entropy
        step = {"round": result.rereads, "passages": len(context.passages), "entropy": _rounded(entropy)}
        stop = _stop_reason(entropy, result.rereads, threshold, settings.llm_max_rereads)
        added: list[Passage] = []
        if stop is None:
            added, next_group = _more_evidence(used, groups, next_group, k, store)
            stop = None if added else "no more evidence"
        result.note("generate", **step, outcome=stop or "reread", added=len(added))
        if entropy is not None:
            rounds.append((entropy, checked, context))
        if stop is not None:
            return _most_certain(result, rounds, stream) if len(rounds) > 1 else (checked, context)
        if stream is not None and entropy is not None:
            stream(REREAD_NOTICE.format(entropy=entropy))
        used += added
        result.rereads += 1


def _most_certain(
    result: AnswerResult, rounds: list[tuple[float, CheckedAnswer, Context]], stream: StreamCallback | None
) -> tuple[CheckedAnswer, Context]:
    """The round with the lowest entropy (the latest of equals: it read more); told to the stream
    when it is not the last, whose answer the stream showed."""
    best = min(range(len(rounds)), key=lambda i: (rounds[i][0], -i))
    entropy, checked, context = rounds[best]
    result.entropy = entropy
    result.note("kept", round=best, entropy=_rounded(entropy))
    if stream is not None and best != len(rounds) - 1:
        stream(KEPT_NOTICE.format(round=best + 1, entropy=entropy) + checked.text)
    return checked, context


def _kept_after_failure(
    result: AnswerResult,
    rounds: list[tuple[float, CheckedAnswer, Context]],
    error: LLMUnavailableError | LLMRequestError,
    stream: StreamCallback | None,
) -> tuple[CheckedAnswer, Context]:
    """The most certain of the rounds answered before the endpoint stopped; the stream, which showed
    part of the round cut short, is told and shown the kept answer whole."""
    best = min(range(len(rounds)), key=lambda i: (rounds[i][0], -i))
    entropy, checked, context = rounds[best]
    result.entropy = entropy
    result.note("kept", round=best, entropy=_rounded(entropy), reason=str(error))
    if stream is not None:
        stream(CUT_NOTICE.format(error=error, round=best + 1) + checked.text)
    return checked, context


def prune_evidence(context: Context, checked: CheckedAnswer) -> list[Passage]:
    """The smallest evidence set the answer rests on: its cited regions, else the whole context."""
    cited = {citation.region_id for citation in checked.citations}
    return [p for p in context.passages if p.region_id in cited] or list(context.passages)


def _stop_reason(entropy: float | None, rereads: int, threshold: EntropyThreshold, max_rereads: int) -> str | None:
    if entropy is None:
        return "no logprobs from the endpoint"
    if entropy <= threshold.value:
        return "confident"
    if rereads >= max_rereads:
        return "reread limit"
    return None


def _more_evidence(
    used: list[Passage], groups: Sequence[Sequence[Passage]], next_group: int, k: int, store: GraphStore
) -> tuple[list[Passage], int]:
    """The next ``k`` ranked groups and the reading neighbours of the retrieved regions in use."""
    seen = {p.region_id for p in used}
    added = [p for group in groups[next_group : next_group + k] for p in group if p.region_id not in seen]
    seen |= {p.region_id for p in added}
    retrieved = [p.region_id for p in used if p.via == "retrieved"]
    added += [p for p in reading_neighbours(store, retrieved) if p.region_id not in seen]
    return added, next_group + k


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
