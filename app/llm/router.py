"""Query routing (after BookRAG): pick how a question is answered before answering it.

- ``cypher``: structural or aggregate questions ("how many tables in chapter 3") are answered by a
  generated, read-only graph query;
- ``retrieve``: single-hop questions go to hybrid retrieval;
- ``decompose``: multi-hop and comparative questions are split into sub-questions, each retrieved,
  and the evidence combined.

An LLM classifies when an endpoint is configured; the rules below decide otherwise, and also when
the model's reply cannot be read. The decision and who made it go into the answer's trace.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from docgraph.app.llm.client import LLMClient, TokenUsage
from docgraph.app.llm.prompting import template
from docgraph.errors import LLMRequestError

Route = Literal["cypher", "retrieve", "decompose"]
ROUTES: tuple[Route, ...] = ("cypher", "retrieve", "decompose")
MAX_SUB_QUESTIONS = 4
ROUTER_MAX_TOKENS = 300  # a decision is a short JSON object; its sub-questions need the rest

_PARTS = (
    r"tables?|figures?|images?|diagrams?|sections?|chapters?|subsections?|pages?|documents?|captions?"
    r"|headings?|footnotes?|formulas?|equations?|code (?:blocks?|listings?)|lists?|paragraphs?|regions?"
)
# "Which file does the database read first?" asks what the text says about a file, not which
# stored documents there are, so "file" is no part noun after "which"/"what".
_PART_NOUNS = rf"({_PARTS})"
_STRUCTURE_NOUNS = rf"({_PARTS}|files?)"
_AGGREGATE = re.compile(
    rf"\b(?:how many|number of|count(?: of)?(?: the)?|total (?:number|count) of) "
    rf"(?:[\w-]+ ){{0,2}}{_STRUCTURE_NOUNS}\b",
    re.IGNORECASE,
)
_STRUCTURE_LIST = re.compile(
    rf"\b((?:list|name|enumerate|show)(?: me)?(?: all| every| each)?(?: of)?(?: the)? {_STRUCTURE_NOUNS}"
    rf"|(?:which|what) {_PART_NOUNS} (?:are|is|does|do|appear|exist|contain)"
    rf"|table of contents|outline of|(?:longest|shortest|largest|biggest|smallest) {_STRUCTURE_NOUNS}"
    rf"|{_STRUCTURE_NOUNS} (?:in|on|of|under) (?:chapter|section|page) [\w.]+)\b",
    re.IGNORECASE,
)
_COMPARATIVE = re.compile(
    r"\b(compare[sd]?|comparison|comparing|differ(?:s|ence|ences|ent)?|versus|vs\.?|contrast|similarit(?:y|ies)"
    r"|relationship between|both .+ and|whereas|better than|worse than|more than .+ or)\b",
    re.IGNORECASE,
)
_BETWEEN = re.compile(r"\bbetween (?P<a>.+?) and (?P<b>.+?)[?.!]*$", re.IGNORECASE)
_COMPARE = re.compile(r"\bcompare (?P<a>.+?) (?:and|with|to|vs\.?|versus) (?P<b>.+?)[?.!]*$", re.IGNORECASE)
_DIFFER = re.compile(
    r"\b(?:how|in what ways?) (?:does|do|did|is|are) (?P<a>.+?) (?:differ|compare|different) (?:from|to|with) "
    r"(?P<b>.+?)[?.!]*$",
    re.IGNORECASE,
)
_WH_JOIN = re.compile(r",? and (?=(?:what|how|why|when|where|which|who|does|do|is|are|can)\b)", re.IGNORECASE)


@dataclass
class RouteDecision:
    route: Route
    by: str  # llm | rules | forced
    reason: str = ""
    sub_questions: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"route": self.route, "by": self.by, "reason": self.reason, "sub_questions": self.sub_questions}


def route_question(question: str, client: LLMClient | None, usage: TokenUsage | None = None) -> RouteDecision:
    """The LLM's decision when there is a client and its reply is usable, else the rules'.

    The classifier's tokens are added to ``usage`` when given.
    """
    if client is None:
        return classify_by_rules(question)
    try:
        reply = client.chat(
            [{"role": "system", "content": template("router")}, {"role": "user", "content": question}],
            max_tokens=ROUTER_MAX_TOKENS,
        )
        if usage is not None:
            usage.add(reply)
        decision = parse_decision(reply.text, question)
    except LLMRequestError as error:
        fallback = classify_by_rules(question)
        fallback.reason += f" (LLM router failed: {error})"
        return fallback
    if decision is None:
        fallback = classify_by_rules(question)
        fallback.reason += " (LLM router reply was not a valid decision)"
        return fallback
    return decision


def parse_decision(reply: str, question: str) -> RouteDecision | None:
    """Read the router's JSON reply; None when it is not a valid decision."""
    match = re.search(r"\{.*\}", reply, re.DOTALL)
    if match is None:
        return None
    try:
        raw = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    route = raw.get("route") if isinstance(raw, dict) else None
    if route not in ROUTES:
        return None
    listed = raw.get("sub_questions")
    listed = listed if isinstance(listed, list) else []  # a lone string is not a list of questions
    subs = [str(q).strip() for q in listed if str(q).strip()][:MAX_SUB_QUESTIONS]
    if route == "decompose" and len(subs) < 2:
        subs = split_question(question)
    return RouteDecision(route, "llm", str(raw.get("reason") or ""), subs if route == "decompose" else [])


def classify_by_rules(question: str) -> RouteDecision:
    text = " ".join(question.split())
    if _AGGREGATE.search(text) or _STRUCTURE_LIST.search(text):
        return RouteDecision("cypher", "rules", "asks to count or list parts of the documents")
    if _COMPARATIVE.search(text) or text.count("?") > 1 or _WH_JOIN.search(text):
        subs = split_question(text)
        if len(subs) > 1:
            return RouteDecision("decompose", "rules", "comparative or multi-part question", subs)
    return RouteDecision("retrieve", "rules", "a single fact or explanation")


def split_question(question: str) -> list[str]:
    """Sub-questions by rule: separate questions, the two sides of a comparison, or joined clauses."""
    text = " ".join(question.split())
    parts = [p.strip() + "?" for p in text.split("?") if p.strip()]
    if len(parts) > 1:
        return parts[:MAX_SUB_QUESTIONS]
    for pattern in (_BETWEEN, _COMPARE, _DIFFER):
        match = pattern.search(text)
        if match:
            return _comparison_sides(match.group("a"), match.group("b"))
    clauses = [c.strip(" ?") for c in _WH_JOIN.split(text) if c.strip(" ?")]
    if len(clauses) > 1:
        return [c + "?" for c in clauses][:MAX_SUB_QUESTIONS]
    return [text]


def _comparison_sides(first: str, second: str) -> list[str]:
    """The two sides of "between A of X and B" as queries; "the price of A and B" gives B the price too."""
    first, second = first.strip(" ?.!,"), second.strip(" ?.!,")
    if " of " in first and " of " not in second:
        second = f"{first.rsplit(' of ', 1)[0]} of {second}"
    return [first, second]
