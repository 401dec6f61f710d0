"""Documents and questions in other languages than English: what is read, stored and found as
written (accents, umlauts, other scripts), on a real store with PDFs made here."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pymupdf

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import find_document
from docgraph.app.llm.text_units import sentences
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.falkordb_store import FalkorDBStore

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
