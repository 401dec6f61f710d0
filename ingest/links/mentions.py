"""Explicit references written in text: "see Figure 3", "Section 2.1", "clause 4.2(b)", "page 12".

A mention names a kind and a number in the document's own numbering. One that names another
document ("Section 7.3 of the Helios MSA", "Art. 28 GDPR", a cited journal's "2011, p. 1") is
marked external: it points outside the document and is neither resolved nor counted unresolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from docgraph.ingest.labels import CJK_REFERENCE_WORDS, LIST_WORDS, NUMBER_END, PLURAL_ENDINGS, REFERENCE_WORDS
from docgraph.ingest.links.edges import DASHES, LABEL_NUMBER
from docgraph.ingest.links.statements import mention_patterns

_FIG_NUM = LABEL_NUMBER
_SEC_NUM = rf"(?:\d{{1,3}}(?:\.\d{{1,3}})*|[A-Z](?:\.\d{{1,3}})+){NUMBER_END}"
_CHAP_NUM = rf"(?:\d{{1,3}}{NUMBER_END}|[IVXL]{{1,6}}\b)"
_APP_NUM = rf"(?:[A-Z]|\d{{1,2}})(?:\.\d{{1,3}})*{NUMBER_END}"
_EQ_NUM = r"\(?\d{1,3}(?:\.\d{1,3})*[a-z]?\)?(?!\w)"
_PAGE_NUM = r"\d{1,4}\b(?!\.\d|\s*(?:<<|>>|[<>=*/+^%]))"  # not "page\n1<<3" in a flags table
# A clause or article number with its sub-clause letters, romans or numbers: "4.2(b)(ii)", "12(3)".
_SUB = r"\((?:[a-z]{1,2}|[ivx]{1,5}|\d{1,2})\)"
_CLAUSE_NUM = rf"\d{{1,3}}(?:\.\d{{1,3}})*(?:{_SUB})*{NUMBER_END}"
_ARTICLE_NUM = rf"(?:\d{{1,3}}(?:{_SUB})*|[IVXL]{{1,6}}){NUMBER_END}"
# Schedules, annexes and exhibits are numbered, lettered or numbered in Roman: "Annex III".
_ATTACH_NUM = rf"(?:\d{{1,2}}|[IVXL]{{1,6}}|[A-Z])(?:\.\d{{1,3}})*{NUMBER_END}"
_ATTACH_WORD = r"(?:Schedule|SCHEDULE|Annex|ANNEX|Exhibit|EXHIBIT|Appendix|APPENDIX|Part|PART)"
# A paragraph number is a reference only when it says whose paragraph: "Paragraph 4 of Schedule 3";
# when it is a patent's, printed in brackets at the paragraph's start: "paragraph [0023]"; or when it
# has two levels or more, as a report numbers its paragraphs in sections ("as set out in paragraph
# 4.3"): a bare "paragraph 4" is as often a statute's or a list's.
_PARA_NUM = (
    rf"(?:\d{{1,3}}(?:\.\d{{1,3}})*(?:{_SUB})*\s+of\s+{_ATTACH_WORD}\s+{_ATTACH_NUM}|\[\d{{3,5}}\]"
    rf"|\d{{1,3}}(?:\.\d{{1,3}})+(?:{_SUB})*{NUMBER_END}(?!\.\d))"
)
_CLAIM_NUM = rf"\d{{1,3}}{NUMBER_END}"  # a patent's "claim 3", "claims 1 or 2", "Anspruch 2"
_NOTE_NUM = rf"\d{{1,2}}(?:\.\d{{1,2}})?[a-z]?{NUMBER_END}"  # "Note 12", "Note 3.2", "Note 7a"
# A standard names its subclauses by number alone: "(see 6.2)", "see also A.2" (ISO/IEC Directives
# Part 2); a dotted number after "see" is one, a bare "see 5" is not.
_SEE_SUBCLAUSE = r"\b[Ss]ee(?:\s+also)?\s+(?=(?:\d{1,3}|[A-Z])\.\d)"
# ... and after the words the Directives cite one with ("as specified in 5.3.2", "given in A.2", "in
# accordance with 7.2"): a dotted number there is a subclause, unless a unit makes it an amount
# ("specified in 2.5 mm").
_UNIT = r"(?:%|°|mm|cm|km|m|µm|nm|kg|g|mg|N|kN|Pa|kPa|MPa|GPa|s|ms|min|h|V|mV|kV|A|mA|W|kW|Hz|kHz|MHz|K|l|ml|bar|dB)"
_CITED_SUBCLAUSE = (
    r"\b(?:(?:specified|given|described|defined|stated|set\s+out|laid\s+down)\s+in|in\s+accordance\s+with"
    rf"|according\s+to|conforming\s+to|complying\s+with)\s+(?=(?:\d{{1,3}}|[A-Z])\.\d[\d.]*(?!\d|\s*{_UNIT}(?!\w)))"
)
_LIST_WORD = "|".join(LIST_WORDS)
_LIST_SEP = rf"(?:\s*,\s*(?:(?:{_LIST_WORD})\s+)?|\s+(?:{_LIST_WORD}|&)\s+)"

# A clinical guideline's numbered recommendation, as the guideline and its readers name it
# ("recommendation 1.3.2"): a paragraph that opens with its number, as a sub-clause is. A number of
# one level ("Recommendation 3") is a report's own series, not its section 3.
_RECOMMENDATION = r"\b(?:Recommendations?|recommendations?)\s+(?=\d{1,3}\.\d)"

# A meeting's minutes name one another by number, as the minutes number them: "(see minute 4.2)",
# "Minutes 4.1 and 5". Not a time: "1 minute 30 seconds", "minute 3 s".
_MINUTE = r"\b(?<!\d )(?:[Mm]inutes?|MINUTES?)\s+"
_MINUTE_NUM = rf"\d{{1,3}}(?:\.\d{{1,3}})*{NUMBER_END}(?!\s*(?:s|secs?|seconds?)\b)"

# kind -> (keyword pattern, number pattern, name used in the REF label)
PATTERNS: dict[str, tuple[str, str, str]] = {
    "figure": (r"\b(?:Figures?|FIGURES?|figures?)\s+|\b(?:Figs?\.|FIGS?\.|figs?\.)\s*", _FIG_NUM, "Figure"),
    "table": (r"\b(?:Tables?|TABLES?|tables?)\s+|\b(?:Tabs?\.)\s*", _FIG_NUM, "Table"),
    "section": (
        r"\b(?:Sections?|SECTIONS?|sections?)\s+|\b(?:Sects?\.|Secs?\.)\s*|§§?\s*|"
        + _SEE_SUBCLAUSE
        + "|"
        + _CITED_SUBCLAUSE,
        _SEC_NUM,
        "Section",
    ),
    "chapter": (r"\b(?:Chapters?|CHAPTERS?|chapters?)\s+|\b(?:Chap\.|Ch\.)\s*", _CHAP_NUM, "Chapter"),
    "appendix": (r"\b(?:Appendix|APPENDIX|appendix|Appendices|appendices)\s+", _APP_NUM, "Appendix"),
    "equation": (r"\b(?:Equations?|equations?)\s+|\b(?:Eqs?\.|eqs?\.|Eqn\.|eqn\.)\s*", _EQ_NUM, "Equation"),
    "page": (r"\b(?:Pages?|pages?)\s+|\bpp?\.\s+", _PAGE_NUM, "page"),
    "slide": (r"\b(?:Slides?|SLIDES?|slides?)\s+", _PAGE_NUM, "slide"),
    "clause": (r"\b(?:Clauses?|CLAUSES?|clauses?)\s+|\b(?:[Cc]ls?\.)\s*|" + _RECOMMENDATION, _CLAUSE_NUM, "Clause"),
    "article": (r"\b(?:Articles?|ARTICLES?|articles?)\s+|\bArt\.\s*", _ARTICLE_NUM, "Article"),
    "schedule": (r"\b(?:Schedules?|SCHEDULES?)\s+", _ATTACH_NUM, "Schedule"),
    "annex": (r"\b(?:Annex(?:es)?|ANNEX(?:ES)?)\s+", _ATTACH_NUM, "Annex"),
    "exhibit": (r"\b(?:Exhibits?|EXHIBITS?)\s+", _ATTACH_NUM, "Exhibit"),
    "paragraph": (r"\b(?:Paragraphs?|PARAGRAPHS?|paragraphs?)\s+|\b[Pp]aras?\.\s*", _PARA_NUM, "Paragraph"),
    # a financial statement's notes ("see Note 12", "Notes 5 and 12"), capitalised: "note 3" is a word,
    # but not after "see", "in" or a bracket ("see note 12", "disclosed in note 4", "(note 12)")
    "note": (r"\b(?:Notes?|NOTES?|Notas?)\s+|(?:(?<=\bsee )|(?<=\bin )|(?<=\())notes?\s+", _NOTE_NUM, "Note"),
    "claim": (r"\b(?:Claims?|CLAIMS?|claims?)\s+", _CLAIM_NUM, "Claim"),
    "minute": (_MINUTE, _MINUTE_NUM, "Minute"),
    **mention_patterns(),  # a mathematics text's numbered statements: "by Theorem 3.2"
}

# What follows a mention of another document's part: its name ("of the Helios MSA", "of Directive
# 2011/7/EU"; "of this Agreement" and "of Schedule 2" stay inside) or a statute's abbreviation after
# the subdivisions it is cited by ("Art. 28 GDPR", "§ 5 Abs. 2 BDSG").
_SUBDIVISION = (
    r"(?:\s*\(\w{1,4}\))*(?:,?\s*(?:Abs\.|UAbs\.|Satz|S\.|Nr\.|lit\.|para\.|sentence|point)\s*\w{1,4}"
    r"(?:\s*\(\w{1,4}\))*)*"
)
_CITATION = r"\[[^\[\]\s]{1,40}\]"  # a bibliography tag: "[RFC9000]", "[I-D.ietf-quic-http]", "[12]"
# Parts of this document a part may be "of" ("Paragraph 4 of Schedule 3", "Eq. 4 of Lemma 1").
_REFERENCE_NOUN = (
    r"(?i:schedules?|annex(?:es)?|exhibits?|appendix|appendices|parts?|chapters?|sections?|articles?|clauses?"
    r"|paragraphs?|tables?|figures?|equations?|theorems?|lemmas?|examples?|definitions?|propositions?"
    r"|corollar(?:y|ies)|this|these|its|our)\b"
)
_OTHER_DOCUMENT = re.compile(
    rf"{_SUBDIVISION}\s+of\s+(?:(?P<cited>{_CITATION})|(?i:the\s+)?(?!{_REFERENCE_NOUN})"
    rf"(?P<name>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*))"
)
# Another document named just before its part, by an abbreviation (two capitals or more): "see the
# SmPC, section 4.2", "the BNF, section 5.1"; not "the Introduction, section 2".
_NAMED_BEFORE = re.compile(r"\bthe\s+(?P<name>(?=\w*[A-Z]\w*[A-Z])[A-Z][\w-]*),\s*$")
# A cited work's part, as RFCs write it: "Section 4.2 of [RFC9000]", "[RFC9000], Section 4.2" (a
# document never cites itself by its bibliography tag).
_CITED_BEFORE = re.compile(rf"{_CITATION},?\s*$")
_NAME_WORD = re.compile(r"[^\W\d_]+")
# Codes of statutes a subdivision is cited with ("Art. 28 GDPR", "§ 5 Abs. 2 BDSG", "s. 3 UCC"): a
# known list, as a capitalised word after a section number is as often a manual's "Section 3 FAQ".
_STATUTE_CODES = (
    "GDPR|DSGVO|RGPD|BDSG|HGB|BGB|StGB|StPO|ZPO|AO|UStG|EStG|AktG|GmbHG|InsO|UWG|UrhG|TMG|TTDSG|KSchG|BetrVG"
    "|ArbZG|TKG|VwVfG|GG|AEUV|TFEU|TEU|EUV|ECHR|EMRK|UCC|USC|CFR|CCPA|HIPAA|LGPD|PIPEDA|LOPDGDD|DPA|FOIA"
)
_STATUTE = re.compile(rf"{_SUBDIVISION}\s+(?:{_STATUTE_CODES})(?![\w-])")
_STATUTE_KINDS = frozenset({"section", "clause", "article", "paragraph"})
# An instrument made under a statute's section and named by it, as planning and property law name
# theirs: "a section 106 agreement", "the section 21 notice", "section 106 contributions".
_INSTRUMENT = re.compile(
    r"\s+(?:agreements?|notices?|orders?|undertakings?|obligations?|contributions?|licen[cs]es?|certificates?)\b",
    re.IGNORECASE,
)
# Kinds whose part may belong to another document named after it ("Section 7.3 of the Helios MSA").
_QUALIFIED_KINDS = _STATUTE_KINDS | {"chapter", "appendix", "schedule", "annex", "exhibit", "minute"}
# A page cited after a year or a date: "(OJ L 48, 23.2.2011, p. 1)", "Springer, 2011, pp. 3-4".
_CITED_PAGE = re.compile(r"(?:\b(?:1[5-9]|20)\d\d[a-z]?|\b\d{1,2}\.\s?\d{1,2}\.\s?\d{2,4})\)?\s*[,;:]\s*$")


def _keywords(kind: str, english: str) -> str:
    """English as written, then the other languages' words in any case (``docgraph.ingest.labels``)."""
    others = "|".join(w + (r"\s*" if w.endswith(r"\.") else r"\s+") for w in REFERENCE_WORDS.get(kind, ()))
    cjk = CJK_REFERENCE_WORDS.get(kind)
    return english + (rf"|\b(?i:{others})" if others else "") + (rf"|(?:{cjk})\s*" if cjk else "")


