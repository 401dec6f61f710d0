"""Beamer decks (ingest/readers/native.py, ingest/page/furniture.py, ingest/page/slide_titles.py).

A beamer theme sets a navigation bar of section names and a footline of three boxes in 5 pt on
every frame, more characters than a frame's few bullets: the body size was taken to be 5 pt and
every bullet read as a section header. Each frame's title sits at one place, in one font, in the
top band, and the outline frame repeated before each section prints its title there word for word:
it was read as a running head (furniture) and lost. Set barely larger than the bullets,
or bold at their size and ending in a full stop (beamer's lecture themes), it read as a paragraph.
A theme that shades the frame's head with a picture across the slide had the title under it read
as that "photo's" caption.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from tests.slide_decks import write_deck

WIDTH, HEIGHT = 362.8, 272.1  # beamer's 128 mm x 96 mm
SECTIONS = ["Introduction", "ACID Properties", "Concurrency Control", "Recovery", "Summary"]
OUTLINE = ("Outline", SECTIONS)  # beamer's AtBeginSection repeats it before each section
FRAMES = [
    OUTLINE,
    ("What is a Transaction?", ["A transaction is one logical unit of work", "It ends with COMMIT or ABORT"]),
    ("The ACID Properties", ["Atomicity: all or nothing", "Durability: committed effects survive crashes"]),
    ("Two-Phase Locking", ["Growing phase: locks are acquired", "Shrinking phase: locks are released"]),
    OUTLINE,
    ("ARIES Recovery", ["Analysis finds the dirty pages", "Redo repeats history", "Undo rolls back losers"]),
    OUTLINE,
    ("Conclusion", ["Locking gives serializability", "Logging gives atomicity and durability"]),
]


def _deck(
    path: Path, title_size: float, title_font: str, frames: list[tuple[str, list[str]]], band: bool = False
) -> None:
    with pymupdf.open() as doc:
        for number, (title, bullets) in enumerate(frames, start=1):
            page = doc.new_page(width=WIDTH, height=HEIGHT)
            x = 6.0
            for section in SECTIONS:  # the navigation bar
                page.insert_text((x, 9), section, fontname="helv", fontsize=5)
                x += pymupdf.get_text_length(section, "helv", 5) + 12
            if band:  # a shaded head drawn as a picture across the slide, the title under it
                shade = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 400, 20), False)
                shade.clear_with(180)
                page.insert_image(pymupdf.Rect(0, 0, WIDTH, 26), pixmap=shade)
            page.insert_text((8, 38 if band else 29), title, fontname=title_font, fontsize=title_size)
            y = 70.0
            for bullet in bullets:
                page.insert_text((24, y), bullet, fontname="helv", fontsize=10)
                y += 22
            boxes = ["M. Lindqvist (Uppsala)", "DB Systems, Lecture 7", f"November 2026 {number} / {len(frames)}"]
            for i, box in enumerate(boxes):  # the footline
                page.insert_text((i * WIDTH / 3 + 20, HEIGHT - 3), box, fontname="helv", fontsize=5)
        doc.save(path)


def _kinds(path: Path) -> dict[str, str]:
    return {region.text: region.kind for page in NativeReader().read(path).pages for region in page.regions}


def test_a_frames_title_heads_its_bullets_over_a_small_navigation_bar(tmp_path: Path) -> None:
    _deck(tmp_path / "deck.pdf", 11, "helv", FRAMES)
    kinds = _kinds(tmp_path / "deck.pdf")
    for title, bullets in FRAMES[1:]:  # the first is the deck's first page, its title's
        assert kinds[title] == "section_header"
        assert all(kinds[bullet] != "section_header" for bullet in bullets)
    navigation = next(text for text in kinds if text.startswith("Introduction ACID"))
    assert kinds[navigation] == "page_header"


def test_a_bold_frame_title_ending_in_a_full_stop_heads_its_frame(tmp_path: Path) -> None:
    frames = [(title.rstrip("?") + ".", bullets) for title, bullets in FRAMES]
    _deck(tmp_path / "deck.pdf", 10, "hebo", frames)
    kinds = _kinds(tmp_path / "deck.pdf")
    assert all(kinds[title] == "section_header" for title, _ in frames[1:])
    assert kinds["Outline."] == "section_header"


def test_a_title_under_a_shaded_band_is_no_caption(tmp_path: Path) -> None:
    frames = [(title.rstrip("?") + ".", bullets) for title, bullets in FRAMES]
    _deck(tmp_path / "deck.pdf", 10, "tibo", frames, band=True)  # in its own face, as beamer's SFSX
    kinds = _kinds(tmp_path / "deck.pdf")
    assert all(kinds[title] == "section_header" for title, _ in frames[1:])


def test_an_agendas_highlighted_part_is_one_of_its_items(tmp_path: Path) -> None:
    """A lecture repeats its agenda before each part, the part to come in bold: that item was read
    as a section header ("2. Scheduling criteria", a section holding only the agenda's rest) and
    the agenda cut into two lists around it."""
    parts = ["Processes and the scheduler", "Scheduling criteria", "Scheduling algorithms", "Summary"]
    with pymupdf.open() as doc:
        for current in range(len(parts)):
            page = doc.new_page(width=720, height=405)
            page.insert_text((30, 45), "Outline", fontname="hebo", fontsize=26)
            for i, part in enumerate(parts):
                font = "hebo" if i == current else "helv"
                page.insert_text((60, 100 + 36 * i), f"{i + 1}.  {part}", fontname=font, fontsize=20)
            page = doc.new_page(width=720, height=405)
            page.insert_text((30, 45), parts[current], fontname="hebo", fontsize=26)
            page.insert_text(
                (50, 100), f"What this part says about {parts[current].lower()}.", fontname="helv", fontsize=18
            )
        doc.save(tmp_path / "deck.pdf")
    for page in NativeReader().read(tmp_path / "deck.pdf").pages[2::2]:  # the agendas after the first
        kinds = [(region.kind, region.text.count("\n") + 1) for region in page.regions]
        assert kinds == [("section_header", 1), ("list", len(parts))]


def test_a_continued_slide_stays_in_its_section(tmp_path: Path) -> None:
    """A topic run over two slides, the second titled "Round Robin (cont.)", made a section of its
    own beside "Round Robin (RR)": the second slide's bullets were in no section about round robin
    but one titled "(cont.)"."""
    slides = [
        ("First-Come, First-Served", "Processes are served in the order they arrive."),
        ("Round Robin (RR)", "Each process gets a small unit of CPU time, the quantum."),
        ("Round Robin (cont.)", "A quantum too large degenerates into first-come, first-served."),
        ("Summary", "Round robin gives good response time."),
    ]
    write_deck(tmp_path / "deck.pdf", slides)
    batch = build_graph(NativeReader().read(tmp_path / "deck.pdf"))
    titles = {node.key: node.props["title"] for node in batch.nodes if node.label == "Section"}
    texts = {node.key: node.props["text"] for node in batch.nodes if node.label == "Region"}
    under = {texts[e.src_key]: titles[e.dst_key] for e in batch.edges if e.type == "IS_UNDER" and e.dst_key in titles}
    assert "Round Robin (cont.)" not in titles.values()
    assert under["A quantum too large degenerates into first-come, first-served."] == "Round Robin (RR)"
    assert under["Round robin gives good response time."] == "Summary"
