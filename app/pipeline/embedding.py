"""Embeddings for the Region and Section nodes of a graph batch.

A region is embedded the way a reader meets it: under its section, as a table or a figure, next to
its caption. The text handed to the encoder is therefore a short context line (section path, kind,
caption or captioned text) followed by the region's own text. A region too long for MiniLM's
256-token window is embedded passage by passage under the same context line (``app.pipeline.passages``), and
its vector is the normalised mean of theirs. Sections are embedded by their title. Vectors are
cached by a hash of the encoder name and the exact text, in memory and, when given a folder, on disk.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from docgraph.app.pipeline.passages import MAX_PASSAGES, PASSAGE_CHARS, split_passages
from docgraph.app.stores.schema import PASSAGES_PROPERTY
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import RowsDone, TextEncoder, Vectors
from docgraph.records import GraphBatch, NodeRecord

if TYPE_CHECKING:
    from docgraph.app.config import Settings

EMBEDDING_PROPERTY = "embedding"
# A long region's passage vectors go in PASSAGES_PROPERTY: dense retrieval scores the region by its
# best passage as well as by the mean in ``embedding``.
MAX_TEXT_CHARS = 1000  # context line + one passage (app.pipeline.passages): ~230 word pieces of prose
MAX_CONTEXT_CHARS = 160
MAX_PARTNER_CHARS = 200
TABLE_PASSAGE_MIN_CHARS = 160  # a table's passages: a few rows each (see table_passage_chars)
SECTION_PATH_DEPTH = 1  # the nearest title says where a region is
ENCODE_BATCH = 32  # batches are grouped by token count (models.encoders), so padding stays small
RegionsDone = Callable[[int, int], None]  # (regions with all their vectors, regions in all)

# Kinds whose name is worth saying: a question may ask for "the table" or "the figure".
_NAMED_KINDS = {
    "table": "Table",
    "figure": "Figure",
    "caption": "Caption",
    "code": "Code",
    "formula": "Formula",
    "list": "List",
    "footnote": "Footnote",
}


def configured_encoder(settings: Settings) -> TextEncoder:
    """The encoder ``settings`` name, run the way they say (torch, onnx or onnx-int8)."""
    return load_encoder(settings.encoder_model, settings.encoder_runtime, settings.model_cache)


# ---- the text a region is embedded as --------------------------------------------------------


class BatchContext:
    """The relations of one batch that embedding texts need: owners, parents, caption pairs."""

    def __init__(self, batch: GraphBatch) -> None:
        self.sections: dict[str, NodeRecord] = {}
        self.regions: dict[str, NodeRecord] = {}
        for node in batch.nodes:
            if node.label == "Section":
                self.sections[node.key] = node
            elif node.label == "Region":
                self.regions[node.key] = node
        self.owner: dict[str, str] = {}  # region or section key -> the section it is under
        self.caption_of: dict[str, str] = {}  # caption key -> figure/table key
        self.captioned_by: dict[str, list[str]] = {}  # figure/table key -> caption keys
        for edge in batch.edges:
            if edge.type == "IS_UNDER" and edge.dst_label == "Section":
                self.owner[edge.src_key] = edge.dst_key
            elif edge.type == "CAPTION_OF":
                self.caption_of[edge.src_key] = edge.dst_key
                self.captioned_by.setdefault(edge.dst_key, []).append(edge.src_key)

    def section_path(self, key: str, depth: int) -> list[str]:
        """Titles from the outermost of the ``depth`` nearest enclosing sections down to the nearest."""
        titles: list[str] = []
        seen: set[str] = set()
        current = self.owner.get(key)
        while current is not None and current not in seen and len(titles) < depth:
            seen.add(current)
            title = str(self.sections[current].props.get("title", "")).strip() if current in self.sections else ""
            if title:
                titles.append(title)
            current = self.owner.get(current)
        return list(reversed(titles))

    def region_text(self, key: str) -> str:
        node = self.regions.get(key)
        return str(node.props.get("text") or "").strip() if node else ""


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def region_embedding_texts(node: NodeRecord, ctx: BatchContext) -> list[str]:
    """Context line + own text: "Section A > Section B. Table: <caption>. <cells...>"; a region too
    long for the encoder gives one such text per passage (``app.pipeline.passages``), all under the same
    context line. A paragraph split by a page break is embedded as its two parts."""
    kind = str(node.props.get("kind", ""))
    parts: list[str] = []
    path = ctx.section_path(node.key, SECTION_PATH_DEPTH)
    own = str(node.props.get("text") or "").strip()
    flat = " ".join(own.split())
    if path and not (kind in ("section_header", "title") and flat and flat in path[-1]):
        parts.append(shorten(" > ".join(path), MAX_CONTEXT_CHARS) + ".")
    if kind in _NAMED_KINDS:
        parts.append(_NAMED_KINDS[kind] + ":")
    partner = _partner_text(node, kind, ctx)
    if partner:
        parts.append(shorten(partner, MAX_PARTNER_CHARS) + ".")
    prefix = " ".join(parts)
    rows = table_rows_as_text(node.props.get("cells")) if kind == "table" else ""
    limit = table_passage_chars(len(rows)) if rows else PASSAGE_CHARS
    passages = split_passages(rows or own, kind, limit) or [""]
    return [shorten(" ".join(p for p in (prefix, passage) if p), MAX_TEXT_CHARS) for passage in passages]


def table_passage_chars(length: int) -> int:
    """Passage size for a table's rows: small enough that a question about one row meets a passage
    of few rows (the best passage scores the table), at most ``MAX_PASSAGES`` of them."""
    return max(TABLE_PASSAGE_MIN_CHARS, min(PASSAGE_CHARS, length // MAX_PASSAGES + 1))


def table_rows_as_text(cells: object) -> str:
    """A table as one line per body row, each cell named by its column: "Enclosure: Seal pool;
    Area (m²): 400". A sentence encoder reads that far better than markdown pipes and rules, and
    every passage of a long table keeps its column names. Empty when there are no header and body rows."""
    if not isinstance(cells, list) or len(cells) < 2 or not all(isinstance(row, list) for row in cells):
        return ""
    header = [" ".join(str(cell).split()) for cell in cells[0]]
    lines: list[str] = []
    for row in cells[1:]:
        pairs = []
        for column, cell in enumerate(row):
            value = " ".join(str(cell).split())
            name = header[column] if column < len(header) else ""
            if value:
                pairs.append(f"{name}: {value}" if name and name != value else value)
        if pairs:
            lines.append("; ".join(pairs) + ".")
    return "\n".join(lines)


def _partner_text(node: NodeRecord, kind: str, ctx: BatchContext) -> str:
    if kind == "caption" and node.key in ctx.caption_of:
        return ctx.region_text(ctx.caption_of[node.key])
    if kind in ("figure", "table"):
        return " ".join(ctx.region_text(k) for k in ctx.captioned_by.get(node.key, []))
    return ""


def section_embedding_text(node: NodeRecord, ctx: BatchContext) -> str:
    """The section's title, under as many parent titles as a region's context line has above its
    own section (none at ``SECTION_PATH_DEPTH = 1``: the title alone)."""
    title = " ".join(str(node.props.get("title") or "").split())
    parents = ctx.section_path(node.key, SECTION_PATH_DEPTH - 1)
    return shorten(" > ".join([*parents, title]), MAX_CONTEXT_CHARS)


def embedding_texts(batch: GraphBatch) -> dict[tuple[str, str], list[str]]:
    """(label, key) -> the texts to embed (one, or one per passage of a long region), for every
    Region and Section node of the batch."""
    ctx = BatchContext(batch)
    texts: dict[tuple[str, str], list[str]] = {}
    for node in batch.nodes:
        if node.label == "Region":
            texts[(node.label, node.key)] = region_embedding_texts(node, ctx)
        elif node.label == "Section":
            texts[(node.label, node.key)] = [section_embedding_text(node, ctx)]
    return texts


# ---- caches ----------------------------------------------------------------------------------


def text_key(encoder_name: str, text: str) -> str:
    return hashlib.blake2b(f"{encoder_name}\x00{text}".encode(), digest_size=16).hexdigest()


# Vectors the process keeps for re-ingest: about 50 MB. Ingest reads no more than this of it for a
# document of any length (texts repeated within a document are encoded once per call anyway).
MEMORY_CACHE_VECTORS = 32_768


class MemoryCache:
    """Least-recently-used vectors by text key; bounded so a long session cannot grow without end."""

    def __init__(self, capacity: int = MEMORY_CACHE_VECTORS) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, keys: Iterable[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for key in keys:
                vector = self._items.get(key)
                if vector is not None:
                    self._items.move_to_end(key)
                    found[key] = vector
        return found

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        """Keep copies (a row view would keep the whole array it was cut from alive); a set larger
        than the cache is not kept at all: its own later rows would push out its first ones, and
        asked again in the same order, it would find none of them."""
        if len(items) > self.capacity:
            return
        with self._lock:
            self._items.update((key, np.array(vector, dtype=np.float32)) for key, vector in items.items())
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)


class DiskCache:
    """Vectors in one SQLite file (``<folder>/embeddings.sqlite``), keyed by text key."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "embeddings.sqlite"
        self._lock = threading.Lock()
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def get_many(self, keys: Iterable[str]) -> dict[str, np.ndarray]:
        wanted = list(keys)
        found: dict[str, np.ndarray] = {}
        with self._lock, self._connect() as db:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk)
                for key, blob in rows:
                    found[key] = np.frombuffer(blob, dtype=np.float32).copy()
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        rows = [(key, np.asarray(v, dtype=np.float32).tobytes()) for key, v in items.items()]
        with self._lock, self._connect() as db:
            db.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", rows)


