"""Documents and questions in other languages than English: what is read, stored and found as
written (accents, umlauts, other scripts), on a real store with PDFs made here."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pymupdf

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import find_document
from docgraph.app.llm.service import ask
from docgraph.app.llm.text_units import sentences
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.base import ScoredRegion
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.retrieval.relevance import coverage
from docgraph.app.retrieval.text import tokenize
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.floats.captions import CAPTION_DELIMITER_RE
from tests.llm_data import no_llm_settings

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"  # Debian's fonts-dejavu-core (make sysdeps)
GERMAN = [
    "Der Geräuschpegel des Kühlschranks beträgt 38 dB im Normalbetrieb.",
    "Die Größe der Gemüseschale ist für Straßenschuhe nicht geeignet.",
    "Reinigen Sie die Dichtung einmal im Monat mit warmem Wasser.",
]


def german_manual(folder: Path) -> Path:
    pdf = folder / "kuehlschrank.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        for line, text in enumerate(GERMAN):
            page.insert_text((72, 72 + 40 * line), text, fontsize=11)
        doc.save(pdf)
    return pdf


def test_the_stores_full_text_search_finds_words_with_umlauts_and_sharp_s(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """The query went to the index with its accents folded away ("gerauschpegel"), which the index,
    keeping them, never matched: every word with an umlaut, an accent or ß found nothing."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(german_manual(tmp_path)).status == "ingested"
    falkordb_store.wait_for_indexes()
    retriever = make_retriever("fulltext-region", falkordb_store, configured_encoder(settings), settings=settings)
    for word, line in (("Geräuschpegel", 0), ("Größe", 1), ("Straßenschuhe", 1)):
        hits = retriever.retrieve(word, k=3)
        assert hits and GERMAN[line][:30] in hits[0].text, (word, [hit.text for hit in hits])


