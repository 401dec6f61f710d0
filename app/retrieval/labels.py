"""Where the figure and table labels a question names are: "What does Figure 3 show?" is about the
caption "Figure 3: ..." and what it captions (CAPTION_OF), a table with every part it runs on to
over page breaks; under a bare caption ("FIG. 4", as patent drawings print them), also the passages
that refer to it (REF: "FIG. 4 is a flow chart of ..."). The hybrid gives its kind bonus to those
regions only, for each kind of which a named label was found (:func:`app.retrieval.hybrid.fuse`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from docgraph.app.retrieval.kinds import label_key
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore
from docgraph.ingest.links.edges import caption_label

Label = tuple[str, str]  # (kind, number) as :func:`app.retrieval.kinds.label_key` gives it


@dataclass(frozen=True, slots=True)
class LabelledPlaces:
    """The regions of the labels a question names (captions and what they caption), and the kinds
    of which a named label was found: the kind bonus of those kinds goes to these regions only."""

    regions: frozenset[str]
    kinds: frozenset[str]


@dataclass(frozen=True, slots=True)
class Captions:
    """One document's labelled captions: label -> the regions of each caption of it (the caption,
    what it captions, and the parts of a table it captions)."""

    by_label: dict[Label, list[frozenset[str]]]


def load_captions(store: GraphStore, doc_id: str, referrers: dict[str, set[str]]) -> Captions:
    """``doc_id``'s labelled captions; ``referrers`` (region id -> the regions whose REF edges point
    at it, as the corpus loads them with the document's references) gives a bare caption's."""
    params = {"doc_id": doc_id}
    after: dict[str, str] = {}
    for row in store.read(cypher.load("retrieval_doc_table_parts", store.dialect), params):
        after[str(row["region_id"])] = str(row["next_id"])
    before = {part: previous for previous, part in after.items()}
    by_label: dict[Label, list[frozenset[str]]] = {}
    for row in store.read(cypher.load("retrieval_doc_captions", store.dialect), params):
        label = caption_label(str(row["caption"] or ""))
        if label is not None:
            target = str(row["target_id"])
            parts = {str(row["caption_id"]), *_chain(target, before), *_chain(target, after)}
            if label.bare:  # "FIG. 4" alone: what the figure shows is said where the text refers to it
                parts |= referrers.get(target, set())
            by_label.setdefault(label_key(label.kind, label.number), []).append(frozenset(parts))
    return Captions(by_label)


def _chain(start: str, step: dict[str, str]) -> list[str]:
    """``start`` and the parts ``step`` leads to from it, each once."""
    chain = [start]
    while chain[-1] in step and step[chain[-1]] not in chain:
        chain.append(step[chain[-1]])
    return chain


def labelled_places(labels: Iterable[Label], documents: Iterable[Captions]) -> LabelledPlaces | None:
    """Where ``labels`` are in ``documents``; None when none of them is found."""
    regions: set[str] = set()
    kinds: set[str] = set()
    for captions in documents:
        for label in labels:
            for places in captions.by_label.get(label, []):
                regions |= places
                kinds.add(label[0])
    return LabelledPlaces(frozenset(regions), frozenset(kinds)) if regions else None
