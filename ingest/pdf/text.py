"""Text clean-up for extracted PDF lines: ligatures, whitespace, line joining, hyphenation repair."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from docgraph.ingest.pdf.common_words import is_common_word

# A page number alone, arabic or roman ("III": a thesis may number its front matter so)
PAGE_NUMBER = re.compile(r"^\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*$", re.IGNORECASE)

LIGATURES: dict[str, str] = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",  # long s + t
    "\ufb06": "st",
}

# Invisible or layout-only characters that should not survive into region text; the bidirectional
# controls too (marks, embeddings, overrides, isolates): kept, U+202E turned the rest of a cited line
# around in a terminal or the web app, and a query never holds them.
_BIDI_CONTROLS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_DROP_CHARS = {"\u200b": "", "\u200c": "", "\u200d": "", "\ufeff": "", "\u00ad": ""} | dict.fromkeys(_BIDI_CONTROLS, "")
_SPACES = "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000\t"
_SPACE_CHARS = {c: " " for c in _SPACES}
# Bullets of word processors set in the Symbol or Wingdings font without a Unicode mapping: MuPDF
# gives their private-use code points (U+F000 + the font's code), which read as nothing.
SYMBOL_FONT_BULLETS = {"\uf0b7": "•", "\uf0a7": "▪", "\uf06e": "■", "\uf076": "❖", "\uf0d8": "➢", "\uf0fc": "✓"}
_TRANSLATION = str.maketrans({**LIGATURES, **_DROP_CHARS, **_SPACE_CHARS, **SYMBOL_FONT_BULLETS})

# Hebrew and Arabic presentation forms (U+FB1D-U+FDFF, U+FE70-U+FEFE): compatibility characters
# that NFKC turns into the letters (and lam-alef into lam and alef).
# A mark or exponent set raised and small after a word ("processor" + raised "1", "10" + raised "−3")
# is written in superscript characters: glued on as plain digits it read "processor1" and "10−3".
SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"  # raised digits: footnote marks and exponents
# A table's notes are marked with raised letters ("Not recommended" + raised "a"): one letter of a-h
# alone, in modifier letters; longer raised words ("th", "er") stay as they are set.
SUPERSCRIPT_LETTERS = "ᵃᵇᶜᵈᵉᶠᵍʰ"
SUPERSCRIPTS = str.maketrans("0123456789+-−=()niabcdefgh", SUPERSCRIPT_DIGITS + "⁺⁻⁻⁼⁽⁾ⁿⁱ" + SUPERSCRIPT_LETTERS)
_MARK = r"(?:[0-9+\-−=()ni]+|[a-h])"
_SUPERSCRIBABLE = re.compile(rf"{_MARK}(?:,{_MARK})*")
_PRESENTATION_FORMS = re.compile("[\ufb1d-\ufdff\ufe70-\ufefe]+")

MIN_CAPITALS_WORD = 7  # letters: a word in capitals joined over a line-end hyphen ("ELEMENT")
# Characters that end a line with a hyphen which may be a hyphenation point.
# Conjunctions after which a line-final hyphen is a suspended compound's ("Ein- und Ausschalter").
SUSPENDING_CONJUNCTIONS = frozenset({"und", "oder", "bzw", "sowie", "and", "or", "nor", "et", "ou"})
LINE_HYPHENS = ("-", "\u2010", "\u2011")
_SPACE_RUN = re.compile(r"[ ]{2,}")
# Chinese and Japanese stops too; a footnote mark may follow ("... in 2019.¹")
_SENTENCE_END = re.compile(r"""[.!?:;。！？：；]["')\]\u201d\u2019」』）]*[⁰¹²³⁴-⁹]*$""")

# Numbers written as words; the tens start compounds ("forty-five").
TENS = frozenset({"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"})
_UNITS = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
NUMBER_WORDS = TENS | set(f"{_UNITS} seventeen eighteen nineteen hundred thousand".split())
# First halves that are usually a real compound ("self-contained", "forty-five"), second halves
# likewise ("read-only").
# fmt: off
_COMPOUND_PREFIXES = TENS | frozenset(
    {"self", "non", "well", "so", "read", "write", "built", "cross", "semi", "anti", "user", "end", "run",
     "high", "low", "long", "short", "multi", "third", "first", "second", "all"}
)
_COMPOUND_SUFFIXES = frozenset(
    {"only", "in", "based", "like", "specific", "free", "level", "time", "wise", "side", "defined",
     "aware", "safe", "friendly", "oriented", "dependent", "independent", "compatible", "point", "line",
     "byte", "bit", "up", "out", "down", "off", "on"}
)
# fmt: on