_MEMORY = MemoryCache()


def clear_memory_cache() -> None:
    """Forget the vectors cached in this process (benchmarks time real encoding)."""
    _MEMORY.clear()


def encode_cached(
    texts: list[str],
    encoder: TextEncoder,
    disk: DiskCache | None = None,
    memory: MemoryCache = _MEMORY,
    progress: RowsDone | None = None,
) -> Vectors:
    """Encode ``texts`` (rows in order), encoding each distinct uncached text once. ``progress``
    hears the rows whose vectors are ready: the cached ones at once, then each encoder batch's."""
    keys = [text_key(encoder.name, text) for text in texts]
    rows_of: dict[str, list[int]] = {}
    for row, key in enumerate(keys):
        rows_of.setdefault(key, []).append(row)
    found = _cached(list(rows_of), disk, memory)
    if progress is not None:
        progress([row for key in found for row in rows_of[key]])
    missing = [key for key in rows_of if key not in found]
    if missing:
        text_of = dict(zip(keys, texts, strict=True))
        encoded = None if progress is None else _rows_of_missing(progress, rows_of, missing)
        vectors = encoder.encode([text_of[k] for k in missing], batch_size=ENCODE_BATCH, progress=encoded)
        fresh = {k: vectors[i] for i, k in enumerate(missing)}
        memory.put_many(fresh)
        if disk is not None:
            disk.put_many(fresh)
        found.update(fresh)
    if not texts:
        return np.zeros((0, encoder.dim), dtype=np.float32)
    return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)


