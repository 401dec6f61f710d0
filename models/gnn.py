"""A relational GCN (R-GCN) that enriches each region's embedding with its logical neighbourhood.

Each layer is R-GCN with basis decomposition, mean aggregation per relation and a root (self-loop)
weight: ``h' = h @ root + bias + sum_r mean_{j in N_r(i)} h_j @ W_r`` with ``W_r = sum_b c_rb V_b``.
It computes exactly what ``torch_geometric.nn.RGCNConv(aggr="mean", num_bases=B)`` computes (a test
checks this), rearranged as ``sum_b (sum_r c_rb A_r h) @ V_b``: B matrix products instead of R,
which is what makes training fit on two CPU cores.

``relation_weights="scalar"`` fixes the single basis and the root to the identity, so ``W_r = c_r I``:
each relation only learns how much of its neighbours' mean vector to add, in the text encoder's own
space. It carries more of what it learns over to new documents' pseudo-queries than the default
``"matrix"`` (the unconstrained basis decomposition), but did not retrieve better on questions
(docs/experiments/gnn-scalar-relation-weights.md), so the shipped checkpoints are matrices.

The output stays close to the input: ``out = normalize(x + alpha * h_L)`` with a small learnable
``alpha``, so an untrained or weakly trained model never strays far from the text encoder's space.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Self, TypeVar, cast

import torch
from torch import nn
from torch.nn import functional as F

from docgraph.errors import ModelError
from docgraph.models.checkpoint_files import save_atomically, unreadable
from docgraph.models.graph_tensors import GROUPS, NUM_KINDS, NUM_RELATIONS, GraphTensors
from docgraph.models.spill import SpillFolder

# Inference on a larger graph runs each layer over windows of this many target nodes (memory: one
# window's per-relation neighbour means, not the whole document's).
WINDOW_NODES = 1024

CHECKPOINT_FORMAT = 1
RELATION_WEIGHTS = ("scalar", "matrix")


@dataclass(frozen=True)
class GnnConfig:
    dim: int = 384  # the text encoder's dimension: input and output
    hidden: int = 384
    layers: int = 3
    relation_weights: str = "matrix"  # one of RELATION_WEIGHTS
    num_bases: int = 4  # "scalar" needs 1 (its identity basis)
    num_relations: int = NUM_RELATIONS
    num_kinds: int = NUM_KINDS
    alpha_init: float = 0.1
    dropout: float = 0.3
    groups: tuple[str, ...] = GROUPS  # relation groups the model was trained (and must run) with
    encoder: str = "all-MiniLM-L6-v2"

    def __post_init__(self) -> None:
        if self.relation_weights not in RELATION_WEIGHTS:
            raise ModelError(f"relation_weights must be one of {RELATION_WEIGHTS}, not {self.relation_weights!r}")
        if self.relation_weights == "scalar" and (self.hidden != self.dim or self.num_bases != 1):
            raise ModelError("scalar relation weights use one identity basis: hidden must equal dim, num_bases be 1")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GnnConfig:
        known = {key: value for key, value in data.items() if key in cls.__dataclass_fields__}
        if "groups" in known:
            known["groups"] = tuple(known["groups"])
        known.setdefault("relation_weights", "matrix")  # checkpoints from before the option were matrices
        return cls(**known)


@dataclass(slots=True)
class RelationalAdjacency:
    """Mean-normalised adjacency of every relation, stacked: row ``r * rows + i`` of ``matrix``
    averages the relation-``r`` neighbours of node ``first + i``. Built once per graph (or per
    window of target nodes, see :meth:`windows`), shared by all layers.
    """

    matrix: torch.Tensor  # sparse (R * rows, N), constant
    num_nodes: int
    num_relations: int
    first: int = 0  # the first target node
    rows: int = -1  # how many target nodes (-1: all of them)

    def __post_init__(self) -> None:
        if self.rows < 0:
            self.rows = self.num_nodes

    @classmethod
    def build(
        cls,
        edge_index: torch.Tensor,
        edge_type: torch.Tensor,
        num_nodes: int,
        num_relations: int,
        window: tuple[int, int] | None = None,
    ) -> Self:
        src, dst = edge_index[0], edge_index[1]
        degree = _relation_degrees(edge_type, dst, num_nodes, num_relations)
        first, stop = window or (0, num_nodes)
        if window is not None:
            inside = (dst >= first) & (dst < stop)
            src, dst, edge_type = src[inside], dst[inside], edge_type[inside]
        return cls._of_edges(src, dst, edge_type, degree, num_nodes, num_relations, (first, stop))

    @classmethod
    def _of_edges(
        cls,
        src: torch.Tensor,
        dst: torch.Tensor,
        edge_type: torch.Tensor,
        degree: torch.Tensor,
        num_nodes: int,
        num_relations: int,
        window: tuple[int, int],
    ) -> Self:
        """The adjacency of the edges into ``window`` (all of them given), normalised by ``degree``."""
        first, stop = window
        rows = edge_type * (stop - first) + (dst - first)
        values = 1.0 / degree[edge_type * num_nodes + dst] if rows.numel() else torch.zeros(0)
        shape = (num_relations * (stop - first), num_nodes)
        matrix = torch.sparse_coo_tensor(torch.stack([rows, src]), values, shape, check_invariants=False)
        return cls(matrix.coalesce(), num_nodes, num_relations, first, stop - first)

    @classmethod
    def of(cls, graph: GraphTensors, num_relations: int = NUM_RELATIONS) -> RelationalAdjacency:
        return cls.build(graph.edge_index, graph.edge_type, graph.num_nodes, num_relations)

    @classmethod
    def windows(cls, graph: GraphTensors, num_relations: int, size: int) -> AdjacencyWindows:
        """The adjacency cut into windows of ``size`` target nodes: a layer's memory then grows with
        the window, not with the document (each node's sums are the same as in the whole)."""
        n = graph.num_nodes
        degree = _relation_degrees(graph.edge_type, graph.edge_index[1], n, num_relations)
        order = torch.argsort(graph.edge_index[1], stable=True)
        src, dst, kind = graph.edge_index[0][order], graph.edge_index[1][order], graph.edge_type[order]
        return AdjacencyWindows(src, dst, kind, degree, n, num_relations, max(1, size))

    def aggregate(self, h: torch.Tensor) -> torch.Tensor:
        """(R, rows * D): per relation, each target node's neighbour mean (zero where it has none), flattened."""
        product: torch.Tensor = torch.sparse.mm(self.matrix, h)
        return product.view(self.num_relations, -1)


def _relation_degrees(edge_type: torch.Tensor, dst: torch.Tensor, num_nodes: int, num_relations: int) -> torch.Tensor:
    """(R * N,) float32: how many relation-``r`` edges each node receives, at ``r * N + node``."""
    return torch.bincount(edge_type * num_nodes + dst, minlength=num_relations * num_nodes).to(torch.float32)


@dataclass(slots=True)
class AdjacencyWindows:
    """A graph's adjacency by windows of ``size`` target nodes. The edges are sorted by target, and
    each window's matrix is made from its slice of them when the window is reached, then let go:
    the edges are kept once, not again as every window's matrix."""

    src: torch.Tensor  # (E,) int64, sorted by target
    dst: torch.Tensor
    kind: torch.Tensor
    degree: torch.Tensor  # see _relation_degrees
    num_nodes: int
    num_relations: int
    size: int
    bounds: list[int] = field(default_factory=list)  # window i's edges: bounds[i]:bounds[i + 1]

    def __post_init__(self) -> None:
        cuts = torch.tensor([*range(0, self.num_nodes, self.size), self.num_nodes], dtype=self.dst.dtype)
        self.bounds = torch.searchsorted(self.dst, cuts).tolist()

    @property
    def spans(self) -> list[slice]:
        """Each window's target nodes."""
        return [slice(first, min(first + self.size, self.num_nodes)) for first in range(0, self.num_nodes, self.size)]

    def __iter__(self) -> Iterator[RelationalAdjacency]:
        for i, rows in enumerate(self.spans):
            edges = slice(self.bounds[i], self.bounds[i + 1])
            yield RelationalAdjacency._of_edges(
                self.src[edges],
                self.dst[edges],
                self.kind[edges],
                self.degree,
                self.num_nodes,
                self.num_relations,
                (rows.start, rows.stop),
            )


class BasisRelationalConv(nn.Module):
    """One R-GCN layer; parameters named and shaped as in ``RGCNConv`` (weight, comp, root, bias).

    ``scalar``: one basis, it and the root fixed to the identity (not trained), so ``W_r = comp[r] I``.
    """

    def __init__(self, in_dim: int, out_dim: int, num_relations: int, num_bases: int, scalar: bool = False) -> None:
        super().__init__()
        if scalar and (num_bases != 1 or in_dim != out_dim):
            raise ModelError("scalar relation weights need one basis and equal input and output sizes")
        self.in_dim, self.out_dim, self.num_bases, self.scalar = in_dim, out_dim, num_bases, scalar
        self.weight = nn.Parameter(torch.empty(num_bases, in_dim, out_dim), requires_grad=not scalar)
        self.comp = nn.Parameter(torch.empty(num_relations, num_bases))
        self.root = nn.Parameter(torch.empty(in_dim, out_dim), requires_grad=not scalar)
        self.bias = nn.Parameter(torch.zeros(out_dim))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.zeros_(self.bias)
        if self.scalar:  # untrained, a layer passes its input through: relations start silent
            with torch.no_grad():
                self.weight[0].copy_(torch.eye(self.in_dim))
                self.root.copy_(torch.eye(self.in_dim))
            nn.init.zeros_(self.comp)
            return
        for parameter in (self.weight, self.comp, self.root):
            bound = math.sqrt(6.0 / (parameter.shape[-2] + parameter.shape[-1]))  # glorot, as PyG
            nn.init.uniform_(parameter, -bound, bound)

    def forward(self, h: torch.Tensor, adjacency: RelationalAdjacency) -> torch.Tensor:
        # sum_r A_r h W_r = sum_b (sum_r comp[r, b] A_r h) V_b
        mixed = (self.comp.t() @ adjacency.aggregate(h)).view(self.num_bases, adjacency.rows, self.in_dim)
        messages = torch.bmm(mixed, self.weight).sum(dim=0)
        targets = h if adjacency.rows == h.shape[0] else h[adjacency.first : adjacency.first + adjacency.rows]
        return messages + targets @ self.root + self.bias


class RelationalGNN(nn.Module):
    def __init__(self, config: GnnConfig) -> None:
        super().__init__()
        self.config = config
        self.kind = nn.Embedding(config.num_kinds, config.dim)
        nn.init.zeros_(self.kind.weight)  # starts kind-blind; learns a per-kind offset if it helps
        dims = [config.dim] + [config.hidden] * (config.layers - 1) + [config.dim]
        scalar = config.relation_weights == "scalar"
        self.convs = nn.ModuleList(
            BasisRelationalConv(a, b, config.num_relations, config.num_bases, scalar)
            for a, b in itertools.pairwise(dims)
        )
        self.alpha = nn.Parameter(torch.tensor(float(config.alpha_init)))
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor, adjacency: RelationalAdjacency, node_kind: torch.Tensor) -> torch.Tensor:
        h = x + self.kind(node_kind)
        last = len(self.convs) - 1
        for depth, conv in enumerate(self.convs):
            message = conv(h, adjacency)
            if depth == last:
                h = message
            else:
                message = self.dropout(F.gelu(message))
                h = h + message if message.shape == h.shape else message  # residual between layers
        return F.normalize(x + self.alpha * h, dim=1)

    def embed(self, graph: GraphTensors, spill: SpillFolder | None = None) -> torch.Tensor:
        """Inference on one graph: (N, dim) L2-normalised GNN embeddings. A graph of more than one
        window works in files of ``spill`` when given (its result too), not in memory."""
        if graph.num_nodes == 0:
            return torch.zeros((0, self.config.dim))
        if graph.x.shape[1] != self.config.dim:
            raise ModelError(f"GNN expects {self.config.dim}-d embeddings, the graph has {graph.x.shape[1]}-d")
        self.eval()
        relations = self.config.num_relations
        with torch.no_grad():
            if graph.num_nodes <= WINDOW_NODES:
                vectors: torch.Tensor = self(graph.x, RelationalAdjacency.of(graph, relations), graph.node_kind)
                return vectors
            windows = RelationalAdjacency.windows(graph, relations, WINDOW_NODES)
            return _WindowedInference(self, windows, spill).run(graph)