def normalize_chars(text: str) -> str:
    """Expand ligatures, drop invisible characters, turn exotic spaces into plain spaces, write
    Arabic and Hebrew presentation forms (the shaped glyphs some PDFs map their text to) as their
    letters: stored shaped, "تأكل" in a question never matched the text that said it; and compose
    letters written as a base and a combining mark ("U" + "̈" is "Ü"), which a question typed
    composed never matched either."""
    text = _PRESENTATION_FORMS.sub(_as_letters, text.translate(_TRANSLATION))
    if not unicodedata.is_normalized("NFC", text) and any(unicodedata.combining(ch) for ch in text):
        text = unicodedata.normalize("NFC", text)  # only then: NFC also swaps symbols (Ω ohm) otherwise
    return text


def as_superscript(text: str) -> str | None:
    """``text`` in superscript characters ("1,3" -> "¹,³", "−3" -> "⁻³", "a" -> "ᵃ"); None when one of
    its characters has none (a raised "th", "A" of the LaTeX logo, a "†" that is a mark already)."""
    return text.translate(SUPERSCRIPTS) if _SUPERSCRIBABLE.fullmatch(text) else None


def _as_letters(shaped: re.Match[str]) -> str:
    return unicodedata.normalize("NFKC", shaped.group(0))


def clean_title(text: str) -> str:
    """A title from the PDF's metadata or outline on one line, without control characters: some
    writers end a UTF-16 title with its NUL terminator, which no store can take in a query."""
    visible = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in normalize_chars(text))
    return " ".join(visible.split())


def clean_inline(text: str) -> str:
    """Normalise one piece of running text to a single line."""
    return _SPACE_RUN.sub(" ", normalize_chars(text).replace("\n", " ")).strip()


def _last_word(text: str) -> str:
    match = re.search(r"([^\s]+)$", text)
    return match.group(1) if match else ""


def _first_word(text: str) -> str:
    match = re.match(r"([^\s]+)", text)
    return match.group(1) if match else ""


def keeps_hyphen(before: str, after: str) -> bool:
    """Decide whether a line-final hyphen between ``before`` and ``after`` is a real hyphen.

    ``before`` is the fragment ending in the hyphen (without it); ``after`` the next line's first
    word. Halves that spell a common word ("with-" | "out", "run-" | "ning", "ELE-" | "MENT") are
    one word. Otherwise a real hyphen is assumed when the next part starts with an uppercase letter
    or digit, when the first part has digits, capitals after its first letter or another hyphen, or
    when the halves form a known compound pattern.
    """
    head = re.sub(r"^\W+", "", before)
    tail = re.sub(r"\W+$", "", after)
    if not head or not tail:
        return True
    if _spells_one_word(head, tail.split("-")[0]):  # "docu-" | "ment-based" is "document-based"
        return False
    if not tail[0].isalpha() or tail[0].isupper() or "-" in tail:  # "state-" | "of-the-art"
        return True
    if "-" in head or any(ch.isdigit() for ch in head) or any(ch.isupper() for ch in head[1:]):
        return True
    if not head[-1].isalpha():
        return True
    return head.lower() in _COMPOUND_PREFIXES or tail.lower() in _COMPOUND_SUFFIXES


def _suspended(before: str, after: str, right: str) -> bool:
    """A hyphen that holds the first word's place for the second part of a later compound ("Ein-
    und Ausschalter", "Ansaug- oder Abluftöffnung", "pre- and post-processing"): the next line opens
    with a conjunction and goes on, and the halves spell no word ("col-" | "or" is "color")."""
    head, tail = re.sub(r"^\W+", "", before), re.sub(r"\W+$", "", after)
    goes_on = len(right.split()) > 1
    return tail.lower() in SUSPENDING_CONJUNCTIONS and goes_on and head.isalpha() and not is_common_word(head + tail)


