"""Citations in an answer: ``[doc p.N #rK]`` tags, checked against the context the model was given.

A tag that names a region of the context becomes a :class:`Citation` (document, page, bbox, region
id). A tag that names anything else was invented: it is removed from the answer and counted, so a
reader never follows a citation to a region the model did not see.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from docgraph.app.llm.context import Context, Passage

# A bracket holding at least one "#": a citation group such as "[a p.3 #r5]" or "[a p.3 #r5; b p.1 #r0]".
_GROUP = re.compile(r"\s?\[([^\[\]]*#[^\[\]]*)\]")
# One tag inside a group; commas between its parts are tolerated ("zoo, p.1, #r1").
_TAG = re.compile(r"(?P<doc>[A-Za-z0-9][\w.-]*)[\s,]+p\.?\s*(?P<page>\d+)[\s,]*#(?P<ref>[\w@:.-]*\w)")


@dataclass(frozen=True, slots=True)
class Citation:
    region_id: str
    doc_id: str
    page: int
    bbox: tuple[float, ...]
    kind: str
    tag: str
    ocr: bool = False  # the region's text was (partly) read by OCR

    @classmethod
    def of(cls, passage: Passage, tag: str) -> Citation:
        return cls(passage.region_id, passage.doc_id, passage.page, passage.bbox, passage.kind, tag, passage.ocr)

    def to_json(self) -> dict[str, Any]:
        return {
            "region_id": self.region_id,
            "doc_id": self.doc_id,
            "page": self.page,
            "bbox": list(self.bbox),
            "kind": self.kind,
            "tag": self.tag,
            "ocr": self.ocr,
        }


@dataclass
class CheckedAnswer:
    text: str  # the answer with invented tags removed and valid ones in canonical form
    citations: list[Citation] = field(default_factory=list)  # distinct, in order of first mention
    removed: list[str] = field(default_factory=list)  # the invented tags, as written


def check_citations(answer: str, context: Context) -> CheckedAnswer:
    """Keep the tags that name a context region, drop and count the others."""
    checked = CheckedAnswer(text="")
    seen: set[str] = set()

    def rewrite(match: re.Match[str]) -> str:
        kept: list[str] = []
        tags = list(_TAG.finditer(match.group(1)))
        if not tags:
            checked.removed.append(match.group(1).strip())
        for tag_match in tags:
            passage = context.resolve(tag_match.group("doc"), int(tag_match.group("page")), tag_match.group("ref"))
            if passage is None:
                checked.removed.append(tag_match.group(0).strip())
                continue
            tag = context.tag_of(passage)
            kept.append(f"[{tag}]")
            if passage.region_id not in seen:
                seen.add(passage.region_id)
                checked.citations.append(Citation.of(passage, tag))
        leading = " " if match.group(0).startswith(" ") else ""
        return leading + "".join(kept) if kept else ""

    checked.text = _GROUP.sub(rewrite, answer).strip()
    return checked


def cite_passages(passages: list[Passage], context: Context) -> list[Citation]:
    """Citations of passages chosen directly (extractive answers), each once."""
    unique = {p.region_id: p for p in passages}
    return [Citation.of(p, context.tag_of(p)) for p in unique.values()]
