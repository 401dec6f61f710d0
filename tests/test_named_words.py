"""A question that writes two or more names ("What is the full reference for Smith 1998?"): the
regions holding all of them are lifted as a named part's are, though prose and headings embed
closer to the question. A real local store, a history book made here, the ONNX encoder."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.app.retrieval.base import Retriever
from docgraph.app.stores.falkordb_store import FalkorDBStore
from tests.llm_data import hybrid_over

PROSE = [
    "The printers of Leipzig were the first trade in Saxony to found an association of their own in the"
    " spring of 1848. Their petition to the town council asked for a ten-hour day and for the abolition"
    " of the guild's fees on journeymen who moved between towns.",
    "Historians have long read the association as a school of democratic politics. The masters' records"
    " suggest a narrower aim: a fund that would carry members through illness and the winter months when"
    " the presses stood idle, and a say in who was taken on as an apprentice.",
    "By the autumn the association counted four hundred members, and its newspaper reached readers in"
    " Dresden and Chemnitz. The strike of March 1849 ended in defeat, and the fund was dissolved in 1850.",
]
BIBLIOGRAPHY = [
    "Blackbourn, David. The Long Nineteenth Century: A History of Germany, 1780-1918. Oxford: Oxford"
    " University Press, 1997.",
    "Brophy, James M. Popular Culture and the Public Sphere in the Rhineland, 1800-1850. Cambridge:"
    " Cambridge University Press, 2007.",
    "Evans, Richard J. The Coming of the Third Reich. London: Allen Lane, 2003.",
    "Hamerow, Theodore S. Restoration, Revolution, Reaction: Economics and Politics in Germany,"
    " 1815-1871. Princeton: Princeton University Press, 1958.",
    "Kocka, Jürgen. Arbeitsverhältnisse und Arbeiterexistenzen. Bonn: Dietz, 1990.",
    "Nipperdey, Thomas. Deutsche Geschichte 1800-1866. Munich: Beck, 1983.",
    "Sheehan, James J. German History, 1770-1866. Oxford: Clarendon Press, 1989.",
    "Smith, Helmut Walser. 1998. Printers, Journeymen and the Politics of Association in Leipzig,"
    " 1830-1848. Central European History 31, no. 1: 33-68.",
    "Sperber, Jonathan. Rhineland Radicals: The Democratic Movement and the Revolution of 1848-1849."
    " Princeton: Princeton University Press, 1991.",
    "Walker, Mack. German Home Towns: Community, State, and General Estate, 1648-1871. Ithaca: Cornell"
    " University Press, 1971.",
]


def _book(pdf: Path) -> None:
    """A chapter's two pages of prose with numbered footnotes, then the bibliography."""
    with pymupdf.open() as doc:
        for number, text in enumerate(PROSE, start=1):
            page = doc.new_page(width=432, height=648)
            page.insert_text((54, 40), "PRINTERS AND POLITICS", fontname="helv", fontsize=8)
            if number == 1:
                page.insert_text((54, 90), "Chapter 2. The Leipzig Printers", fontname="tibo", fontsize=16)
            assert page.insert_textbox(pymupdf.Rect(54, 110, 378, 400), text, fontname="tiro", fontsize=11) >= 0
            note = f"{number}. Smith 1998, {40 + 5 * number}-{44 + 5 * number}; compare Sperber 1991, 112."
            page.insert_text((54, 560), note, fontname="tiro", fontsize=8)
            page.insert_text((210, 610), str(number + 20), fontname="tiro", fontsize=9)
        page = doc.new_page(width=432, height=648)
        page.insert_text((54, 80), "Bibliography", fontname="tibo", fontsize=16)
        y = 110.0
        for entry in BIBLIOGRAPHY:
            rect = pymupdf.Rect(54, y, 378, y + 40)
            assert page.insert_textbox(rect, entry, fontname="tiro", fontsize=10) >= 0
            y += 14 * (1 + len(entry) // 60) + 6
        page.insert_text((210, 610), str(len(PROSE) + 21), fontname="tiro", fontsize=9)
        doc.save(pdf)


@pytest.fixture
def book_hybrid(falkordb_store: FalkorDBStore, tmp_path: Path) -> Retriever:
    _book(tmp_path / "printers.pdf")
    return hybrid_over(falkordb_store, [tmp_path / "printers.pdf"], tmp_path / "home")


def test_an_author_and_year_find_the_entry_and_the_notes_citing_it(book_hybrid: Retriever) -> None:
    """The bibliography's heading and other entries, closer in embedding to "full reference", came
    before the Smith entry."""
    hits = book_hybrid.retrieve("What is the full reference for Smith 1998?", 5)
    assert any(hit.text.startswith("Smith, Helmut Walser. 1998.") for hit in hits[:4])
    assert all("Smith" in hit.text and "1998" in hit.text and "part" in hit.signals for hit in hits[:4])


def test_one_name_alone_lifts_nothing(book_hybrid: Retriever) -> None:
    hits = book_hybrid.retrieve("Which works did Sperber write?", 10)
    assert hits and not [hit for hit in hits if "part" in hit.signals]
