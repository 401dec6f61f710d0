"""A service technician's manuals: an espresso machine's service manual (safety notices behind
their symbols, a descaling procedure run on over a page break, an error-code table over two
pages, a spec sheet) and a printer's two-column user guide (a procedure run on into the next
column), read and asked as a technician asks them. PDFs made in tests/service_manuals.py."""

from __future__ import annotations

import pytest

from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout, Region
from tests.service_manuals import NOTICES, service_manual


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> DocumentLayout:
    return NativeReader().read(service_manual(tmp_path_factory.mktemp("manual") / "es200.pdf"))


def in_order(layout: DocumentLayout) -> list[Region]:
    return [region for page in layout.pages for region in sorted(page.regions, key=lambda r: r.order)]


def test_a_notice_keeps_its_label_after_its_symbol(manual: DocumentLayout) -> None:
    # The CAUTION behind a drawn triangle, the WARNING behind a "⚠" glyph, the DANGER behind a
    # ZapfDingbats triangle: each label opens a paragraph with its notice's text.
    regions = in_order(manual)
    for label, text in NOTICES.items():
        found = [region for region in regions if text[:40] in region.text]
        assert len(found) == 1 and found[0].kind == "paragraph", (label, found)
        assert found[0].text.startswith(f"{label} {text[:40]}")
    assert not any(region.kind == "list" and "DANGER" in region.text for region in regions)
