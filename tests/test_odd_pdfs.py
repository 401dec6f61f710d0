"""PDFs and file names real users bring that broke the ingest: titles ending in a NUL, names in
scripts the id's slug cannot spell, and pages of thousands of tiny spans (each on a real store or
against the code it replaced)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pymupdf

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import find_document, upload_file_name
from docgraph.app.jobs.render import MAX_RENDER_PIXELS, render_page
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.ui_support.ingest import ingest_files, save_upload
from docgraph.ingest.page import display_math
from docgraph.ingest.structure.ids import doc_id_for
from docgraph.ingest.types import BBox


def two_page_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    for number, heading in enumerate(["Feeding", "Cleaning"], 1):
        page = doc.new_page()
        page.insert_text((72, 72), f"{number} {heading}", fontsize=16)
        page.insert_text((72, 110), f"The penguins are fed at 10:30, says page {number}.", fontsize=10)
    doc.set_metadata({"title": "Report"})
    doc.set_toc([[1, "Feeding", 1], [1, "Cleaning", 2]])
    doc.save(path)
    return path


def test_titles_ending_in_a_nul_are_stored_without_it(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """Some writers end a UTF-16 title with its terminator: PyMuPDF gives 'Report\\x00', which
    FalkorDB's query text cannot hold; the whole document failed at the write."""
    pdf = two_page_pdf(tmp_path / "plain.pdf")
    doc = pymupdf.open(pdf)
    _, info = doc.xref_get_key(-1, "Info")
    doc.xref_set_key(int(info.split()[0]), "Title", "<FEFF005200650070006F007200740000>")  # "Report\0"
    doc.xref_set_key(doc.get_outline_xrefs()[0], "Title", "<FEFF00460065006500640069006E00670000>")
    doc.save(tmp_path / "report.pdf")
    assert pymupdf.open(tmp_path / "report.pdf").metadata["title"] == "Report\x00"

    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    report = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(tmp_path / "report.pdf")
    assert report.status == "ingested", report.error
    rows = falkordb_store.read("MATCH (d:Document) RETURN d.title AS title")
    assert rows == [{"title": "Report"}]
    sections = falkordb_store.read("MATCH (s:Section) RETURN s.title AS title ORDER BY s.order")
    assert [row["title"] for row in sections][:2] == ["Feeding", "Cleaning"]