def _spells_one_word(head: str, tail: str) -> bool:
    """Lowercase ("with" | "out"), capitalised ("Some" | "thing") or all-capital ("OP" | "TIONAL")
    halves that together are a common word. A one-letter head ("A-" | "side") and a short word in
    capitals ("CO-" | "OP", "RE-" | "SIGN") are more often a real compound."""
    if len(head) < 2 or not (head.isascii() and tail.isascii() and head.isalpha() and tail.isalpha()):
        return False
    capitals = head.isupper() and tail.isupper() and len(head + tail) >= MIN_CAPITALS_WORD
    same_case = (tail.islower() and (head.islower() or head.istitle())) or capitals
    return same_case and is_common_word(head + tail)


# Chinese and Japanese characters and their punctuation (CJK symbols, kana, ideographs, full-width
# forms); Korean spaces its words, and stays out.
_UNSPACED_SCRIPT = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def unspaced_between(left: str, right: str) -> bool:
    """Whether ``left`` ends and ``right`` starts in Chinese or Japanese, which put no space between
    words and have no capitals: a line or a page may break anywhere there."""
    left, right = left.rstrip(), right.lstrip()
    return bool(left and right and _UNSPACED_SCRIPT.match(left[-1]) and _UNSPACED_SCRIPT.match(right[0]))


def join_two(left: str, right: str) -> str:
    """Join two consecutive lines of running text, repairing a hyphenated word break."""
    left = left.rstrip()
    right = right.lstrip()
    if not left:
        return right
    if not right:
        return left
    if left.endswith(LINE_HYPHENS) and len(left) >= 2 and left[-2].isalnum() and right[0].isalnum():
        before = _last_word(left[:-1])
        after = _first_word(right)
        if _suspended(before, after, right):
            return left + " " + right  # "Ein-" | "und Ausschalter", "pre-" | "and post-processing"
        if left[-2].isalpha() and not keeps_hyphen(before, after):
            return left[:-1] + right
        return left[:-1] + "-" + right  # a real hyphen (or a range like 1-5) split at the line end
    if left.endswith("_") and len(left) >= 2 and left[-2].isalnum() and right[0].isalnum():
        return left + right  # a name broken after an underscore (Texinfo breaks IDN2_NFC_ | INPUT)
    if unspaced_between(left, right):
        return left + right  # Chinese and Japanese put no space between words: a wrap is no word break
    return left + " " + right


def join_lines(lines: Sequence[str]) -> str:
    """Merge the lines of one paragraph into running text (ligatures, whitespace, hyphenation)."""
    text = ""
    soft_break = False  # previous line ended in a soft hyphen: always a word break, never a hyphen
    for raw in lines:
        line = _SPACE_RUN.sub(" ", normalize_chars(raw)).strip()
        if not line:
            continue
        if not text:
            text = line
        elif soft_break:
            text += line
        else:
            text = join_two(text, line)
        soft_break = raw.rstrip().endswith("\u00ad")
    return text


def join_code_lines(lines: Sequence[tuple[str, int]]) -> str:
    """Keep code line structure: each item is (text, indent in characters); blank lines between
    lines are kept once (a run of them is one), none at the start or end."""
    out: list[str] = []
    for raw, indent in lines:
        line = normalize_chars(raw).rstrip()
        if line.strip():
            out.append(" " * max(0, indent) + line.strip())
        elif out and out[-1]:
            out.append("")
    return "\n".join(out).rstrip("\n")


def ends_sentence(text: str) -> bool:
    """True when text ends with sentence-final punctuation (optionally followed by quotes/brackets)."""
    return bool(_SENTENCE_END.search(text.rstrip()))


def starts_lowercase(text: str) -> bool:
    """True when the first letter-or-digit of the text is a lowercase letter."""
    for ch in text.lstrip():
        if ch.isalnum():
            return ch.islower()
        if ch not in "\"'(\u201c\u2018[":
            return False
    return False


def shorten(text: str, limit: int) -> str:
    """Cut text to at most ``limit`` characters on a word boundary."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip() + "…"
