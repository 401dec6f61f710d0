"""The lexical tokens that BM25 and full-text queries are built from (``app.retrieval.text``)."""

from __future__ import annotations

import pytest

from docgraph.app.retrieval.bm25 import BM25Index
from docgraph.app.retrieval.spelling import american
from docgraph.app.retrieval.text import fold, tokenize


def test_code_names_are_kept_whole_and_split_into_their_parts() -> None:
    assert tokenize("canvas.drawImage") == ["canvas.drawimage", "canva", "draw", "image"]
    assert tokenize("asn1_der_decoding2") == ["asn1_der_decoding2", "asn1", "der", "decoding2"]
    assert tokenize("What is the default of the threshold?") == ["default", "threshold"]


@pytest.mark.parametrize(
    ("hyphenated", "closed"),
    [("multi-line", "multiline"), ("read-only", "readonly"), ("e-mail", "email"), ("sub-directories", "subdirectory")],
)
def test_a_hyphenated_word_also_matches_its_closed_spelling(hyphenated: str, closed: str) -> None:
    assert tokenize(closed)[0] in tokenize(hyphenated)


def test_bm25_finds_the_closed_spelling_from_the_hyphenated_one() -> None:
    # ReportLab's field flags table: "multiline | for multiline text widget | 1<<12"
    index = BM25Index(["doNotScroll text fields do not scroll", "multiline for multiline text widget"])
    assert index.top_k("Which flag makes a multi-line text field?", 1)[0][0] == 1


def test_only_two_letter_words_joined_by_a_hyphen_are_closed_up() -> None:
    assert "xyz" not in tokenize("x-y-z")
    assert "utf8" not in tokenize("UTF-8")
    assert tokenize("asn1_der_decoding2") == ["asn1_der_decoding2", "asn1", "der", "decoding2"]


@pytest.mark.parametrize(
    ("british", "us"),
    [
        ("colour", "color"),
        ("Colours", "colors"),
        ("coloured", "colored"),
        ("colourmap", "colormap"),
        ("neighbourhood", "neighborhood"),
        ("behaviour", "behavior"),
        ("initialise", "initialize"),
        ("customising", "customizing"),
        ("normalisation", "normalization"),
        ("recognised", "recognized"),
        ("centre", "center"),
        ("grey", "gray"),
        ("catalogue", "catalog"),
        ("modelling", "modeling"),
        ("labelled", "labeled"),
        ("analyse", "analyze"),
    ],
)
def test_british_and_american_spellings_fold_to_the_same_token(british: str, us: str) -> None:
    assert fold(british) == fold(us)
    assert tokenize(british) == tokenize(us)


LOOK_ALIKES = [
    "hour",
    "four",
    "contour",
    "detour",
    "your",
    "otherwise",
    "precise",
    "noise",
    "promise",
    "realism",
    "raise",
]


@pytest.mark.parametrize("word", LOOK_ALIKES)
def test_words_that_only_look_british_are_left_alone(word: str) -> None:
    assert american(word) == word


def test_plurals_fold_before_the_final_y() -> None:
    assert fold("tables") == fold("table") and fold("classes") == "class"
    assert fold("entries") == fold("entry")
    assert fold("indexes") == fold("index") and fold("boxes") == fold("box") and fold("crashes") == fold("crash")
    assert fold("arrays") == fold("array")  # the plural goes first, then y -> i, as in Porter
    assert fold("keys") == fold("key") == "key"  # too short to fold
    assert fold("analysis") == "analysis" and fold("status") == "status"


def test_letters_beyond_ascii_are_letters_and_accents_fold_away() -> None:
    # "Größe" was cut into "gr" and "e", and "Poincaré" lost its last letter.
    assert tokenize("Die Größe der Tabelle") == ["die", "grosse", "der", "tabelle"]
    assert tokenize("Poincaré map, naïve Bayes") == tokenize("Poincare map, naive Bayes")
    assert tokenize("α-level") == ["α-level", "α", "level"]
    assert tokenize("sinh−1 x") == ["sinh", "1", "x"]  # a minus sign still separates


