"""Tokens for lexical retrieval.

Technical manuals name things in code: ``canvas.drawImage``, ``asn1_der_decoding2``, ``--no-time-strict``.
A compound token is kept whole (so an exact name matches strongly) and also split into its parts
(so "draw image" and "bookmark page" match ``drawImage`` and ``bookmarkPage``); two words joined by a
hyphen are also closed up, so "multi-line" meets "multiline" and "read-only" "readonly". A command-line
option is also kept with its dashes ("--retries", "-v"; a dash TeX set for "--" counts as two), so a
question naming it meets the text that documents it, not only the word's other uses ("retries",
``nf_set_retries``). Stop words go; a
light plural fold makes "tables" match "table", and British spellings meet American ones ("colours"
matches "color", see :mod:`app.retrieval.spelling`). Letters beyond ASCII are letters ("Größe",
"Poincaré"), and accents fold away, so "Poincare" finds "Poincaré". Chinese, Japanese and Korean
text, written without spaces, is cut into overlapping character pairs (the usual stand-in for a
word segmenter), so a question's words match inside a sentence.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from docgraph.app.retrieval.spelling import american
from docgraph.ingest.pdf.text import SUPERSCRIPT_LETTERS


def _mark_ranges() -> str:
    """The combining marks of the Basic Multilingual Plane, as the body of a character class: the
    vowel signs and viramas of Indic and South-East Asian scripts sit inside words, not between."""
    marks = [code for code in range(0x10000) if unicodedata.category(chr(code)).startswith("M")]
    ranges: list[tuple[int, int]] = []
    for code in marks:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in ranges)


@lru_cache(maxsize=1)
def _token_pattern() -> re.Pattern[str]:
    """Words of any script, a mark within a word kept in it; made on the first text that is not
    ASCII (listing the marks takes about 30 ms, which a process reading only ASCII need not pay)."""
    letter = rf"(?:[^\W_]|[{_mark_ranges()}])"
    return re.compile(rf"{letter}+(?:[._\-]{letter}+)*")


_ASCII_TOKEN = re.compile(r"[^\W_]+(?:[._\-][^\W_]+)*")  # the same words where no text has a mark
_PARTS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+[0-9]*(?![a-z])")
_SEPARATORS = re.compile(r"[._\-]")
# A command-line option: one or two dashes (an en or em dash where typesetting joined two, a minus
# sign for one) at a word's start, then a letter; its name runs on over inner hyphens and dots.
_OPTION = re.compile(r"(?<![\w\-\u2013\u2014\u2212])(?:--?|[\u2013\u2014\u2212])[^\W\d_](?:\w|[-.](?=\w))*")
_OPTION_DASHES = str.maketrans({"\u2013": "--", "\u2014": "--", "\u2212": "-"})
_HEX = re.compile(r"0[xX][0-9A-Fa-f]+$")  # "0x1F" is a number and its digits, not "0x1" and "F"
# Superscript marks and exponents part words: folded to digits they glued onto the word before.
_SUPERSCRIPT_SPACES = dict.fromkeys(map(ord, "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ" + SUPERSCRIPT_LETTERS), " ")
# Scripts written without spaces between words (CJK, Hangul, Thai, Lao, Myanmar, Khmer): indexed as
# overlapping character pairs instead of words.
_UNSPACED = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]+"
)

_STOP_WORDS_TEXT = """
    a an and are as at be been being but by can could did do does doing for from had has have how i if
    in into is it its itself may me might must my of on or our should so such than that the their them
    then there these they this those to was we were what when where which while who whom why will with
    would you your yours about above after again against all also any because before below between both
    during each few further here just more most no nor not now off once only other out over own same
    some too under until up very get gets give gives given
