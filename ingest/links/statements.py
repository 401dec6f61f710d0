"""A mathematics text's numbered statements: "Theorem 3.2 (Mean value theorem). Let f ...",
"Lemma 2.1.", "Exercise 4.3." and the proofs that follow them.

A statement is a paragraph that opens with its run-in head: a statement word, its number, then the
head's end (a full stop, a colon, or the bracketed title). "By Theorem 3.2" in the text, and a
question naming "Theorem 3.2", point at it (REF edges, named parts). A paragraph opening "Proof."
belongs to the statement just before it ("Proof of Theorem 3.2." to the one it names); a proof set
over several paragraphs runs on to the one that ends in its end mark, when one is printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

# Statement kind -> its words, as the text names it (singular and plural, as a reference lists them).
STATEMENT_WORDS: dict[str, str] = {
    "theorem": r"Theorems?|THEOREMS?|theorems?|Thm\.",
    "lemma": r"Lemmas?|LEMMAS?|lemmas?|Lemmata|lemmata",
    "proposition": r"Propositions?|PROPOSITIONS?|propositions?|Prop\.",
    "corollary": r"Corollar(?:y|ies)|COROLLAR(?:Y|IES)|corollar(?:y|ies)|Cor\.",
    "definition": r"Definitions?|DEFINITIONS?|definitions?|Def\.",
    "example": r"Examples?|EXAMPLES?|examples?",
    "exercise": r"Exercises?|EXERCISES?|exercises?",
    "problem": r"Problems?|PROBLEMS?|problems?",
    "remark": r"Remarks?|REMARKS?|remarks?",
    "conjecture": r"Conjectures?|CONJECTURES?|conjectures?",
}
STATEMENT_KINDS = frozenset(STATEMENT_WORDS)
STATEMENT_NUMBER = r"\d{1,3}(?:\.\d{1,3}){0,3}[a-z]?"
STATEMENT_KINDS_OF_REGION = frozenset({"paragraph", "list"})
_HEAD = re.compile(
    r"^(?P<word>Theorem|Lemma|Proposition|Corollary|Definition|Example|Exercise|Problem|Remark|Conjecture"
    r"|THEOREM|LEMMA|PROPOSITION|COROLLARY|DEFINITION|EXAMPLE|EXERCISE|PROBLEM|REMARK|CONJECTURE)"
    rf"\s+(?P<number>{STATEMENT_NUMBER})(?=\s*[.:(]|\s*$)"
)
_HEAD_END = re.compile(r"\s*(?:\([^()]{1,80}\))?\s*[.:]?\s*")  # a title in brackets, the head's stop
_PROOF = re.compile(r"^(?:Proof|PROOF)(?:\s+of\s+(?P<word>[A-Za-z]+)\s+(?P<number>" + STATEMENT_NUMBER + r"))?\s*[.:]")
# An Exercises (Problems) section numbers its exercises without the word: "3.4. Show that ...".
_EXERCISES_TITLE = re.compile(r"^(?:[\dA-Z]{1,3}(?:\.\d{1,3})*\.?\s+)?(?i:exercises|problems)\b")
_BARE_NUMBER = re.compile(rf"^({STATEMENT_NUMBER})[.)]\s+\S", re.MULTILINE)
# Answers (solutions, hints) to the exercises, at the back of the book or of a chapter, each opening
# with its exercise's number: "3.5  The function ..."
_ANSWERS_TITLE = re.compile(r"^(?:[\dA-Z]{1,3}(?:\.\d{1,3})*\.?\s+)?(?i:answers|solutions|hints)\b")
_ANSWER_NUMBER = re.compile(rf"^({STATEMENT_NUMBER})[.)]?\s+\S")
HEADING_KINDS = frozenset({"section_header", "title"})
PROOF_END_MARKS = "∎□■▫◻◼"
MAX_PROOF_REGIONS = 12  # a proof's paragraphs and displays, up to its end mark
PROOF_BODY_KINDS = frozenset({"paragraph", "list", "formula"})

Statement = tuple[str, str]  # (kind, canonical number)


def statement_head(text: str) -> Statement | None:
    """The statement a paragraph's run-in head opens ("Theorem 3.2 (Mean value theorem). ...")."""
    match = _HEAD.match(text)
    if match is None:
        return None
    return match.group("word").lower(), match.group("number").lower()


def head_alone(text: str) -> bool:
    """Whether ``text`` is a statement's head and nothing more: "Theorem 3.2 (Mean value theorem)",
    set alone on its line over its body (amsthm's ``break`` style). It is no heading."""
    match = _HEAD.match(text)
    return match is not None and _HEAD_END.fullmatch(text, match.end()) is not None