def _cached(keys: list[str], disk: DiskCache | None, memory: MemoryCache) -> dict[str, np.ndarray]:
    """The vectors of ``keys`` in memory, then on disk (kept in memory from then on)."""
    found = memory.get_many(keys)
    missing = [k for k in keys if k not in found]
    if missing and disk is not None:
        from_disk = disk.get_many(missing)
        memory.put_many(from_disk)
        found.update(from_disk)
    return found


def _rows_of_missing(progress: RowsDone, rows_of: dict[str, list[int]], missing: list[str]) -> RowsDone:
    """The encoder's rows (of the ``missing`` texts) as the rows of ``texts`` they fill."""
    return lambda done: progress([row for index in done for row in rows_of[missing[index]]])


def embed_batch(
    batch: GraphBatch, encoder: TextEncoder, cache_dir: Path | None = None, progress: RegionsDone | None = None
) -> None:
    """Set ``props["embedding"]`` (a float32 vector) on every Region and Section node, in place,
    and ``props["passage_embeddings"]`` on regions embedded as several passages.

    ``cache_dir`` (e.g. ``settings.home / "cache"``) adds a disk cache, so re-ingesting a changed
    file only encodes the regions whose text changed. ``progress`` hears how many regions have
    all their vectors, of how many, as the encoder's batches finish (the batches stay as they are).
    """
    texts = embedding_texts(batch)
    if not texts:
        return
    disk = DiskCache(cache_dir) if cache_dir is not None else None
    keys = list(texts)
    flat = [text for key in keys for text in texts[key]]
    counter = None if progress is None else _region_counter(keys, [len(texts[key]) for key in keys], progress)
    vectors = encode_cached(flat, encoder, disk, progress=counter)
    nodes = {(n.label, n.key): n for n in batch.nodes}
    start = 0
    for key in keys:
        rows = vectors[start : start + len(texts[key])]
        start += len(rows)
        nodes[key].props[EMBEDDING_PROPERTY] = _mean_direction(rows)  # float32: a list would take 8x the memory
        if len(rows) > 1:
            # rounded as stored (a list property, written as text); an array holds them in an eighth of a list's memory
            nodes[key].props[PASSAGES_PROPERTY] = np.round(rows.ravel().astype(np.float64), 5)


def _region_counter(keys: list[tuple[str, str]], sizes: list[int], progress: RegionsDone) -> RowsDone:
    """Rows of the nodes' texts (``sizes[i]`` rows for ``keys[i]``, in order) as they are ready ->
    ``progress(regions whose every text is ready, regions)``."""
    owner = [index for index, size in enumerate(sizes) for _ in range(size)]
    left = list(sizes)
    total = sum(1 for label, _ in keys if label == "Region")
    done = 0

    def rows_done(rows: list[int]) -> None:
        nonlocal done
        for row in rows:
            left[owner[row]] -= 1
            if left[owner[row]] == 0 and keys[owner[row]][0] == "Region":
                done += 1
        progress(done, total)

    return rows_done


def _mean_direction(rows: Vectors) -> Vectors:
    """One passage: its vector. Several: their normalised mean, which stays close to each
    passage's own topic while a truncated text would have lost all but the first."""
    first: Vectors = rows[0]
    if len(rows) == 1:
        return first
    mean: Vectors = rows.mean(axis=0).astype(np.float32)
    norm = float(np.linalg.norm(mean))
    return mean / np.float32(norm) if norm > 0 else first