# A patent's claims name claims in lists and ranges after a singular word too: "claim 2 or 3",
# "any one of claims 1 to 8", "Ansprüche 1 bis 3".
_CLAIM_RANGE = re.compile(rf"\s*(?:[{DASHES}]|\b(?:to|through|bis)\b)\s*", re.IGNORECASE)
_SEPARATORS = {"claim": rf"(?:{_LIST_SEP}|{_CLAIM_RANGE.pattern})"}
MAX_CLAIM_RANGE = 100
_MENTION_RES = {
    kind: (
        re.compile(rf"(?P<kw>{_keywords(kind, kw)})(?P<nums>{num}(?:{_SEPARATORS.get(kind, _LIST_SEP)}{num})*)"),
        re.compile(num),
    )
    for kind, (kw, num, _) in PATTERNS.items()
}
# "Figure 3D rendering" names a figure of a 3D rendering, not panel D of Figure 3; a patent's drawings
# are named in capitals ("FIG. 3D is a side view"), where a panel D is one.
_DIMENSION = re.compile(r"[234]D")
_PLURAL = re.compile(rf"(?:{'|'.join(re.escape(e) for e in PLURAL_ENDINGS)})\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Mention:
    kind: str  # a key of PATTERNS: figure | table | section | ... | clause | article | schedule | annex | ...
    number: str  # as written, brackets stripped
    start: int
    external: bool = False  # names a part of another document: no target here

    @property
    def label(self) -> str:
        return f"{PATTERNS[self.kind][2]} {self.number}"

    @property
    def canonical(self) -> str:
        return canonical_number(self.number)


def canonical_number(number: str) -> str:
    """ "2–1", "2-1" and "2.1" are written variants of one number, as are "4.2(b)" and "4.2.b"."""
    number = re.sub(r"\((\w+)\)", r".\1", _unbracketed(number.strip()))
    return re.sub(rf"[{DASHES}]", ".", number).lower()


# A judgment refers to its own paragraphs by number and place: "see [10] above", "at paragraph 45
# below"; without "above" or "below" a bracketed number is as often another judgment's ("Triple Point
# at [108]") or a bibliography tag. Resolved as a patent's "[0023]" is, to the paragraph so numbered.
_PLACED_PARAGRAPH = re.compile(
    r"(?:\[(\d{1,3})\]|\b(?:[Pp]aragraphs?|[Pp]aras?\.?)\s+(\d{1,3}))(?=\s+(?:above|below)\b)"
)


def find_mentions(text: str, own_title: str = "") -> list[Mention]:
    """Every explicit reference in ``text``, in order; plural keywords take a list of numbers. A
    part "of" a document named by ``own_title``'s words is this document's."""
    mentions: list[Mention] = []
    for kind, (mention_re, number_re) in _MENTION_RES.items():
        for match in mention_re.finditer(text):
            nums = match.group("nums")
            found = [(number.group(0), number.start()) for number in number_re.finditer(nums)]
            if kind == "claim":
                found = _claim_ranges(nums, found)
            elif not _PLURAL.search(match.group("kw")):
                found = found[:1]
            external = _is_external(text, kind, match.start(), match.end(), own_title)
            for number, offset in found:
                if kind == "figure" and _DIMENSION.fullmatch(number) and not match.group("kw").isupper():
                    continue
                mentions.append(Mention(kind, _unbracketed(number), match.start("nums") + offset, external))
    taken = {m.start for m in mentions}
    for placed in _PLACED_PARAGRAPH.finditer(text):
        number = placed.group(1) or placed.group(2)
        if placed.start(1 if placed.group(1) else 2) not in taken:
            mentions.append(Mention("paragraph", f"[{number}]", placed.start()))
    return _outside_paragraphs(sorted(mentions, key=lambda m: m.start))


def _claim_ranges(nums: str, found: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The claims a list names, a range's inner ones too ("1 to 4": 1, 2, 3, 4), each placed where
    the range's last number is written."""
    claims: list[tuple[str, int]] = []
    for (low, low_at), (high, high_at) in pairwise(found):
        claims.append((low, low_at))
        between = nums[low_at + len(low) : high_at]
        if _CLAIM_RANGE.fullmatch(between) and int(low) < int(high) <= int(low) + MAX_CLAIM_RANGE:
            claims += [(str(n), high_at) for n in range(int(low) + 1, int(high))]
    return [*claims, *found[-1:]]


def _outside_paragraphs(mentions: list[Mention]) -> list[Mention]:
    """Without the "Schedule 3" of "Paragraph 4 of Schedule 3": that names the paragraph's place."""
    spans = [(m.start, m.start + len(m.number)) for m in mentions if m.kind == "paragraph"]
    return [m for m in mentions if m.kind == "paragraph" or not any(a < m.start < b for a, b in spans)]


def _unbracketed(number: str) -> str:
    """ "(3)" -> "3", "3)" -> "3", but "4.2(b)" keeps its sub-clause."""
    number = number.lstrip("(")
    while number.endswith(")") and number.count(")") > number.count("("):
        number = number[:-1]
    return number


def _is_external(text: str, kind: str, start: int, end: int, own_title: str) -> bool:
    """Whether the mention at ``text[start:end]`` names a part of another document: "section 4 of
    the Contributors' Guide" inside "LilyPond Contributor's Guide" names this one."""
    if kind in ("page", "slide"):  # a cited work's page: "(Springer, 2011, pp. 3-4)", "(Lee 2019, page 4)"
        cited = _CITED_PAGE.search(text, max(0, start - 40), start) is not None
        abbreviated = text[start] == "p" and text[start : start + 4].lower() != "page"  # "p. 1", "pp. 3-4"
        return cited and (abbreviated or _in_brackets(text, start))
    after = text[end : end + 80]
    other = _OTHER_DOCUMENT.match(after) if kind in _QUALIFIED_KINDS else None
    if other and (other.group("cited") or not _names(other.group("name"), own_title)):
        return True
    if kind in _QUALIFIED_KINDS and _CITED_BEFORE.search(text, max(0, start - 50), start):
        return True
    named = _NAMED_BEFORE.search(text, max(0, start - 50), start) if kind in _QUALIFIED_KINDS else None
    if named and not _names(named.group("name"), own_title):
        return True
    return kind in _STATUTE_KINDS and bool(_STATUTE.match(after))


def _in_brackets(text: str, start: int) -> bool:
    """Whether ``text[start]`` lies inside brackets opened within the 80 characters before it."""
    before = text[max(0, start - 80) : start]
    return before.count("(") + before.count("[") > before.count(")") + before.count("]")


def _names(name: str, title: str) -> bool:
    """Whether every word of ``name`` is a word of ``title``, in any case, plural or possessive."""
    words = {_singular(word) for word in _NAME_WORD.findall(title.lower())}
    return bool(words) and all(_singular(word) in words for word in _NAME_WORD.findall(name.lower()))


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def names_instrument(text: str, mention: Mention) -> bool:
    """Whether ``mention`` in ``text`` names an instrument made under a section of that number ("the
    section 106 agreement"): where the document has no such part, the section is a statute's."""
    end = mention.start + len(mention.number)
    return mention.kind in _STATUTE_KINDS and _INSTRUMENT.match(text, end) is not None
