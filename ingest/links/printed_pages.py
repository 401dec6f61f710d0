"""Printed page numbers -> physical pages, read from the numbers in page headers and footers, so
that "page 12" in the text resolves to the page printed 12 (front matter numbered apart)."""

from __future__ import annotations

import re
from collections import Counter

from docgraph.ingest.structure.ids import PlacedRegion
from docgraph.ingest.types import PageLayout

PAGE_OFFSET_MIN_PAGES = 2
PAGE_OFFSET_MIN_SHARE = 0.3
_INT = re.compile(r"(?<![\w.,/:])\d{1,4}(?![\w/:]|[.,]\d)")


def printed_page_map(pages: list[PageLayout], placed: list[PlacedRegion]) -> tuple[int | None, dict[int, int]]:
    """Printed page number -> physical page, from numbers in page headers and footers.

    The offset (printed - physical) seen on the most pages is trusted when it is seen on enough of
    them; chapter numbers and years in running heads then do not fit it and are ignored.
    """
    furniture: dict[int, list[str]] = {page.number: [page.header_text, page.footer_text] for page in pages}
    for pr in placed:
        if not pr.is_body:
            furniture.setdefault(pr.page, []).append(pr.region.text)
    candidates = {
        number: {int(m.group(0)) for text in texts for m in _INT.finditer(text)} for number, texts in furniture.items()
    }
    offsets = Counter(n - number for number, found in candidates.items() for n in found)
    with_numbers = sum(1 for found in candidates.values() if found)
    if not offsets:
        return None, {}
    offset, seen = offsets.most_common(1)[0]
    if seen < max(PAGE_OFFSET_MIN_PAGES, PAGE_OFFSET_MIN_SHARE * with_numbers):
        return None, {}
    numbers = sorted(page.number for page in pages)
    return offset, {number + offset: number for number in numbers if number + offset >= 1}
