"""The extractive answer to a question about a slide by its topic ("What does the slide on round
robin say?"; app/llm/extractive.py). The slide's title matches the question best, and a heading
says nothing, so the answer skipped it and quoted whatever ranked next: a chart's tick value
("14") read as a paragraph of its own. A heading hit now stands for the text under it, and a number
alone answers nothing while text does."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.app.llm.extractive import best_quote, content_words
from docgraph.app.llm.service import ask
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.readers.native import NativeReader
from tests.llm_data import hybrid_over, no_llm_settings

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"  # Debian's fonts-dejavu-core (make sysdeps)

SLIDES = [
    ("Process States", ["A process is new, ready, running, waiting or terminated", "Only one runs on a core at once"]),
    (
        "Round Robin (RR)",
        [
            "Each process gets a small unit of CPU time, the time quantum q, typically 10 to 100 milliseconds",
            "After q has elapsed the process is preempted and added to the end of the ready queue",
        ],
    ),
    (
        "Round Robin (cont.)",
        [
            "Performance depends heavily on the size of the quantum chosen by the designer",
            "If q is too large it degenerates into first-come, first-served scheduling",
        ],
    ),
    ("Round Robin in Code", ["A simplified dispatcher loop takes the next process and runs it for one quantum"]),
    ("Gantt Chart for Round Robin", []),  # a chart's tick values under it, each a paragraph of its own
    ("Multilevel Queues", ["Interactive processes get their own queue, batch jobs another"]),
]


def _deck(path: Path) -> None:
    with pymupdf.open() as doc:
        for number, (title, bullets) in enumerate(SLIDES, start=1):
            page = doc.new_page(width=720, height=405)
            page.insert_text((30, 45), title, fontname="hebo", fontsize=26)
            y = 100.0
            for bullet in bullets:
                y += 30 * page.insert_textbox(
                    pymupdf.Rect(50, y - 18, 680, y + 60), bullet, fontname="helv", fontsize=18
                )
            if not bullets:
                for tick in range(0, 32, 4):
                    page.insert_text((80 + 18 * tick, 230), str(tick), fontname="helv", fontsize=11)
            page.insert_text((680, 395), str(number), fontname="helv", fontsize=9)
        doc.save(path)


def test_a_slides_title_hit_is_answered_by_its_bullets(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    _deck(tmp_path / "deck.pdf")
    hybrid = hybrid_over(falkordb_store, [tmp_path / "deck.pdf"], tmp_path / "home")
    question = "What does the slide on round robin say?"
    assert {hit.kind for hit in hybrid.retrieve(question, 2)} == {"section_header"}  # two slides' titles
    result = ask(question, falkordb_store, no_llm_settings(tmp_path), hybrid, k=2)
    assert _quotes(result.answer) and all("quantum" in quote for quote in _quotes(result.answer))
    result = ask(question, falkordb_store, no_llm_settings(tmp_path), hybrid)
    assert all(any(ch.isalpha() for ch in quote) for quote in _quotes(result.answer))
    result = ask("What does the Gantt chart for round robin show?", falkordb_store, no_llm_settings(tmp_path), hybrid)
    assert all(any(ch.isalpha() for ch in quote) for quote in _quotes(result.answer))  # no tick values alone


def _quotes(answer: str) -> list[str]:
    return [line.split("“")[1].split("”")[0] for line in answer.splitlines() if "“" in line]


def test_a_bullet_is_quoted_with_its_sub_bullets(tmp_path: Path) -> None:
    """ "What are the three phases of cellular respiration?" quoted "• The three phases of cellular
    respiration" alone: each line of a list was an item, so the sub-bullets naming the phases were
    items of their own. A line opening with another mark than the list's first goes on its item."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=720, height=405)
        page.insert_font(fontname="dv", fontfile=DEJAVU)
        page.insert_text((30, 45), "Overview of Cellular Respiration", fontname="hebo", fontsize=26)
        items = [
            (0, "Cells release the energy stored in glucose to make ATP"),
            (0, "The three phases of cellular respiration"),
            (1, "Glycolysis, in the cytosol"),
            (1, "The Krebs cycle, in the mitochondrial matrix"),
            (1, "Oxidative phosphorylation, on the inner membrane"),
            (0, "Electron carriers shuttle electrons between the phases"),
        ]
        y = 100.0
        for level, text in items:
            size = 18 if level == 0 else 15
            page.insert_text((40 + 28 * level, y), "•" if level == 0 else "–", fontname="dv", fontsize=size)
            page.insert_text((60 + 28 * level, y), text, fontname="dv", fontsize=size)
            y += size * 1.6
        doc.save(tmp_path / "slide.pdf")
    (listed,) = [r for r in NativeReader().read(tmp_path / "slide.pdf").pages[0].regions if r.kind == "list"]
    quote = best_quote(listed.text, content_words("What are the three phases of cellular respiration?"), "list")
    assert quote.startswith("• The three phases") and "Krebs cycle" in quote and "Oxidative" in quote
    assert "Electron carriers" not in quote


def test_a_frame_repeated_over_its_overlays_is_quoted_once(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """Beamer prints a frame once per overlay step, each page the one before plus a bullet: the
    answer quoted the same bullet from each page, three quotes saying one thing."""
    bullets = [
        "Strict two-phase locking holds exclusive locks until commit",
        "It avoids cascading aborts",
        "Deadlocks are found in the wait-for graph",
    ]
    with pymupdf.open() as doc:
        page = doc.new_page(width=720, height=405)
        page.insert_text((30, 45), "Transactions", fontname="hebo", fontsize=26)
        page.insert_text((50, 100), "A transaction is one logical unit of work.", fontname="helv", fontsize=18)
        for step in range(1, len(bullets) + 1):
            page = doc.new_page(width=720, height=405)
            page.insert_text((30, 45), "Strict Two-Phase Locking", fontname="hebo", fontsize=26)
            for i, bullet in enumerate(bullets[:step]):
                page.insert_text((50, 100 + 40 * i), bullet, fontname="helv", fontsize=18)
        doc.save(tmp_path / "overlays.pdf")
    hybrid = hybrid_over(falkordb_store, [tmp_path / "overlays.pdf"], tmp_path / "home")
    result = ask(
        "How long does strict two-phase locking hold exclusive locks?",
        falkordb_store,
        no_llm_settings(tmp_path),
        hybrid,
    )
    quotes = _quotes(result.answer)
    assert quotes and len(quotes) == len(set(quotes))
