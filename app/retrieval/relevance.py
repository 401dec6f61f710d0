"""Whether the best hits answer a question at all: the evidence ``ask`` abstains without.

A retriever always returns its best regions, however poor. Three measures say whether they are
about the question: ``similarity``, the best cosine of the question with the stored embeddings of
the first hits (how close in meaning); ``coverage``, the share of the question's content words
(``app.retrieval.text.tokenize``) found in their text and context (how much of what it names is
there); and ``known``, the share of those words that occur anywhere in the store (gibberish has
none, yet a short string of it can sit close to some region in embedding space). A question clears
the bar with enough coverage, or with enough similarity from words the documents know. The bar was
chosen on the train questions against written nonsense and out-of-domain questions
(docs/experiments/abstention.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docgraph.app.retrieval.base import ScoredRegion
from docgraph.app.retrieval.irregular_verbs import BASE_OF
from docgraph.app.retrieval.named_parts import part_label_words
from docgraph.app.retrieval.text import CLIPPED_FROM, STOP_WORDS, fold, reads_german_or_french, tokenize
from docgraph.app.retrieval.vector import DenseRetriever

HITS_READ = 5  # the first hits the measures read
# Words that frame a question about a document rather than name what it holds ("What do the authors
# say about ...", "Which section describes ...", "What does [RFC8446] refer to?", "How many ..."): no
# passage need hold them.
_FRAME = "author authors say says said mention mentions mentioned mentioning describe describes described describing"
_FRAME += " discuss discussed discussing refer refers referred referring"
_FRAME += " happen happens happened happening"  # "What happened at the AGM?" asks for the events
_FRAME += " many much"  # "How many bits is the Length field?" asks for a count, which no passage words so
_FRAME += " stand stands meant"  # "What does ULN stand for?" asks what a list of abbreviations spells out
_FRAME += " page pages"  # "Which pages discuss Luther?" asks where: an index entry holds page numbers, not "pages"
FRAME_WORDS = frozenset(fold(word) for word in _FRAME.split())
# "What does Unoccupied mean?", "What do the words in bold mean by home?": "mean" as the verb a do
# asks with frames the question (a glossary says "Unoccupied: not lived in"); "the mean value" names one.
_ASKS_WHAT_IT_MEANS = re.compile(
    r"\b(?:do|does|did)\b.*\bmean\b(?=\s*(?:[?.,;!]|$|(?:by|if|when|for|here|in)\b))", re.IGNORECASE
)
# Verbs that carry no meaning of their own before their object ("Who sent apologies?", "How do I make a
# claim?"): the object says what is asked, and minutes record "Apologies: ..." without the sending.
_LIGHT = "send sends sent sending gave giving make makes made making take takes took taken taking"
_LIGHT += " offer offers offered offering tender tenders tendered tendering"
_LIGHT_BEFORE_OBJECT = re.compile(
    rf"\b({'|'.join(_LIGHT.split())})\s+(?:(?:the|a|an|their|his|her|its|our|my|your|any)\s+)?([^\W\d]\w*)",
    re.IGNORECASE,
)
# The same verbs in the passive after their subject ("What decisions were made?", "What samples have
# been taken?"): the subject says what is asked, and minutes record "DECISION: ..." without the making.
_LIGHT_AFTER_SUBJECT = re.compile(
    r"\b([^\W\d]\w*)\s+(?:(?:has|have|had|will|would|should|must|can|could|may|might)\s+)?"
    r"(?:is|are|was|were|be|been|being)\s+(made|taken|sent|offered|tendered)\b",
    re.IGNORECASE,
)
# "Who appeared for the respondent?", "Who acted on behalf of Harrow?": to appear or act for a party is
# to represent it, and a judgment lists counsel "Mr David Okoro KC (...) for the Respondent", without the verb.
_REPRESENTS = re.compile(
    r"\b(appear|appears|appeared|appearing|act|acts|acted|acting)\s+(for|on\s+behalf\s+of)\s+\w", re.IGNORECASE
)
_VOWELS = re.compile(r"[aeiouy]")


@dataclass(frozen=True, slots=True)
class Evidence:
    similarity: float  # best cosine of the question with a first hit's stored embedding
    coverage: float  # share of the question's content words in the first hits
    known: float  # share of the question's content words anywhere in the searched documents

    def to_json(self) -> dict[str, float]:
        return {name: round(getattr(self, name), 4) for name in ("similarity", "coverage", "known")}


@dataclass(frozen=True, slots=True)
class AbstentionBar:
    """The least evidence an answer needs: ``coverage`` this high, or ``similarity`` this high from a
    question of which at least ``known`` of the words occur in the documents."""

    similarity: float = 0.54
    coverage: float = 0.6  # below 2/3: a three-word question may miss one word ("how large ...")
    known: float = 0.8

    def cleared_by(self, evidence: Evidence) -> bool:
        if evidence.coverage >= self.coverage:
            return True
        return evidence.similarity >= self.similarity and evidence.known >= self.known


def dense_part(retriever: Any) -> DenseRetriever | None:
    """The dense retriever a retriever scores with (its own ``dense``, or itself); None for one
    without embeddings (``bm25-page``...), whose hits cannot be measured this way."""
    if isinstance(retriever, DenseRetriever):
        return retriever
    dense = getattr(retriever, "dense", None)
    return dense if isinstance(dense, DenseRetriever) else None


def measure(question: str, hits: Sequence[ScoredRegion], dense: DenseRetriever) -> Evidence:
    """The measures over the first :data:`HITS_READ` of ``hits`` (none: no evidence at all), the
    words looked up in every stored document, whatever the question's scope (the measure tells
    words of no document from words of another one; the bar was chosen across the store)."""
    first = list(hits[:HITS_READ])
    if not first:
        return Evidence(0.0, 0.0, 0.0)
    cosines = dense.exact_cosines(dense.vectors(question), [hit.region_id for hit in first])
    names = dense.corpus.document_names({hit.doc_id for hit in first})
    if any("part" in hit.signals for hit in first):  # a hit lies in the clause or page asked about
        names = [*names, " ".join(part_label_words(question))]
    return Evidence(max(cosines.values(), default=0.0), coverage(question, first, names), known(question, dense))


def known(question: str, dense: DenseRetriever) -> float:
    """The share of the question's distinct content words that some stored document holds or is
    named by (a clipping of several words, "admin", in any of them). The documents already loaded
    are looked in first, and no other is loaded once every word is found: a question asked inside
    one document rarely needs the rest of the store."""
    wanted = named_words(question)
    if not wanted:
        return 0.0
    missing = set(wanted)
    for document in dense.corpus.loaded_first():
        vocabulary = document.region_bm25.vocabulary.keys()
        missing = {word for word in missing if vocabulary.isdisjoint({word, *CLIPPED_FROM.get(word, ())})}
        missing -= document.name_words
        if not missing:
            break
    return (len(wanted) - len(missing)) / len(wanted)


def coverage(question: str, hits: Sequence[ScoredRegion], names: Sequence[str] = ()) -> float:
    """The share of the question's distinct content words that occur in the hits or their context,
    in any inflection ("cleaned" is found in "Clean the filter", "store" in "stored"), or in the
    ``names`` of their documents ("How many shipments did Corvane handle?" of a memo whose
    letterhead alone says Corvane); 0 for a question without any: it names nothing the documents
    could hold. In a German or French question, a word also counts as found when its
    :func:`stem` is part of a passage's word (compounds, "geprüft" of "prüfen")."""
    wanted = named_words(question)
    if not wanted:
        return 0.0
    found: set[str] = set()
    for hit in hits:
        for text in (hit.text, *(neighbour.text for neighbour in hit.context)):
            found.update(form for word in tokenize(text) for form in word_forms(word))
    found.update(form for text in names for word in tokenize(text) for form in word_forms(word))
    missing = [word for word in wanted if found.isdisjoint(word_forms(word))]
    if missing and reads_german_or_french(question):
        missing = [word for word in missing if not _inside_a_word(word, found)]
    return (len(wanted) - len(missing)) / len(wanted)