def test_names_the_slug_cannot_spell_get_ids_of_their_own(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """'報告書1.pdf' and '議事録1.pdf' were both stored as '1' (the second replaced the first) and
    '日本語.pdf' could not be ingested at all; names the slug spells keep their ids."""
    assert doc_id_for("Café menu.pdf") == "cafe-menu" and doc_id_for("report_v2.PDF") == "report-v2"
    ids = {name: doc_id_for(name) for name in ("報告書1.pdf", "議事録1.pdf", "日本語.pdf", "Straße.pdf", "Strae.pdf")}
    assert len(set(ids.values())) == len(ids) and all(i.isascii() for i in ids.values())
    assert ids["報告書1.pdf"].startswith("1-") and ids["Straße.pdf"].startswith("strae-")
    # names of symbols alone were refused ("cannot derive a document id"); they get the hash alone
    symbols = [doc_id_for(name) for name in ("🦒.pdf", "🐧.pdf", "---.pdf")]
    assert len(set(symbols)) == 3 and all(re.fullmatch("[0-9a-f]+", i) for i in symbols)
    # uploads (API and UI) keep the name a file on disk has, so that they get the id the CLI gives it
    assert upload_file_name("日本語.pdf") == "日本語.pdf" and upload_file_name("../x y.pdf") == "x y.pdf"
    # a browser's or curl's form encoding of '"' (%22) made x"y.pdf the document x-22y, not x-y
    assert upload_file_name("x%22y.pdf") == 'x"y.pdf' and doc_id_for('x"y.pdf') == "x-y"
    assert re.fullmatch("[0-9a-f]+", doc_id_for(" .pdf"))  # a name of spaces was refused; a hash, as for 🦒

    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    for name in ("報告書1.pdf", "議事録1.pdf", "日本語.pdf"):
        assert pipeline.ingest(two_page_pdf(tmp_path / name)).status == "ingested"
    rows = falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc_id, d.file_name AS name")
    stored = {row["name"]: row["doc_id"] for row in rows}
    assert stored == {name: ids[name] for name in ("報告書1.pdf", "議事録1.pdf", "日本語.pdf")}


def test_an_upload_is_the_document_the_same_file_on_disk_is(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """A UI upload of 'Zoo-Führer 日本語.pdf' was saved as 'Zoo-Führer_日本語.pdf' (the API's as
    'Zoo-Führer-日本語.pdf'): a second document of the same file, under another id and file name
    than `docgraph ingest` gives it, which `--doc 'Zoo-Führer 日本語.pdf'` could not find."""
    name = "Zoo-Führer 日本語.pdf"
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    uploaded = save_upload(name, two_page_pdf(tmp_path / "original.pdf").read_bytes(), tmp_path / "uploads")
    (report,) = ingest_files(falkordb_store, settings, [uploaded], uploaded=[uploaded])
    assert report.status == "ingested" and report.doc_id == doc_id_for(name)
    assert find_document(falkordb_store, name)["doc_id"] == doc_id_for(name)
    assert find_document(falkordb_store, name)["source_path"] == f"uploaded as {uploaded.name}"  # not its temp path
    on_disk = tmp_path / "disk" / name
    on_disk.parent.mkdir()
    on_disk.write_bytes(uploaded.read_bytes())
    again = build_ingest_pipeline(falkordb_store, settings).ingest(on_disk)  # as the UI builds it
    assert (again.status, again.doc_id) == ("unchanged", doc_id_for(name))


def touching_groups_one_by_one(
    members: list[display_math._Member], geometry: display_math._Geometry
) -> list[list[int]]:
    """The grouping as it was first written: each member against every member of every group."""
    groups: list[list[display_math._Member]] = []
    for member in (m for m in members if m.role != "tag"):
        joined = [g for g in groups if any(geometry.touch(member.box, other.box) for other in g)]
        groups = [g for g in groups if not any(g is j for j in joined)] + [[member, *(m for g in joined for m in g)]]
    return [[m.index for m in g] for g in groups]


def test_formula_pieces_are_grouped_as_before_through_the_grid() -> None:
    """A page of 10,000 tiny spans took a minute in the one-by-one grouping; the grid must give the
    same groups, in the same order, on pages of any layout."""
    rng = random.Random(7)
    for _ in range(200):
        members = []
        for index in range(rng.randint(1, 60)):
            x0, y0, width, height = rng.uniform(0, 300), rng.uniform(0, 300), rng.uniform(1, 80), rng.uniform(2, 15)
            role = rng.choice(["seed", "piece", "piece", "tag"])
            members.append(display_math._Member(index, None, role, BBox(x0, y0, x0 + width, y0 + height)))  # type: ignore[arg-type]
        edges = tuple(sorted(rng.uniform(0, 300) for _ in range(rng.randint(0, 3))))
        geometry = display_math._Geometry(rng.choice([5.0, 10.0, 12.0]), edges)
        grouped = [[m.index for m in g] for g in display_math._touching_groups(members, geometry)]
        assert grouped == touching_groups_one_by_one(members, geometry)


def test_an_outline_out_of_page_order_gives_way_to_the_headers(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """Bookmarks added as "Part 3", "Part 1", "Part 2" put every section on page 3 and hung pages
    1 and 2 under the document; the headers on the pages give the sections instead."""
    doc = pymupdf.open()
    for number in (1, 2, 3):
        page = doc.new_page()
        page.insert_text((72, 72), f"Part {number}", fontsize=18)
        page.insert_text((72, 110), f"The enclosure of part {number} is cleaned on day {number}.", fontsize=10)
    doc.set_toc([[1, "Part 3", 3], [1, "Part 1", 1], [1, "Part 2", 2]])
    doc.save(tmp_path / "parts.pdf")

    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert (
        build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(tmp_path / "parts.pdf").status == "ingested"
    )
    sections = falkordb_store.read("MATCH (s:Section) RETURN s.title AS title, s.page_start AS page ORDER BY s.order")
    assert [(row["title"], row["page"]) for row in sections] == [("Part 1", 1), ("Part 2", 2), ("Part 3", 3)]
    under = falkordb_store.read(
        "MATCH (r:Region)-[:IS_UNDER]->(s:Section) WHERE r.text CONTAINS 'cleaned' "
        "RETURN r.page AS page, s.title AS title"
    )
    assert sorted((row["page"], row["title"]) for row in under) == [(1, "Part 1"), (2, "Part 2"), (3, "Part 3")]


def test_a_first_numbered_heading_set_largest_stays_a_numbered_section(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """A paper without a title line: "1 Introduction", the largest text on page 1, was read as the
    document's title, so section 1 lost its number and "see Section 1" pointed nowhere."""
    doc = pymupdf.open()
    body = "The method reads each page into regions and links them across page breaks, as a reader would."
    for number, heading in enumerate(["1 Introduction", "2 Methods", "3 Results"], 1):
        page = doc.new_page()
        page.insert_text((72, 90), heading, fontsize=18, fontname="hebo")
        for row in range(6):
            text = body + (" See Section 1 for the setting." if number == 3 and row == 0 else "")
            page.insert_textbox(pymupdf.Rect(72, 130 + 70 * row, 520, 195 + 70 * row), text, fontsize=10)
    doc.save(tmp_path / "paper.pdf")

    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    report = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(tmp_path / "paper.pdf")
    assert report.status == "ingested", report.error
    sections = falkordb_store.read("MATCH (s:Section) RETURN s.number AS number, s.title AS title ORDER BY s.order")
    assert [(row["number"], row["title"]) for row in sections] == [
        ("1", "1 Introduction"),
        ("2", "2 Methods"),
        ("3", "3 Results"),
    ]
    [document] = falkordb_store.read("MATCH (d:Document) RETURN d.title AS title")
    assert document["title"] == "paper"
    refs = falkordb_store.read("MATCH (:Region)-[:REF]->(s:Section) RETURN s.number AS number")
    assert [row["number"] for row in refs] == ["1"]


def test_a_poster_sized_page_renders_at_a_size_a_screen_takes(tmp_path: Path) -> None:
    """A 200-inch page ingested but never rendered (CLI render, the UI's page images): at 110 dpi it
    is 484 million pixels, past MuPDF's limit ("Overly large image")."""
    pdf = tmp_path / "poster.pdf"
    with pymupdf.open() as doc:
        doc.new_page(width=14400, height=14400).insert_text((72, 72), "A poster", fontsize=200)
        doc.save(pdf)
    region = {"region_id": "r1", "order": 1, "kind": "title", "bbox": [72.0, 0.0, 1200.0, 100.0]}
    out = render_page(pdf, 1, [region], tmp_path / "poster.png")
    with pymupdf.open(out) as image:
        width, height = image[0].rect.width, image[0].rect.height
    assert 3000 <= width == height and width * height <= MAX_RENDER_PIXELS


def test_right_to_left_lines_keep_their_words_in_reading_order(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """A line's pieces were put left to right, so Hebrew was stored with its words backwards
    ("בתשע נפתח החיות גן"); English lines, with a Hebrew run in them too, keep their order."""
    pdf = tmp_path / "zoo-hours.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        html = "<p dir='rtl'>גן החיות נפתח בתשע</p><p>The zoo opens at nine.</p><p>Visit גן החיות today please</p>"
        page.insert_htmlbox(pymupdf.Rect(72, 72, 520, 300), html)
        doc.save(pdf)
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(pdf).status == "ingested"
    rows = falkordb_store.read("MATCH (r:Region) RETURN r.text AS text ORDER BY r.order")
    assert [row["text"] for row in rows][:2] == ["גן החיות נפתח בתשע", "The zoo opens at nine."]
    mixed = rows[2]["text"]  # English with a Hebrew run keeps its English in order (turned, it did not)
    assert mixed.startswith("Visit ") and mixed.endswith(" today please"), mixed