Step = TypeVar("Step")


@dataclass
class _WindowedInference:
    """``forward`` for a long document, in place and a window of rows at a time where it can be:
    the same values (``torch.equal``), with the input, one layer's input and its output the only
    (N, dim) tensors alive, in files when ``spill`` is given (their pages let go window by window)."""

    model: RelationalGNN
    windows: AdjacencyWindows
    spill: SpillFolder | None = None

    def run(self, graph: GraphTensors) -> torch.Tensor:
        model, x = self.model, graph.x
        spans = self.windows.spans
        h = self._empty(x.shape[0], x.shape[1])
        for rows in self._each(spans):
            h[rows] = x[rows] + model.kind(graph.node_kind[rows])
        last = len(model.convs) - 1
        for depth, conv in enumerate(model.convs):
            message = self._layer(cast(BasisRelationalConv, conv), h)
            if depth == last:
                h = message
            elif message.shape == h.shape:
                for rows in self._each(spans):  # the residual between layers
                    h[rows] += model.dropout(F.gelu(message[rows]))
            else:
                for rows in self._each(spans):
                    message[rows] = model.dropout(F.gelu(message[rows]))
                h = message
            del message
        for rows in self._each(spans):  # x + alpha * h, then F.normalize
            h[rows] = F.normalize(h[rows].mul_(model.alpha).add_(x[rows]), dim=1)
        return h

    def _layer(self, conv: BasisRelationalConv, h: torch.Tensor) -> torch.Tensor:
        out = self._empty(h.shape[0], conv.out_dim)
        for window in self._each(self.windows):
            out[window.first : window.first + window.rows] = conv(h, window)
        return out

    def _each(self, steps: Iterable[Step]) -> Iterator[Step]:
        """``steps`` (row spans or windows) one by one, the pages of the files they touched let go
        after each."""
        for step in steps:
            yield step
            self._release()

    def _empty(self, rows: int, cols: int) -> torch.Tensor:
        return torch.empty((rows, cols)) if self.spill is None else self.spill.empty(rows, cols)

    def _release(self) -> None:
        if self.spill is not None:
            self.spill.release()


