"""Second pass over a page: typed regions in reading order from a :class:`PageScan`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from docgraph.ingest.floats.figures import figure_caption_near, is_text_box
from docgraph.ingest.floats.image_text import text_in
from docgraph.ingest.floats.tables import to_markdown
from docgraph.ingest.page.article_heads import demote_article_heads
from docgraph.ingest.page.blocks import Block, segment_lines
from docgraph.ingest.page.classify import (
    FontStats,
    classify_block,
    extend_footnotes,
    near_float,
    page_context,
    promote_chapter_labels,
    promote_heading_status,
    promote_margin_headings,
    promote_title,
)
from docgraph.ingest.page.definitions import join_definition_lines
from docgraph.ingest.page.display_math import join_display_math
from docgraph.ingest.page.form_fields import field_texts
from docgraph.ingest.page.furniture import FurnitureMarks
from docgraph.ingest.page.header_fields import join_header_fields
from docgraph.ingest.page.index_entries import join_index_entries
from docgraph.ingest.page.key_figures import join_key_figures
from docgraph.ingest.page.key_values import join_key_value_rows
from docgraph.ingest.page.labelled_columns import join_labelled_columns
from docgraph.ingest.page.lead_in_values import demote_lead_in_values
from docgraph.ingest.page.list_rows import attach_row_cells
from docgraph.ingest.page.margin_notes import set_aside_margin_notes
from docgraph.ingest.page.merge import absorb_figure_labels, figures_for_orphan_captions, merge_blocks
from docgraph.ingest.page.model_regions import model_blocks
from docgraph.ingest.page.photo_captions import caption_photos, worded_lines
from docgraph.ingest.page.reading_order import reading_order
from docgraph.ingest.page.scan import PageScan
from docgraph.ingest.page.sign_offs import join_sign_offs, sign_offs_after_columns
from docgraph.ingest.page.table_notes import mark_table_notes
from docgraph.ingest.page.term_rows import attach_term_rows
from docgraph.ingest.page.title_page import demote_byline, join_subtitle
from docgraph.ingest.page.toc_entries import demote_toc_entries
from docgraph.ingest.page.unmarked_items import mark_unmarked_items
from docgraph.ingest.pdf.lines import TextLine, lines_in
from docgraph.ingest.pdf.ocr import read_by_ocr
from docgraph.ingest.pdf.text import join_lines, shorten
from docgraph.ingest.types import BBox, PageLayout, Region
from docgraph.records import FURNITURE_KINDS, RegionKind

FIGURE_TEXT_LIMIT = 500  # labels only; a figure is not a text region


@dataclass(slots=True)
class Draft:
    """A region before reading order is known."""

    kind: RegionKind
    bbox: BBox
    text: str
    font_size: float = 0.0
    bold: bool = False
    cells: list[list[str]] | None = None
    ocr: bool = False  # some of its text was read by OCR

    def to_region(self, order: int) -> Region:
        return Region(self.kind, self.bbox, self.text, order, self.font_size, self.bold, self.cells, ocr=self.ocr)


@dataclass(slots=True)
class _PageWork:
    """What the steps of :func:`assemble_page` share: lines taken so far and the regions made."""

    scan: PageScan
    stats: FontStats
    used: set[int]
    header: set[int]
    footer: set[int]
    drafts: list[Draft] = field(default_factory=list)
    floats: list[BBox] = field(default_factory=list)  # figure and table boxes, for caption checks
    blocks: list[Block] = field(default_factory=list)

    def add_figure(self, box: BBox, labels: Sequence[int]) -> None:
        pictured = text_in(box, self.scan.image_text)
        self.drafts.append(_figure_draft(box, [self.scan.lines[i] for i in labels], pictured))
        self.floats.append(box)


def assemble_page(scan: PageScan, stats: FontStats, marks: FurnitureMarks, title_allowed: bool) -> PageLayout:
    work = _PageWork(scan, stats, set(marks.header) | set(marks.footer), set(marks.header), set(marks.footer))
    _add_tables(work)
    _add_form_fields(work)
    if scan.model_boxes is not None:
        _add_model_regions(work, title_allowed)
    else:
        _add_detected_figures(work)
    work.drafts = _merge_overlapping_figures(work.drafts)

    rest = set_aside_margin_notes([line for i, line in enumerate(scan.lines) if i not in work.used], stats.body_size)
    lines = join_key_value_rows(
        join_labelled_columns(join_key_figures(join_header_fields(join_definition_lines(rest))))
    )
    blocks = work.blocks + join_index_entries(segment_lines(mark_unmarked_items(lines)))
    if scan.model_boxes is not None:
        blocks = _in_reading_order(blocks)
    _classify(blocks, stats, scan.height, title_allowed, work.floats, [table.bbox for table in scan.tables])
    mark_table_notes(blocks, [(table.bbox, to_markdown(table.cells)) for table in scan.tables])
    caption_photos(blocks, scan.photos, stats)
    blocks = merge_blocks(attach_term_rows(attach_row_cells(join_display_math(blocks, stats.body_size))), stats)
    figure_drafts, blocks = figures_for_orphan_captions(blocks, work.floats, stats)
    work.drafts.extend(_figure_draft(box, labels) for box, labels in figure_drafts)
    work.drafts.extend(_block_draft(b) for b in blocks)

    furniture = _furniture_drafts(scan.lines, work.header, "page_header")
    furniture += _furniture_drafts(scan.lines, work.footer, "page_footer")
    return _page_layout(scan, work.drafts, furniture)


def _add_tables(work: _PageWork) -> None:
    for table in work.scan.tables:
        work.used.update(lines_in(table.bbox, work.scan.lines))
        text = to_markdown(table.cells)
        work.drafts.append(Draft("table", table.bbox, text, work.stats.body_size, False, table.cells))
        work.floats.append(table.bbox)


def _add_form_fields(work: _PageWork) -> None:
    """Each filled field a paragraph "label: value", its label line taken from the text."""
    if not work.scan.fields:
        return
    tables = [table.bbox for table in work.scan.tables]
    for entry in field_texts(work.scan.fields, work.scan.lines, work.used, tables, work.stats.body_size):
        work.used.update(entry.labels)
        work.drafts.append(Draft("paragraph", entry.bbox, entry.text, entry.size))


def _add_model_regions(work: _PageWork, title_allowed: bool) -> None:
    model = model_blocks(work.scan, work.used, title_allowed)
    work.header |= model.header
    work.footer |= model.footer
    work.used |= model.used | model.header | model.footer
    work.blocks.extend(model.blocks)
    for box, labels in model.figures:
        work.add_figure(box, labels)


def _add_detected_figures(work: _PageWork) -> None:
    lines = work.scan.lines
    for box in work.scan.figures:
        inside = [lines[i] for i in lines_in(box, lines) if i not in work.used]
        # A chart's labels can read like a listing ("1. Estimate ...", "2. Read off ..."); its marks
        # say what it is.
        chart = box in work.scan.charts
        if not chart and is_text_box(box, inside, work.stats.body_size, figure_caption_near(box, lines)):
            continue
        # A photo's labels are few: a line of words near it is its caption or a byline, not a label.
        worded = worded_lines(lines) if box in work.scan.photos else set()
        grown, labels = absorb_figure_labels(box, lines, work.used | worded, work.stats)
        work.used.update(labels)
        work.add_figure(grown, labels)


def _in_reading_order(blocks: list[Block]) -> list[Block]:
    """The layout model's blocks come in its own order (by score), and the lines it missed after
    them: put in reading order, the items of a list, one box each, are neighbours that join."""
    order = reading_order([(b.bbox.x0, b.bbox.y0, b.bbox.x1, b.bbox.y1) for b in blocks])
    return [blocks[i] for i in order]


def _classify(
    blocks: list[Block], stats: FontStats, height: float, title_allowed: bool, floats: list[BBox], tables: list[BBox]
) -> None:
    ctx = page_context(blocks, stats, height, title_allowed)
    for block in blocks:
        if block.kind is None:
            sideways = not block.lines[0].horizontal
            block.kind = classify_block(block, stats, ctx, near_float(block.bbox, floats, sideways=sideways))
    promote_margin_headings(blocks, stats)
    promote_heading_status(blocks)
    extend_footnotes(blocks, stats, ctx)
    promote_chapter_labels(blocks)
    promote_title(blocks, stats, ctx)
    join_subtitle(blocks)
    demote_article_heads(blocks)
    demote_byline(blocks, tables)
    demote_lead_in_values(blocks, stats)
    demote_toc_entries(blocks)
    join_sign_offs(blocks)


def _block_draft(block: Block) -> Draft:
    kind: RegionKind = block.kind or "paragraph"
    return Draft(kind, block.bbox, block.text_for(kind), block.size, block.bold)


def _figure_draft(box: BBox, labels: Sequence[TextLine], pictured: Sequence[str] = ()) -> Draft:
    """A figure region: its text-layer labels, then the text OCR read in its pictures. Its labels'
    OCR is checked here, not only by place (``_mark_ocr``): a layout-model figure keeps the model's
    box, which holds its labels by overlap, not necessarily their middles."""
    text = shorten(" ".join(t for t in (join_lines([ln.text for ln in labels]), *pictured) if t), FIGURE_TEXT_LIMIT)
    size = max((ln.size for ln in labels), default=0.0)
    return Draft("figure", box, text, size, False, ocr=any(pictured) or any(read_by_ocr(ln) for ln in labels))


def _merge_overlapping_figures(drafts: list[Draft]) -> list[Draft]:
    """A figure overlapping a larger one joins it: a sub-plot next to grown labels, or a panel whose
    drawings stand apart from the rest of its chart until their labels join them (the leaf panels
    of a partykit tree, a lattice plot's last column). Two figures of a page never overlap."""
    others = [d for d in drafts if d.kind != "figure"]
    figures = sorted((d for d in drafts if d.kind == "figure"), key=lambda d: -d.bbox.area)
    kept: list[Draft] = []
    for fig in figures:
        host = next((k for k in kept if k.bbox.intersection_area(fig.bbox) > 0), None)
        if host is None:
            kept.append(fig)
            continue
        host.bbox = host.bbox.union(fig.bbox)
        host.text = shorten(" ".join(t for t in (host.text, fig.text) if t), FIGURE_TEXT_LIMIT)
        host.ocr = host.ocr or fig.ocr
    return others + kept


def _furniture_drafts(lines: Sequence[TextLine], indexes: set[int], kind: RegionKind) -> list[Draft]:
    if not indexes:
        return []
    chosen = sorted((lines[i] for i in indexes), key=lambda ln: (round(ln.bbox.y0), ln.bbox.x0))
    box = chosen[0].bbox
    for line in chosen[1:]:
        box = box.union(line.bbox)
    text = " ".join(" ".join(ln.text.split()) for ln in chosen)
    return [Draft(kind, box, text, chosen[0].size, all(ln.bold for ln in chosen))]


def _mark_ocr(drafts: Sequence[Draft], lines: Sequence[TextLine]) -> None:
    """A draft holding the middle of a line tesseract read has OCR text. Marked by place rather than
    along each way lines become drafts (blocks, model regions, table cells, furniture): each of them
    is the box around its lines (figures also check their labels, see ``_figure_draft``)."""
    read = [line.bbox for line in lines if read_by_ocr(line)]
    if not read:
        return
    for draft in drafts:
        draft.ocr = draft.ocr or any(box.centre_in(draft.bbox) for box in read)


def _footnotes_last(body: Sequence[Draft], order: list[int]) -> list[int]:
    """Footnotes are read after the page's text, as they are on a one-column page: one closing the
    left column of two would otherwise come between a paragraph's halves across the gutter. A note
    with text of its column under it (a table's note, mid-page) stays where it is."""
    last = [i for i in order if body[i].kind == "footnote" and not _text_under(body[i], body)]
    return [i for i in order if i not in last] + last


def _text_under(note: Draft, body: Sequence[Draft]) -> bool:
    return any(d.kind != "footnote" and d.bbox.y0 >= note.bbox.y1 and d.bbox.x_overlap(note.bbox) > 0 for d in body)


def _page_layout(scan: PageScan, drafts: list[Draft], furniture: list[Draft]) -> PageLayout:
    _mark_ocr([*drafts, *furniture], scan.lines)
    body = [d for d in drafts if d.kind not in FURNITURE_KINDS and (d.text or d.kind in ("figure", "table", "formula"))]
    boxes = [(d.bbox.x0, d.bbox.y0, d.bbox.x1, d.bbox.y1) for d in body]
    order = reading_order(boxes, heads=[d.kind == "section_header" for d in body])
    texts = [d.text if d.kind == "paragraph" else "" for d in body]
    order = _footnotes_last(body, sign_offs_after_columns([d.bbox for d in body], texts, order))
    regions = [body[i].to_region(n) for n, i in enumerate(order)]
    regions += [d.to_region(len(order) + k) for k, d in enumerate(furniture)]
    header = " ".join(d.text for d in furniture if d.kind == "page_header")
    footer = " ".join(d.text for d in furniture if d.kind == "page_footer")
    return PageLayout(
        number=scan.number,
        width=scan.width,
        height=scan.height,
        regions=regions,
        header_text=header,
        footer_text=footer,
        has_text_layer=scan.has_text_layer,
        turn=scan.turn,
    )