# German and French inflections, longest first, and the fewest letters a stem keeps.
_ENDINGS = ("ungen", "ees", "ent", "en", "er", "es", "et", "st", "ez", "ee", "e", "n", "s", "t")
MIN_STEM = 4


def stem(word: str) -> str:
    """A German or French word without its inflection and a participle's "ge-": "geprüft" ->
    "pruf", "gewechselt" -> "wechsel", "remplacer" -> "remplac". German writes compounds as one
    word and inflects inside them, so a question's "Filter" or "geprüft" is in a passage's
    "Ansaugfilter" or "prüfen" as this stem, not as a token."""
    if word.startswith("ge") and len(word) > MIN_STEM + 2:
        word = word[2:]
    ending = next((e for e in _ENDINGS if word.endswith(e) and len(word) - len(e) >= MIN_STEM), "")
    return word[: len(word) - len(ending)]


def _inside_a_word(word: str, found: set[str]) -> bool:
    """Whether ``word``'s :func:`stem` is part of one of the ``found`` words; a word too short for
    a stem ("oft", "öl") never is."""
    part = stem(word)
    return len(part) >= MIN_STEM and any(part in form for form in found)


def named_words(question: str) -> set[str]:
    """The question's distinct content words, less those that frame it (:data:`FRAME_WORDS`, "mean"
    asked with a do, a light verb before its object or in the passive after its subject, and the verb
    of appearing for a party) when others remain: "Who is the author?" asks for the author, "Who sent
    apologies?" and "What decisions were made?" for the apologies and the decisions, "Who appeared
    for the respondent?" for the respondent's counsel."""
    words = set(tokenize(question))
    frame = FRAME_WORDS | {"mean"} if _ASKS_WHAT_IT_MEANS.search(question) else FRAME_WORDS
    objects = _LIGHT_BEFORE_OBJECT.findall(question)
    subjects = [(verb, noun) for noun, verb in _LIGHT_AFTER_SUBJECT.findall(question)]
    frame |= {fold(verb.lower()) for verb, noun in objects + subjects if noun.lower() not in STOP_WORDS}
    represents = _REPRESENTS.findall(question)  # "on behalf of" frames with its verb
    frame |= {fold(verb.lower()) for verb, _ in represents} | {"behalf" for _, by in represents if by.lower() != "for"}
    return (words - frame) or words