@dataclass
class Checkpoint:
    model: RelationalGNN
    meta: dict[str, Any] = field(default_factory=dict)


def save_checkpoint(model: RelationalGNN, path: Path, meta: dict[str, Any] | None = None, half: bool = True) -> Path:
    """Config + weights (float16 by default: half the size, far below the model's noise) + meta."""
    state = {name: (t.detach().half() if half else t.detach().clone()) for name, t in model.state_dict().items()}
    payload = {"format": CHECKPOINT_FORMAT, "config": _plain(asdict(model.config)), "state": state, "meta": meta or {}}
    return save_atomically(payload, path)


def load_checkpoint(path: Path) -> Checkpoint:
    if not path.is_file():
        raise ModelError(f"no GNN checkpoint at {path}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
        config = GnnConfig.from_dict(payload["config"])
        _check_graph_layout(config, path)
        model = RelationalGNN(config)
        model.load_state_dict({name: t.float() for name, t in payload["state"].items()})
    except ModelError:
        raise
    except Exception as exc:  # an empty file (EOFError), a Git LFS pointer (UnpicklingError), wrong tensors, ...
        raise unreadable(path, "GNN", exc) from exc
    model.eval()
    return Checkpoint(model, dict(payload.get("meta", {})))


def _check_graph_layout(config: GnnConfig, path: Path) -> None:
    """A checkpoint trained on another number of relation types or region kinds would index past
    its weights inside the GNN stage: refused before it is used."""
    if (config.num_relations, config.num_kinds) != (NUM_RELATIONS, NUM_KINDS):
        raise ModelError(
            f"{path} was trained on {config.num_relations} relation types and {config.num_kinds} region kinds, "
            f"this docgraph has {NUM_RELATIONS} and {NUM_KINDS}: train one with `docgraph train-gnn`"
        )


def _plain(config: dict[str, Any]) -> dict[str, Any]:
    return {key: list(value) if isinstance(value, tuple) else value for key, value in config.items()}
