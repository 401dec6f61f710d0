"""The standard ingest pipeline, stage by stage, and the build string that names how it reads.

    read -> graph -> embed -> similarity -> gnn -> corpus similarity -> write

The first five run on the pipeline's executor (this process, worker processes or a Ray cluster:
:mod:`app.pipeline.execution`), the last two in this process.

``embed`` and what follows it run only with embeddings on; ``gnn`` only with a checkpoint that fits
the encoder; ``corpus similarity`` only when neighbours in other documents are asked for.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from docgraph.app.config import Settings
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.pipeline.execution.base import InlineExecutor, TaskExecutor
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.readers import make_reader, reader_notes, reader_ocr_off
from docgraph.app.pipeline.reading import ReadStage
from docgraph.app.pipeline.similarity import CorpusSimilarityStage, SimilarityStage, corpus_links_again
from docgraph.app.pipeline.stages import EmbedStage, GraphStage, Stage, WorkerStage, WriteStage
from docgraph.app.pipeline.vanished_links import Relink
from docgraph.app.pipeline.worker import IngestWorker, WorkerSpec
from docgraph.app.resources import docgraph_release
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.kept_copies import kept_copies_dir
from docgraph.app.stores.page_cache import page_cache_dir
from docgraph.errors import ModelError
from docgraph.ingest.links.similarity import DEFAULT_K
from docgraph.ingest.types import Reader
from docgraph.models.encoder_loader import encoder_label
from docgraph.records import (
    BUILD_SEPARATOR,
    CORPUS_LINKS_BUILD_PREFIX,
    ENCODER_BUILD_PREFIX,
    GNN_BUILD_PREFIX,
    NO_EMBEDDINGS,
)

if TYPE_CHECKING:
    from docgraph.app.pipeline.gnn import GnnStage


def build_ingest_pipeline(
    store: GraphStore,
    settings: Settings,
    reader: Reader | None = None,
    embed: bool = True,
    force: bool = False,
    tasks: TaskExecutor | None = None,
) -> IngestPipeline:
    """The standard pipeline: read, build the graph, embed regions (unless told not to), write.

    ``tasks``: the executor whose workers (built by :func:`build_ingest_worker` from the same
    settings and reader) do the store-free work; by default this process does it, one document
    at a time.

    Its ``build`` names the reader, the encoder, the GNN checkpoint and the docgraph release: a file
    stored as another pipeline built it is rebuilt (for another checkpoint only, its GNN vectors
    are rewritten), not skipped as unchanged. ``force``
    rebuilds a file stored as this pipeline builds it too: what the build does not name (a change
    to docgraph's code within one release) reaches it only so."""
    chosen = reader or make_reader(settings.reader, settings)
    stages: list[Stage] = [ReadStage(chosen), GraphStage()]
    relink: Relink | None = None
    notes: list[str] = reader_notes(chosen)
    build = [f"docgraph {docgraph_release()}", reader_build(chosen, settings)]
    worker = IngestWorker(chosen)
    if embed:
        # this process encodes, or the executor's workers do with encoders of their own
        encoder = configured_encoder(settings) if tasks is None else None
        if encoder is not None:
            worker.encoder_factory = lambda: encoder
        stages.append(EmbedStage(encoder))
        build.append(encoder_build(settings))
        gnn = _gnn_stages(settings, notes)
        worker.stages = [SimilarityStage(settings.similarity_k), *gnn]
        stages += [WorkerStage(stage.name) for stage in worker.stages]
        build += similarity_build(settings)  # before the GNN part, which with_gnn_build keeps last
        build += [gnn_build(stage.checkpoint) for stage in gnn]
        if settings.similarity_corpus_k:
            k, least = settings.similarity_corpus_k, settings.similarity_corpus_min
            stages.append(CorpusSimilarityStage(store, k, least, force=force))
            relink = partial(corpus_links_again, store, k, least)
    else:
        notes.append("embeddings off (as asked): vector search and the GNN will not see these documents")
        build.append(NO_EMBEDDINGS)
    files_dir = kept_copies_dir(settings.home, store)
    page_cache = page_cache_dir(settings.home, store)
    stages.append(WriteStage(store, files_dir=files_dir, page_cache=page_cache, force=force, relink=relink))
    return IngestPipeline(stages, notes, BUILD_SEPARATOR.join(build), tasks=tasks or InlineExecutor(worker))


def build_ingest_worker(spec: WorkerSpec) -> IngestWorker:
    """The worker a worker process (or Ray worker) runs: the pipeline's reader, encoder and
    in-document stages, built from the same settings (the encoder on first use)."""
    settings = spec.settings
    return IngestWorker(
        make_reader(spec.reader, settings),
        encoder_factory=lambda: configured_encoder(settings),
        stages=[SimilarityStage(settings.similarity_k), *_gnn_stages(settings, [])],
    )


def reader_build(reader: Reader, settings: Settings) -> str:
    """The reader's part of a build: its name, and for the layout-model readers the model and the
    OCR languages, which change what they read (``ocr off`` for ``auto`` without tesseract, so that
    its scanned documents are read again once it is installed), and whether pictures are OCR'd."""
    if reader.name not in ("detector", "auto"):
        return f"reader {reader.name}"
    if reader_ocr_off(reader):
        ocr = "ocr off"
    else:
        ocr = f"ocr {settings.ocr_lang}" + (" and pictures" if getattr(reader, "image_text", False) else "")
    return f"reader {reader.name} (layout model {settings.detector_model or 'default'}, {ocr})"


def encoder_build(settings: Settings) -> str:
    """The encoder's part of a build: its model (with its files' fingerprint when read from a folder,
    so a model retrained in place re-embeds), and the runtime unless torch (int8 changes vectors)."""
    runtime = "" if settings.encoder_runtime == "torch" else f" ({settings.encoder_runtime})"
    return f"{ENCODER_BUILD_PREFIX}{encoder_label(settings.encoder_model)}{runtime}"


def similarity_build(settings: Settings) -> list[str]:
    """The kNN settings' part of a build, when not the defaults: another ``k`` changes the GNN's input
    graph, and turning on neighbours in other documents must relink a document re-ingested for it."""
    parts = [f"similar k={settings.similarity_k}"] if settings.similarity_k != DEFAULT_K else []
    if settings.similarity_corpus_k:
        parts.append(
            f"{CORPUS_LINKS_BUILD_PREFIX}k={settings.similarity_corpus_k} min={settings.similarity_corpus_min:g}"
        )
    return parts


def gnn_build(checkpoint_tag: str) -> str:
    """The GNN's part of a build: ``gnn <checkpoint file> <sha256 prefix>``."""
    return f"{GNN_BUILD_PREFIX}{checkpoint_tag}"


def with_gnn_build(build: str, checkpoint_tag: str) -> str:
    """``build`` with its GNN part naming ``checkpoint_tag`` (added when it had none)."""
    parts = [p for p in build.split(BUILD_SEPARATOR) if p and not p.startswith(GNN_BUILD_PREFIX)]
    return BUILD_SEPARATOR.join([*parts, gnn_build(checkpoint_tag)])


def gnn_unavailable(settings: Settings) -> str | None:
    """Why ingest would run without GNN vectors under ``settings``, or None when the configured
    checkpoint loads and fits the encoder."""
    from docgraph.app.pipeline import gnn  # loads torch

    try:
        gnn.gnn_for(settings)
    except (ModelError, FileNotFoundError) as exc:
        return str(exc)
    return None


def _gnn_stages(settings: Settings, notes: list[str]) -> list[GnnStage]:
    """The GNN stage when the shipped (or configured) checkpoint fits the encoder; none otherwise.

    Without a fitting checkpoint regions still get text embeddings; ``docgraph reembed`` adds the GNN
    vectors after ``docgraph train-gnn``.
    """
    from docgraph.app.pipeline import gnn  # loads torch

    try:
        model = gnn.gnn_for(settings)
        tag = gnn.checkpoint_tag(gnn.configured_checkpoint(settings))
        return [gnn.GnnStage(model, checkpoint=tag, spill_dir=gnn.configured_spill_dir(settings))]
    except (ModelError, FileNotFoundError) as exc:
        notes.append(f"GNN embeddings off: {exc}")
        return []