def word_forms(word: str) -> set[str]:
    """A folded word and, when it ends in -ed or -ing, its stem with and without a final e, as
    Porter's step 1b takes the ending off: "stored" -> stored, stor, store; "stopping" -> stopping,
    stop, stope; "clean" -> clean. Two words meet when their forms do ("cleaned" and "clean"), and a
    bare word is never shortened ("care" and "car" do not). An irregular verb's past forms also stand
    for the verb ("took" -> take), and a noun made with -t its verb ("complaint" -> complain; a
    short word, "paint" or "saint", is no such noun), as does one made with -sion after an i or a u
    ("decision" -> decide, "conclusion" -> conclude, "revision" -> revise). A clipping of several
    words stands for each ("admin" -> administration, administrative, ...)."""
    if word in CLIPPED_FROM:
        return {word, *CLIPPED_FROM[word]}
    if word in BASE_OF:
        return {word, BASE_OF[word]}
    if len(word) >= 9 and word.endswith("aint"):  # "complaint", "restraint": the verb and its noun in -t
        return {word, word[:-1]}
    if len(word) >= 8 and word.endswith(("ision", "usion")):  # "minutes record a DECISION", not "decide"
        return {word, word[:-4] + "de", word[:-4] + "se"}
    suffix = next((s for s in ("ing", "ed") if word.endswith(s) and not word.endswith("eed")), "")
    stem = word[: -len(suffix)] if suffix else ""
    if len(stem) < 2 or not _VOWELS.search(stem):
        return {word}
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        stem = stem[:-1]  # "stopped" -> "stop"
    return {word, stem, stem + "e"}
