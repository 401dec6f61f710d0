"""Stable node ids and the document-wide placement of regions.

Ids are derived from the file name, a short version tag taken from the document version (the file's
sha256 and how the graph was built, see ``GraphBatch.version``), and position, so re-ingesting the
same file the same way yields the same ids (a store no-op), while a changed file with the same name,
or the same file read by another reader, keeps its ``doc_id`` but gets new node ids (a store
replaces the old version).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePath

from docgraph.errors import IngestError
from docgraph.ingest.types import DocumentLayout, Region
from docgraph.records import FURNITURE_KINDS, document_version

VERSION_TAG_LENGTH = 8
STEM_TAG_LENGTH = 6  # hex digits of a stem's hash, in the ids of names the slug cannot spell
_HEX = re.compile(r"^[0-9a-f]+$")


def slugify(text: str) -> str:
    """Lowercase ``[a-z0-9-]`` slug; accents are folded, every other run of characters becomes ``-``."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")


def doc_id_for(file_name: str) -> str:
    """``doc_id`` of a file: the slug of its stem, so a changed file with the same name replaces the old.

    A name with letters the slug cannot spell (日本語, Straße) gets a short hash of the whole stem
    after its slug, so that "報告書1" and "議事録1" are not both stored as "1"; one with nothing the
    slug spells (🦒, ---) gets the hash alone."""
    stem = PurePath(file_name).stem
    slug = slugify(stem)
    if stem and (not slug or any(_unspellable(ch) for ch in stem)):  # " .pdf" too: a hash, as for "🦒"
        tag = hashlib.sha256(unicodedata.normalize("NFC", stem).encode("utf-8")).hexdigest()[:STEM_TAG_LENGTH]
        slug = f"{slug}-{tag}" if slug else tag
    if not slug:
        raise IngestError(f"cannot derive a document id from file name {file_name!r}")
    return slug


def _unspellable(ch: str) -> bool:
    """A letter or digit that folding to ASCII drops (not an accent that folds away from its letter)."""
    return ch.isalnum() and not ch.isascii() and not unicodedata.normalize("NFKD", ch).encode("ascii", "ignore")


def version_tag(sha256: str) -> str:
    digest = sha256.strip().lower()
    if len(digest) < VERSION_TAG_LENGTH or not _HEX.match(digest):
        raise IngestError(f"not a sha256 hex digest: {sha256!r}")
    return digest[:VERSION_TAG_LENGTH]


def camel_case(kind: str) -> str:
    """``section_header`` -> ``SectionHeader``: the extra label a region node carries."""
    return "".join(part.capitalize() for part in kind.split("_"))


@dataclass(frozen=True, slots=True)
class IdScheme:
    doc_id: str
    version: str

    @classmethod
    def for_layout(cls, layout: DocumentLayout, build: str = "") -> IdScheme:
        """Ids for ``layout`` built as ``build`` says (see ``GraphBatch.version``)."""
        return cls(doc_id_for(layout.file_name), version_tag(document_version(layout.sha256, build)))

    @property
    def prefix(self) -> str:
        return f"{self.doc_id}@{self.version}"

    def page(self, number: int) -> str:
        return f"{self.prefix}:p{number}"

    def region(self, page: int, position: int) -> str:
        return f"{self.prefix}:p{page}:r{position}"

    def section(self, index: int) -> str:
        return f"{self.prefix}:s{index}"


@dataclass(frozen=True, slots=True)
class PlacedRegion:
    """A region with its place in the document: page, position in the page's reading order, id."""

    region: Region
    page: int
    position: int
    key: str

    @property
    def is_body(self) -> bool:
        return self.region.kind not in FURNITURE_KINDS

    @property
    def place(self) -> tuple[int, int]:
        return (self.page, self.position)


def place_regions(layout: DocumentLayout, ids: IdScheme) -> list[PlacedRegion]:
    """All regions in document reading order: pages by number, then each page's ``order``.

    The position (and so the id) is the rank in the page's reading order, which equals ``order``
    whenever the reader numbers regions 0..n-1; ranking keeps ids unique even if it does not.
    """
    placed: list[PlacedRegion] = []
    for page in sorted(layout.pages, key=lambda p: p.number):
        ranked = sorted(enumerate(page.regions), key=lambda item: (item[1].order, item[0]))
        for position, (_, region) in enumerate(ranked):
            placed.append(PlacedRegion(region, page.number, position, ids.region(page.number, position)))
    return placed


def file_sha256(path: Path) -> str:
    """The hex sha256 of a file's bytes: the content half of a document's version."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
