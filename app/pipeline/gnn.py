"""The GNN in the pipeline: checkpoints, their variants, and the stage that writes GNN vectors.

:class:`GnnStage` (after ``similarity``, before ``graph_write``) sets ``props["gnn_embedding"]`` on
every embedded Region and Section node. Training is ``app.jobs.train_gnn``; vectors of stored
documents are rewritten by ``app.jobs.reembed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.file_states import FileState, file_state
from docgraph.app.pipeline.stages import IngestContext, embedded_batch
from docgraph.app.resources import ROOT
from docgraph.app.stores.schema import GNN_ABLATION_PROPERTIES, GNN_PROPERTY
from docgraph.errors import ModelError
from docgraph.ingest.structure.ids import file_sha256
from docgraph.models.gnn import WINDOW_NODES, Checkpoint, RelationalGNN, load_checkpoint
from docgraph.models.graph_tensors import GROUPS, gnn_node_count, records_to_tensors
from docgraph.models.spill import SpillFolder
from docgraph.records import GraphBatch

CHECKPOINT_DIR = ROOT / "models" / "checkpoints"
DEFAULT_CHECKPOINT = CHECKPOINT_DIR / "rgcn-minilm.pt"
SPILL_FOLDER = "spill"  # under the data home: a long document's GNN arrays during ingest
READ_EDGE_TYPES: tuple[str, ...] = ("HAS_NEXT", "IS_UNDER", "REF", "CAPTION_OF", "IS_SIMILAR")


@dataclass(frozen=True, slots=True)
class GnnVariant:
    """A GNN for retrieval and ablations: its checkpoint and the Region property its vectors go in."""

    name: str
    checkpoint: Path
    prop: str
    dropped: tuple[str, ...] = ()  # relation groups it is trained and run without

    @property
    def groups(self) -> tuple[str, ...]:
        return tuple(group for group in GROUPS if group not in self.dropped)


GNN_VARIANTS: dict[str, GnnVariant] = {
    "gnn": GnnVariant("gnn", DEFAULT_CHECKPOINT, GNN_PROPERTY),
    "no-cross-page": GnnVariant(
        "no-cross-page",
        CHECKPOINT_DIR / "rgcn-minilm-no-cross-page.pt",
        GNN_ABLATION_PROPERTIES["no-cross-page"],
        ("cross_page",),
    ),
    "no-sim": GnnVariant(
        "no-sim", CHECKPOINT_DIR / "rgcn-minilm-no-sim.pt", GNN_ABLATION_PROPERTIES["no-sim"], ("similarity",)
    ),
}


# ---- inference ------------------------------------------------------------------------------


def load_gnn(path: str = str(DEFAULT_CHECKPOINT)) -> Checkpoint:
    """A checkpoint, loaded once per process, and again once its file changed (`docgraph train-gnn`
    in another process writes a new one under the same name while a server runs)."""
    return _load_gnn(path, file_state(Path(path)))


@lru_cache(maxsize=4)
def _load_gnn(path: str, state: FileState | None) -> Checkpoint:
    return load_checkpoint(Path(path))


def checkpoint_tag(path: Path) -> str:
    """``<file name> <first 8 hex digits of its sha256>``: names a checkpoint and its exact weights
    (hashed again once the file changed)."""
    return _checkpoint_tag(path, file_state(path))


@lru_cache(maxsize=8)
def _checkpoint_tag(path: Path, state: FileState | None) -> str:
    return f"{path.name} {file_sha256(path)[:8]}"


def configured_checkpoint(settings: Settings) -> Path:
    """The checkpoint ingest and reembed use: ``gnn_checkpoint`` when set, else the shipped one."""
    return settings.gnn_checkpoint or DEFAULT_CHECKPOINT


def gnn_for(settings: Settings, checkpoint: Path | None = None) -> RelationalGNN:
    """The GNN for ``settings``' encoder; refuses a checkpoint trained on another encoder's vectors."""
    model = load_gnn(str(checkpoint or configured_checkpoint(settings))).model
    trained_on = model.config.encoder.strip().lower()
    if trained_on != settings.encoder_model.strip().lower():
        raise ModelError(
            f"the GNN checkpoint was trained on {model.config.encoder!r} embeddings but the encoder is "
            f"{settings.encoder_model!r}; train one with `docgraph train-gnn`"
        )
    return model


def configured_spill_dir(settings: Settings) -> Path:
    """Where ingest and reembed keep a long document's GNN arrays: under the data home."""
    return settings.home / SPILL_FOLDER


def working_files(spill_dir: Path | None, nodes: int) -> SpillFolder | None:
    """Where the GNN's arrays for a graph of ``nodes`` nodes go: files under ``spill_dir`` when the
    graph is longer than one window (None: in memory)."""
    return SpillFolder(spill_dir) if spill_dir is not None and nodes > WINDOW_NODES else None


def apply_gnn(batch: GraphBatch, model: RelationalGNN, spill_dir: Path | None = None) -> int:
    """Set ``gnn_embedding`` on the batch's embedded Region and Section nodes, over the batch's edges
    (IS_SIMILAR included: the similarity stage runs first); returns how many nodes got one. A graph
    larger than one window works in files under ``spill_dir`` when given, and its vectors stay there."""
    spill = working_files(spill_dir, gnn_node_count(batch.nodes))
    graph = records_to_tensors(batch.nodes, batch.edges, model.config.groups, spill=spill)
    vectors = model.embed(graph, spill).numpy()
    refs = graph.nodes
    del graph  # its input embeddings (and their file) go
    nodes = {(node.label, node.key): node for node in batch.nodes}
    for row, ref in enumerate(refs):
        nodes[ref].props[GNN_PROPERTY] = vectors[row]
    if spill is not None:
        spill.release()
    return len(refs)


@dataclass
class GnnStage:
    """Pipeline stage: read -> graph -> embed -> similarity -> **gnn** -> write."""

    model: RelationalGNN
    checkpoint: str = ""  # which checkpoint the model came from (checkpoint_tag), for the document's build
    spill_dir: Path | None = None  # where a long document's GNN arrays are kept (on disk, not in memory)
    name: str = "gnn"

    def run(self, ctx: IngestContext) -> None:
        batch = embedded_batch(ctx, "GNN")
        if batch is not None:
            apply_gnn(batch, self.model, self.spill_dir)