def test_a_chinese_paragraph_wrapped_over_lines_is_stored_without_spaces_at_the_wraps(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """Each line wrap became a space ("拔下电源 插头"): quotes read broken, and the character pair
    across the wrap was gone from the keyword index."""
    pdf = tmp_path / "jinghuaqi.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        for line, text in enumerate(("更换滤网前必须拔下电源", "插头，然后打开后盖并取出旧的滤网。")):
            page.insert_text((72, 72 + 16 * line), text, fontname="china-s", fontsize=12)
        doc.save(pdf)
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(pdf).status == "ingested"
    texts = [str(row["text"]) for row in falkordb_store.read("MATCH (r:Region) RETURN r.text AS text")]
    assert "更换滤网前必须拔下电源插头，然后打开后盖并取出旧的滤网。" in texts, texts


def test_sentences_start_at_capitals_of_every_alphabet() -> None:
    """Only A-Z began a sentence: a German, French or Russian paragraph was one "sentence", and an
    answer quoted the whole of it where an English one quotes the sentences that match."""
    assert sentences("Lesen Sie die Anleitung. Öffnen Sie die Tür. Über die Taste startet es.") == [
        "Lesen Sie die Anleitung.",
        "Öffnen Sie die Tür.",
        "Über die Taste startet es.",
    ]
    assert sentences("Nettoyez la buse. Évitez les chocs.") == ["Nettoyez la buse.", "Évitez les chocs."]
    assert len(sentences("Затяните болты. Подключите шланг. Ёмкость барабана 7 кг.")) == 3
    assert sentences("See e.g. the table. and so on") == ["See e.g. the table. and so on"]  # lower case: no cut


def test_decomposed_letters_are_stored_composed_and_a_decomposed_name_finds_its_document(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """Text a PDF spells with combining marks ("U" + U+0308) was stored so: a question or a CONTAINS
    with "Überlaufschale" typed composed found nothing; and a file name copied from a macOS folder
    (decomposed) named no document."""
    composed = "Die Größe der Überlaufschale reicht für zwei Liter Wasser."
    pdf = tmp_path / unicodedata.normalize("NFC", "Kühlschrank.pdf")
    with pymupdf.open() as doc:  # a font with combining marks (the built-in ones draw them as "·")
        page = doc.new_page()
        page.insert_font(fontname="dejavu", fontfile=DEJAVU)
        page.insert_text((72, 72), unicodedata.normalize("NFD", composed), fontname="dejavu", fontsize=11)
        doc.save(pdf)
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    report = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(pdf)
    assert report.status == "ingested"
    found = falkordb_store.read("MATCH (r:Region) WHERE r.text CONTAINS 'Überlaufschale' RETURN r.text AS text")
    assert [row["text"] for row in found] == [composed]
    decomposed_name = unicodedata.normalize("NFD", pdf.name)
    assert decomposed_name != pdf.name and find_document(falkordb_store, decomposed_name)["doc_id"] == report.doc_id


def test_a_chinese_paragraph_running_over_a_page_break_is_one_passage(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """It needed the next page to start in lower case (Chinese has none) or after an ASCII comma:
    "…这样压缩机里的" / "润滑油才能回流…" were two passages, the HAS_NEXT edge no continuation."""
    pdf = tmp_path / "fenye.pdf"
    with pymupdf.open() as doc:
        pages = [
            ("冰箱搬运后请静置四个小时再接通电源，", "这样压缩机里的"),
            ("润滑油才能回流到底部。", "否则压缩机可能损坏。"),
        ]
        for top, lines in zip((700, 72), pages, strict=True):
            page = doc.new_page()
            for line, text in enumerate(lines):
                page.insert_text((72, top + 16 * line), text, fontname="china-s", fontsize=12)
        doc.save(pdf)
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(pdf).status == "ingested"
    rows = falkordb_store.read(
        "MATCH (a:Region {page: 1})-[e:HAS_NEXT]->(b:Region {page: 2}) "
        "RETURN a.text AS last, b.text AS first, e.continuation AS continuation"
    )
    assert [(row["last"][-3:], row["first"][:3], row["continuation"]) for row in rows] == [("机里的", "润滑油", True)]


def _german_manual_with_a_figure(folder: Path) -> Path:
    """Two chapters ("Kapitel 1 ..."), a paragraph referring to "Abbildung 3" and "Kapitel 2", and
    on page 2 a drawing captioned "Abbildung 3: ...". Nothing in it is English."""
    pdf = folder / "handbuch.pdf"
    body = [
        "Dieses Handbuch beschreibt den Kühlschrank KS-200. Den Aufbau des Geräts",
        "zeigt Abbildung 3, die Maße stehen in Tabelle 2. Wie das Gerät aufgestellt",
        "wird, steht in Kapitel 2 auf der nächsten Seite.",
    ]
    with pymupdf.open() as doc:
        for number, title in ((1, "Kapitel 1 Einleitung"), (2, "Kapitel 2 Aufstellung")):
            page = doc.new_page()
            page.insert_font(fontname="dv", fontfile=DEJAVU)
            page.insert_text((72, 80), title, fontname="dv", fontsize=16)
            lines = body if number == 1 else ["Stellen Sie das Gerät auf einen ebenen Boden."]
            for line, text in enumerate(lines):
                page.insert_text((72, 120 + 15 * line), text, fontname="dv", fontsize=11)
        figure_page = doc[1]
        figure_page.draw_rect(pymupdf.Rect(150, 160, 450, 360), color=(0, 0, 0), fill=(0.8, 0.8, 0.9))
        figure_page.draw_line((160, 200), (440, 340))
        caption = "Abbildung 3: Aufbau des Kühlschranks mit Gemüseschale"
        figure_page.insert_text((150, 380), caption, fontname="dv", fontsize=10)
        doc.set_toc([[1, "Kapitel 1 Einleitung", 1], [1, "Kapitel 2 Aufstellung", 2]])
        doc.save(pdf)
    return pdf


def _chinese_manual_with_a_figure(folder: Path) -> Path:
    pdf = folder / "xitong.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 80), "第1章 概述", fontname="china-s", fontsize=16)
        page.insert_text((72, 120), "本系统由三个模块组成，如图1所示。", fontname="china-s", fontsize=11)
        page.draw_rect(pymupdf.Rect(150, 160, 450, 360), color=(0, 0, 0), fill=(0.8, 0.8, 0.9))
        page.draw_line((160, 200), (440, 340))
        page.insert_text((150, 380), "图1：系统结构", fontname="china-s", fontsize=10)
        doc.save(pdf)
    return pdf


def test_captions_and_references_in_german_and_chinese_are_linked(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """Caption and reference words were English only: "Abbildung 3: ..." and "图1：..." captioned
    nothing, "siehe Abbildung 3", "如图1所示" and "in Kapitel 2" had no REF edge, and a chapter
    titled "Kapitel 2 Aufstellung" had no number."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    for pdf in (_german_manual_with_a_figure(tmp_path), _chinese_manual_with_a_figure(tmp_path)):
        assert pipeline.ingest(pdf).status == "ingested"
    captions = falkordb_store.read(
        "MATCH (c:Region)-[:CAPTION_OF]->(f:Region) RETURN c.doc_id AS doc, c.text AS caption, f.kind AS kind"
    )
    assert {(row["doc"], str(row["caption"])[:11], row["kind"]) for row in captions} == {
        ("handbuch", "Abbildung 3", "figure"),
        ("xitong", "图1：系统结构", "figure"),
    }
    refs = falkordb_store.read(
        "MATCH (r:Region)-[e:REF]->(t) RETURN r.doc_id AS doc, e.label AS label, coalesce(t.kind, t.title) AS target"
    )
    assert {(row["doc"], row["label"], row["target"]) for row in refs} == {
        ("handbuch", "Figure 3", "figure"),
        ("handbuch", "Chapter 2", "Kapitel 2 Aufstellung"),
        ("xitong", "Figure 1", "figure"),
    }
    numbers = falkordb_store.read("MATCH (s:Section) RETURN s.title AS title, s.number AS number")
    assert {(row["title"], row["number"]) for row in numbers} >= {("Kapitel 2 Aufstellung", "2"), ("第1章 概述", "1")}


def test_caption_words_of_other_languages_do_not_take_english_lines_for_captions() -> None:
    """ "Tableau" and "Quadro" are English product names too: "Quadro 4000: a card ..." and
    "Tableau 10.5 - the dashboards ..." were read as captions and left the text flow."""
    for english in ("Quadro 4000: a professional card with 256 cores", "Tableau 10.5 - the dashboards export"):
        assert not CAPTION_DELIMITER_RE.match(english), english
    for caption in (
        "Tableau 2 – Résultats",
        "Tableau 2 : Résultats",
        "Abbildung 3a. Teil",
        "Tabelle A.1: Werte",
        "图1：系统结构",
    ):
        assert CAPTION_DELIMITER_RE.match(caption), caption
    assert CAPTION_DELIMITER_RE.match("Figure 10.5 - Pressure drop")  # English as before


CONDITIONS = [
    "Gehen Sie bei der ersten Inbetriebnahme wie folgt vor:",
    "Rechnungen sind innerhalb von 30 Tagen ab Rechnungsdatum ohne Abzug zur Zahlung fällig. Bei Zahlung"
    " innerhalb von 10 Tagen gewährt die Verkäuferin 2 % Skonto auf den Rechnungsbetrag.",
    "Prévoir en amont un disjoncteur de 16 A courbe C pour protéger le variateur.",
]


def test_german_and_french_function_words_neither_rank_passages_nor_count_as_missing(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """Only English function words were left out: "Wie hoch ist der Skonto?" ranked the line sharing
    "wie" and "der" over the clause holding "Skonto", and "Quel disjoncteur faut-il prévoir en
    amont ?" was not answered while quoting the line that answers it ("quel", "il" not found)."""
    pdf = tmp_path / "bedingungen.pdf"
    with pymupdf.open() as doc:
        for text in CONDITIONS:
            doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 523, 142), text, fontsize=10)
        doc.save(pdf)
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(pdf).status == "ingested"
    falkordb_store.wait_for_indexes()
    retriever = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)
    hits = retriever.retrieve("Wie hoch ist der Skonto?", k=3)
    assert hits and "Skonto" in hits[0].text, [hit.text for hit in hits]
    result = ask("Quel disjoncteur faut-il prévoir en amont ?", falkordb_store, no_llm_settings(tmp_path), retriever)
    assert not result.abstained and "disjoncteur de 16 A" in result.answer, result.relevance


def test_function_words_that_english_or_code_spells_too_go_only_from_german_or_french() -> None:
    assert tokenize("Is DES supported on the die? Run du") == ["des", "supported", "die", "run", "du"]
    assert tokenize("Wie hoch ist die Nennspannung des Kompressors?") == ["hoch", "nennspannung", "kompressor"]
    assert tokenize("Quelle est la tension que supporte le moteur ?") == ["tension", "supporte", "moteur"]
    # function words that English technical text spells as names stay in English text
    english = "Use an Allen key on the DAS and the MES server; set ou=people for SES. Ist DEM ready?"
    assert {"allen", "das", "mes", "ou", "ses", "ist", "dem"} <= set(tokenize(english))


MAINTENANCE = [
    "Die Hebebühne ist jährlich durch eine befähigte Person zu prüfen.",
    "Das Wartungsintervall für den Ansaugfilter beträgt 500 Betriebsstunden.",
    "Le ventilateur doit être remplacé après 30 000 heures de fonctionnement.",
]


def test_a_german_or_french_word_counts_as_found_inside_a_compound_or_another_inflection(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """ "Wie oft muss die Hebebühne geprüft werden?" was refused while quoting "Die Hebebühne ist
    jährlich ... zu prüfen": "geprüft" is no token of "prüfen", nor "Filter" of "Ansaugfilter", nor
    "remplacer" of "remplacé", so the bar found a third of the question's words."""
    pdf = tmp_path / "wartung.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        for line, text in enumerate(MAINTENANCE):
            page.insert_text((72, 72 + 40 * line), text, fontsize=11)
        doc.save(pdf)
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(pdf).status == "ingested"
    falkordb_store.wait_for_indexes()
    retriever = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)
    for question in (
        "Wie oft muss die Hebebühne geprüft werden?",
        "Wie lange ist das Wartungsintervall für den Filter?",
        "Quand faut-il remplacer le ventilateur ?",
    ):
        result = ask(question, falkordb_store, no_llm_settings(tmp_path), retriever)
        assert not result.abstained, (question, result.relevance)


def test_an_english_word_inside_another_word_is_not_found() -> None:
    hit = ScoredRegion("r", "d", 1, (), "paragraph", "Send the report to support.", 1.0)
    assert coverage("Which port is open?", [hit]) == 0.0
    assert coverage("Welcher Port ist offen?", [hit]) == 0.5  # German: "Port" in "report"


def test_german_abbreviations_end_no_sentence_in_a_quote(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """ "Welches Kompressoröl fülle ich nach?" was answered with the quote "B. Kompressoröl der Klasse
    VG 100 nach (vgl.": the full stops of "z. B.", "vgl. Tabelle", "Abb. 2" and "ca. 5" were taken
    for sentence ends."""
    pdf = tmp_path / "oelstand.pdf"
    text = (
        "Prüfen Sie den Ölstand am Schauglas (siehe Abb. 2). Füllen Sie z. B. Kompressoröl der Klasse VG 100"
        " nach (vgl. Tabelle 2). Warten Sie danach ca. 5 Minuten."
    )
    with pymupdf.open() as doc:
        doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 523, 200), text, fontsize=11)
        doc.save(pdf)
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(pdf).status == "ingested"
    falkordb_store.wait_for_indexes()
    retriever = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)
    result = ask("Welches Kompressoröl fülle ich nach?", falkordb_store, no_llm_settings(tmp_path), retriever)
    assert "Füllen Sie z. B. Kompressoröl der Klasse VG 100 nach (vgl. Tabelle 2).”" in result.answer, result.answer
    assert sentences(text) == [
        "Prüfen Sie den Ölstand am Schauglas (siehe Abb. 2).",
        "Füllen Sie z. B. Kompressoröl der Klasse VG 100 nach (vgl. Tabelle 2).",
        "Warten Sie danach ca. 5 Minuten.",
    ]