"""
# German and French function words, written without their accents as tokens are ("für" is "fur"):
# counted as words, a short passage sharing "wie", "ist", "der" with "Wie hoch ist der Skonto?"
# outranked the clause that holds "Skonto", and the abstention bar found such a question's key term
# in too small a share of its words. Those that English or code also spells ("die", "des", "est",
# "pour", "der" of ASN.1, the "du" command, "CE" marking, single letters) go only from a text that
# reads as that language: one holding two of its other function words. So do those that name things
# in English technical text: "Allen key", DAS and DEM, an EIN, ICH guidelines, LDAP's "ou", AWS SES,
# MES software.
_GERMAN_STOP_WORDS = """
    aber alle allem aller alles auch auf bei beim bist damit dann dass denen deren dessen diese
    diesem diesen dieser dieses doch dort durch eine einem einen einer eines euch euer fur gegen
    gibt habe haben hatte hier ihm ihn ihnen ihr ihre jede jedem jeden jeder jedes kann kein keine
    konnen konnte mache machen macht mein meine mich muss mussen nach nicht noch nur oder ohne sein
    seine sich sie sind soll sollen sollte uber und unser unter vom von vor waren wann warum weil
    welche welchem welchen welcher welches wenn werde werden wie wir wird wo wurde wurden zum zur
    zwischen darf durfen
"""
_GERMAN_HOMOGRAPHS = "am aus bis da den der des dies die du er es hat im ja man mit ob um war zu"
# function words that English technical text spells as names
_GERMAN_NAMES = "allen als das dem ein ich ist mir uns wer"
_FRENCH_STOP_WORDS = """
    aux avec cette ceci cela comme dans elle elles etre faut ils je leur leurs mais moi notre nous
    peut peuvent pourquoi qu quel quelle quelles quels quoi quand sont tes toi une vos votre vous
    doit doivent dois faire fait
"""
_FRENCH_HOMOGRAPHS = "au ce comment d de des du en est et j l la le mon n ne par pour s sa si son tu un"
_FRENCH_NAMES = "ces il les lui mes nos ou pas que qui se ses sur"
STOP_WORDS = frozenset((_STOP_WORDS_TEXT + _GERMAN_STOP_WORDS + _FRENCH_STOP_WORDS).split())
# Per language: its own function words, those English spells as names, and those dropped only from
# a text in it (the names, and the words English spells too).
_LANGUAGES = (
    (
        frozenset(_GERMAN_STOP_WORDS.split()),
        frozenset(_GERMAN_NAMES.split()),
        frozenset((_GERMAN_HOMOGRAPHS + " " + _GERMAN_NAMES).split()),
    ),
    (
        frozenset(_FRENCH_STOP_WORDS.split()),
        frozenset(_FRENCH_NAMES.split()),
        frozenset((_FRENCH_HOMOGRAPHS + " " + _FRENCH_NAMES).split()),
    ),
)
_LETTER_RUN = re.compile(r"[^\W\d_]+")
# Abbreviations a spec sheet or a manual sets for a word that a question spells out ("Typ", "Rev.",
# "Fig. 3"); not those that stand for several words ("min": minimum or minute, "temp", "sec", "ch").
_ABBREVIATIONS = {
    "rev": "revision",
    "typ": "typical",
    "max": "maximum",
    "qty": "quantity",
    "fig": "figure",
    "eq": "equation",
}
# Clipped words that stand for one word only, which a policy or a contract prints in full while its
# reader says the short one ("phone number" for "Telephone: 0800 ..."). A compound's head would not
# do: SCOWL's "tele-" words also give "telegram" as "gram" and "televise" as "vise", and "-phone"
# ones "microphone" and "saxophone" as "phone".
_CLIPPINGS = {"phone": "telephone", "bike": "bicycle", "fridge": "refrigerator"}
_SPELT_OUT = _ABBREVIATIONS | _CLIPPINGS
# Clipped words that stand for several words sharing their start, so no one word spells them out
# when a text is indexed: an analyst's "admin expenses" are the statement's "Administrative
# expenses", a contract's "admin fee" its "administration fee". Where a question's words are looked
# for in a passage (app.retrieval.relevance.word_forms), the clipping meets each of them.
CLIPPED_FROM = {"admin": frozenset({"administer", "administration", "administrative", "administrator"})}
# A code of letters and a zero-padded number ("E05", "F003"): the padding is no part of its name.
_PADDED_CODE = re.compile(r"^([^\W\d_]{1,4})0+(?=\d)")


@lru_cache(maxsize=200_000)
def fold(word: str) -> str:
    """Lowercase, spell the American way and fold plurals as Porter's step 1a does ("tables" ->
    "table", "classes" -> "class", "colours" -> "color"), and "-xes", "-shes" as Porter's step 5
    then meets the singular ("indexes" -> "index", "crashes" -> "crash").

    A code's zero padding goes ("E05" meets "E5"), and an abbreviation or a clipping of one word is
    spelled out ("Typ" -> "typical", "Rev." -> "revision", "phone" -> "telephone"). The fold only
    has to be the same for query and text, not a real stem ("canvas" -> "canva").
    """
    word = american(word.lower() if word.isascii() else _strip_accents(word.casefold()))
    word = _SPELT_OUT.get(word, word)
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-2] if word.endswith(("sses", "ies", "xes", "shes")) else word[:-1]
        word = _SPELT_OUT.get(word, word)  # "Figs." as "Fig.", "phones" as "phone"
    if word[-1:].isdigit():
        word = _PADDED_CODE.sub(r"\1", word)
    if len(word) > 3 and word.endswith("y"):  # Porter's step 1c after 1a: "entry" meets "entries",
        word = word[:-1] + "i"  # and "array" meets "arrays"
    return word


def _plain(word: str) -> str:
    """ "Für" -> "fur", "Faut" -> "faut": a word lowercased and without its accents."""
    return word.lower() if word.isascii() else _strip_accents(word.casefold())


def _strip_accents(word: str) -> str:
    """ "poincaré" -> "poincare": the letters without their combining marks."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch))