def index_statement(
    statements: dict[Statement, list[tuple[int, int, str]]], key: str, kind: str, text: str, part: int
) -> None:
    """``key`` as its statement's target, when the region opens with a statement's head."""
    head = statement_head(text) if kind in STATEMENT_KINDS_OF_REGION else None
    if head is not None:
        statements.setdefault(head, []).append((0, part, key))


def index_statements(
    statements: dict[Statement, list[tuple[int, int, str]]], regions: Iterable[tuple[str, str, str, int]]
) -> None:
    """Each region (key, kind, text, part; in document order) that opens with a statement's head as
    its target (:func:`index_statement`), and in an Exercises section each paragraph or list item
    numbered without the word ("3.4. Show that ...") as that exercise's."""
    in_exercises = False
    for key, kind, text, part in regions:
        if kind in HEADING_KINDS:
            in_exercises = _EXERCISES_TITLE.match(text) is not None
            continue
        index_statement(statements, key, kind, text, part)
        if in_exercises and kind in STATEMENT_KINDS_OF_REGION:
            for match in _BARE_NUMBER.finditer(text) if kind == "list" else [_BARE_NUMBER.match(text)]:
                if match:
                    statements.setdefault(("exercise", match.group(1).lower()), []).append((0, part, key))


def proofs(regions: Sequence[tuple[str, str, str]]) -> dict[str, list[str]]:
    """Statement region id -> the ids of its proof's regions, from ``regions`` (id, kind, text) in
    document order: a proof opening "Proof of Theorem 3.2." belongs to that statement, a plain
    "Proof." to the statement just before it (nothing but displays between)."""
    heads: dict[Statement, str] = {}
    found: dict[str, list[str]] = {}
    last: str | None = None  # the statement the text is still in
    for row, (region_id, kind, text) in enumerate(regions):
        head = statement_head(text) if kind in STATEMENT_KINDS_OF_REGION else None
        if head is not None:
            heads.setdefault(head, region_id)
            last = region_id
            continue
        proof = _PROOF.match(text) if kind in STATEMENT_KINDS_OF_REGION else None
        if proof is None:
            if kind != "formula":
                last = None
            continue
        named = proof.group("word")
        owner = heads.get((named.lower(), proof.group("number").lower())) if named else last
        if owner is not None:
            found.setdefault(owner, []).extend(_proof_regions(regions, row))
        last = None
    return found


def answers(regions: Sequence[tuple[str, str, str]]) -> dict[str, list[str]]:
    """An exercise's region id -> the ids of its answers, from ``regions`` (id, kind, text) in
    document order: a paragraph under an Answers (Solutions, Hints) heading that opens with the
    number of an exercise or problem ("3.5  The function ...") answers it."""
    targets: dict[Statement, list[tuple[int, int, str]]] = {}
    index_statements(targets, ((region_id, kind, text, 0) for region_id, kind, text in regions))
    exercises = {number: found[0][2] for (kind, number), found in targets.items() if kind in ("exercise", "problem")}
    found: dict[str, list[str]] = {}
    in_answers = False
    for region_id, kind, text in regions:
        if kind in HEADING_KINDS:
            in_answers = _ANSWERS_TITLE.match(text) is not None
            continue
        match = _ANSWER_NUMBER.match(text) if in_answers and kind in STATEMENT_KINDS_OF_REGION else None
        exercise = exercises.get(match.group(1).lower()) if match else None
        if exercise is not None:
            found.setdefault(exercise, []).append(region_id)
    return found


def _proof_regions(regions: Sequence[tuple[str, str, str]], start: int) -> Iterable[str]:
    """The proof opening at ``start``: that region, and on to the one ending in an end mark if one
    follows before another statement or proof begins."""
    taken = [regions[start][0]]
    if _ends_proof(regions[start][2]):
        return taken
    for region_id, kind, text in regions[start + 1 : start + MAX_PROOF_REGIONS]:
        if kind not in PROOF_BODY_KINDS or statement_head(text) or _PROOF.match(text):
            break
        taken.append(region_id)
        if _ends_proof(text):
            return taken
    return taken[:1]


def _ends_proof(text: str) -> bool:
    return text.rstrip()[-1:] in PROOF_END_MARKS if text.strip() else False


def mention_patterns() -> dict[str, tuple[str, str, str]]:
    """Each statement kind's (keyword pattern, number pattern, REF label) for :mod:`mentions`:
    "by Theorem 3.2", "Lemmas 2.1 and 2.3", "Thm. 4"."""
    number = rf"{STATEMENT_NUMBER}(?![\w.]\d|\w)"
    return {
        kind: (rf"\b(?:{words})(?:(?<=\.)\s*|\s+)", number, kind.capitalize())
        for kind, words in STATEMENT_WORDS.items()
    }