def test_bm25_finds_an_accented_word_from_its_plain_spelling() -> None:
    texts = ["The Poincaré section of the orbit.", "The section of the orbit, drawn again.", "Müller's table."]
    index = BM25Index(texts)
    assert [i for i, _ in index.top_k("poincare section", 1)] == [0]
    assert [i for i, _ in index.top_k("Mueller table Muller", 1)] == [2]


def test_text_without_spaces_is_cut_into_character_pairs() -> None:
    assert tokenize("営業時間") == ["営業", "業時", "時間"]
    assert tokenize("東京 drawImage") == ["東京", "drawimage", "draw", "image"]
    texts = ["東京都庁の営業時間は午前9時から午後6時までです。", "大阪城の入場料は大人六百円です。", "Opening hours."]
    index = BM25Index(texts)
    assert [i for i, _ in index.top_k("都庁の営業時間は?", 1)] == [0]
    assert [i for i, _ in index.top_k("大阪城 入場料", 1)] == [1]


def test_a_vowel_sign_or_virama_stays_inside_its_word() -> None:
    """Indic vowel signs are combining marks, not letters: a word must not break at each of them."""
    assert tokenize("हिन्दी भाषा") == ["हिनदी", "भाषा"]  # two words; the virama folds away
    texts = ["पेंगुइन को सुबह खाना मिलता है।", "शेर को शाम को खाना मिलता है।", "Opening hours."]
    assert [i for i, _ in BM25Index(texts).top_k("पेंगुइन", 1)] == [0]
    assert BM25Index(texts).scores("पेंगुइन")[1] == 0.0  # no shared consonants counted as matches


def test_thai_lao_khmer_and_myanmar_are_cut_into_character_pairs_too() -> None:
    texts = ["นกเพนกวินได้รับอาหารเวลาสิบโมงครึ่ง", "สิงโตนอนหลับทั้งวัน", "Opening hours."]
    index = BM25Index(texts)
    assert index.scores("อาหาร")[0] > 0 and [i for i, _ in index.top_k("นกเพนกวิน อาหาร", 1)] == [0]
    assert tokenize("ភាសាខ្មែរ")[:2] == ["ភា", "ាស"] and tokenize("မြန်မာ")[0] == "မြ"


def test_a_command_line_option_is_also_kept_with_its_dashes() -> None:
    """ "--retries" was the word "retri" alone, as "retries = 5" and nf_set_retries are: a question
    naming the option met every use of the word alike."""
    assert tokenize("--retries N") == ["--retries", "retri", "n"]
    assert tokenize("the \u2013retries and \u2212v options")[:2] == ["--retries", "-v"]  # as TeX sets them
    assert tokenize("--with-ssl=yes")[:2] == ["--with-ssl", "with-ssl"]
    assert [t for t in tokenize("a well-known -1 offset, pages 3-5 - see x-y") if t.startswith("-")] == []
    texts = ["--retries N Retry a failed transfer N times.", "retries = 5", "int nf_set_retries(int count)"]
    assert [i for i, _ in BM25Index(texts).top_k("What does --retries do?", 1)] == [0]


def test_a_hex_number_is_one_word_and_its_digits() -> None:
    """ "0x1F" was split like a camelCase name into "0x1" and "F" (every code from 0x10 to 0x1E then
    shared a word with it); kept whole only, "0xCF" no longer met the "\\xCF" a C string writes (dev
    question lt-07 lost its gold page's citation)."""
    assert tokenize("error 0x1F") == ["error", "0x1f", "0x", "1f"]
    assert "0x1" not in tokenize("0x1F")
    assert "cf" in tokenize("0xCF") and "cf" in tokenize(r'value="\xCF"')