def _stop_words_of(text: str) -> frozenset[str]:
    """:data:`STOP_WORDS`, and the words dropped only from a German or French text when ``text``
    reads as one: two of that language's function words, one of them its own ("Wie hoch ist die
    Nennspannung?": "wie" and "ist"; not "the DAS and the MES server; ou=people for SES")."""
    words = {_plain(word) for word in _LETTER_RUN.findall(text)}
    extra = [dropped for own, names, dropped in _LANGUAGES if words & own and len(words & (own | names)) >= 2]
    return STOP_WORDS.union(*extra) if extra else STOP_WORDS


def reads_german_or_french(text: str) -> bool:
    """Whether ``text`` holds two German or two French function words ("Wie oft muss ...")."""
    return _stop_words_of(text) is not STOP_WORDS


def named_options(text: str) -> set[str]:
    """The command-line options ``text`` names, as tokens ("--retries", "-v")."""
    return {_plain(option.translate(_OPTION_DASHES)) for option in _OPTION.findall(text)}


def tokenize(text: str) -> list[str]:
    stop_words = _stop_words_of(text)
    tokens = sorted(named_options(text))
    if not text.isascii():  # "processor¹", "10⁻³": the word and the number, not "processor1", "103"
        text = text.translate(_SUPERSCRIPT_SPACES)
    if not text.isascii() and _UNSPACED.search(text):
        tokens += [pair for run in _UNSPACED.findall(text) for pair in _character_pairs(run)]
        text = _UNSPACED.sub(" ", text)
    for match in (_ASCII_TOKEN if text.isascii() else _token_pattern()).finditer(text):
        raw = match.group(0)
        parts = [p for p in _SEPARATORS.split(raw) if p]
        sub: list[str] = []
        for part in parts:
            if _HEX.match(part):  # "0x1F": the number, and its digits as "\x1F" or "1Fh" write them
                pieces = [part[:2], part[2:]]
            else:  # camelCase is an ASCII habit
                pieces = [part] if not part.isascii() else _PARTS.findall(part)
            sub.extend(pieces if len(pieces) > 1 else [part])
        whole = _plain(raw)
        if len(sub) > 1 and all(_plain(s) in stop_words for s in sub):
            continue  # "faut-il", "est-ce": function words joined are no word either
        if len(sub) > 1:
            tokens.append(whole)
            tokens.extend(fold(s) for s in sub if _plain(s) not in stop_words)
            if len(parts) == 2 and "-" in raw and raw.isascii() and all(part.isalpha() for part in parts):
                tokens.append(fold("".join(parts).lower()))  # "multi-line" also as "multiline"
        elif whole not in stop_words:
            tokens.append(fold(whole))
    return tokens


def _character_pairs(run: str) -> list[str]:
    """ "東京都庁" -> ["東京", "京都", "都庁"]; a lone character stands for itself."""
    return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
