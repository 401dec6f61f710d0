"""Commands that train, calibrate or re-run models: train-layout, train-gnn, reembed, train-reranker and
calibrate-uncertainty."""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from docgraph.app.cli.common import (
    JsonOption,
    StoreOption,
    console,
    err_console,
    handles_errors,
    opened_store,
    print_json,
    settings_for,
    stage_progress,
)
from docgraph.app.config import Settings
from docgraph.app.jobs.documents import find_document
from docgraph.errors import ConfigError


@handles_errors
def train_layout_command(
    data: Annotated[Path, typer.Argument(help="A YOLO data.yaml, or a DocLayNet-format folder (COCO JSON + PNGs).")],
    out: Annotated[Path, typer.Option("--out", help="Output folder for weights and the ONNX export.")] = Path(
        "layout-model"
    ),
    base: Annotated[str, typer.Option("--base", help="Local .pt to fine-tune, or an architecture .yaml.")] = (
        "yolov8n.yaml"
    ),
    epochs: Annotated[int, typer.Option("--epochs")] = 50,
    imgsz: Annotated[int, typer.Option("--imgsz")] = 1024,
    batch: Annotated[int, typer.Option("--batch")] = 16,
    device: Annotated[str | None, typer.Option("--device", help="e.g. 0 for the first GPU, cpu")] = None,
    json_out: JsonOption = False,
) -> None:
    """Fine-tune a YOLO layout detector with Ultralytics (needs torchvision; a GPU is advised), export ONNX."""
    from docgraph.models.train_layout import train_layout

    trained = train_layout(data, out, base=base, epochs=epochs, imgsz=imgsz, batch=batch, device=device)
    result = {"weights": str(trained.weights), "onnx": str(trained.onnx), "class_names": list(trained.class_names)}
    if json_out:
        print_json(result)
    else:
        console.print(f"weights: {trained.weights}\nonnx: {trained.onnx}  (use: --reader detector with this model)")


NEW_CHECKPOINT_HELP = "Checkpoint file (default: a new one under <home>/checkpoints, never the shipped one)."


def new_checkpoint(settings: Settings, model: str) -> Path:
    """A checkpoint file of its own under the data home: training never replaces the shipped model
    (which every store of this install was built with) unless asked to by name. Named by the time
    and a random tag: two runs started in one second wrote one file, the second over the first."""
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
    return (settings.home / "checkpoints" / f"{model}-{stamp}.pt").resolve()


def checked_out_path(path: Path) -> Path:
    """``--out`` as an absolute path, refused in one line before any training when no checkpoint
    can be saved there (it failed after the whole run); absolute, so that the "to use it" line
    works from any folder."""
    path = path.expanduser().resolve()
    if path.is_dir():
        raise ConfigError(f"--out {path} is a folder: name the checkpoint file (for example {path / 'model.pt'})")
    parent = next(folder for folder in path.parents if folder.exists())
    if not parent.is_dir():
        raise ConfigError(f"--out {path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"--out {path}: cannot write in {parent}")
    return path


@handles_errors
def train_gnn_command(
    docs: Annotated[Path, typer.Option("--docs", help="Folder of training PDFs (no labels needed).")],
    epochs: Annotated[int, typer.Option("--epochs", help="Most epochs; early stopping usually ends sooner.")] = 8,
    drop: Annotated[
        list[str] | None, typer.Option("--drop", help="Relation group to leave out (ablations), e.g. cross_page.")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help=NEW_CHECKPOINT_HELP)] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    unseen_docs: Annotated[
        Path | None,
        typer.Option(
            "--unseen-docs",
            help="Folder of other PDFs: score the trained GNN on their pseudo-queries (not used for training).",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Train the R-GCN self-supervised on pseudo-queries from the PDFs; save the checkpoint."""
    from docgraph.app.jobs.train_gnn import train_gnn
    from docgraph.app.pipeline.gnn import DEFAULT_CHECKPOINT
    from docgraph.models.graph_tensors import GROUPS

    unknown = sorted(set(drop or []) - set(GROUPS))
    if unknown:
        raise ConfigError(f"unknown relation group(s) {', '.join(unknown)}; groups: {', '.join(GROUPS)}")
    groups = [group for group in GROUPS if group not in set(drop or [])]
    if epochs < 1:  # before the PDFs are read and embedded
        raise ConfigError("--epochs must be at least 1")
    settings = settings_for(None)  # the PDFs are read, not stored
    out = checked_out_path(out) if out is not None else new_checkpoint(settings, "rgcn")
    report = train_gnn(
        settings,
        docs,
        epochs=epochs,
        out=out,
        seed=seed,
        progress=err_console.is_terminal,  # bars on a terminal's stderr, with --json too (stdout: the report)
        groups=groups,
        unseen_dir=unseen_docs,
    )
    if json_out:
        print_json(report.to_json())
        return
    for log in report.history:
        console.print(" ".join(f"{key}={value}" for key, value in log.to_json().items()), highlight=False)
    console.print(f"best epoch {report.best_epoch}; saved {report.checkpoint} ({report.seconds:.0f}s)")
    if "unseen" in report.extra:
        console.print(format_unseen(report.extra["unseen"]), highlight=False, soft_wrap=True)
    if out.resolve() != DEFAULT_CHECKPOINT.resolve():
        console.print(f"to use it: DOCGRAPH_GNN_CHECKPOINT={out} docgraph reembed", highlight=False)


@handles_errors
def train_reranker_command(
    docs: Annotated[Path, typer.Option("--docs", help="Folder of training PDFs (no labels needed).")],
    epochs: Annotated[int, typer.Option("--epochs", help="Epochs; the best held-out epoch is kept.")] = 2,
    queries: Annotated[int, typer.Option("--queries", help="Training pseudo-queries per document.")] = 250,
    out: Annotated[Path | None, typer.Option("--out", help=NEW_CHECKPOINT_HELP)] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    json_out: JsonOption = False,
) -> None:
    """Train the cross-encoder reranker (hybrid-rerank) on pseudo-queries and hard negatives from the PDFs."""
    from docgraph.app.jobs.train_reranker import MiningConfig, train_reranker
    from docgraph.app.retrieval.rerank import DEFAULT_RERANKER
    from docgraph.models.reranker_training import RerankTrainConfig

    if epochs < 1 or queries < 1:
        raise ConfigError("--epochs and --queries must be at least 1")
    settings = settings_for(None)  # the PDFs go into a throw-away store, never the configured one
    out = checked_out_path(out) if out is not None else new_checkpoint(settings, "rerank")
    with stage_progress() as progress:
        report = train_reranker(
            settings,
            docs,
            out=out,
            train_config=RerankTrainConfig(epochs=epochs, seed=seed),
            mining=MiningConfig(train_queries=queries),
            progress=progress,
        )
    if json_out:
        print_json(report.to_json())
        return
    summary = report.to_json()
    console.print(f"groups: {summary['groups']}; held-out answer first / MRR", highlight=False)
    console.print(f"  hybrid order  {summary['baseline']}\n  untrained     {summary['untrained']}", highlight=False)
    for epoch in summary["history"]:
        console.print(f"  epoch {epoch['epoch']}       {epoch['held_out']}  loss {epoch['loss']}", highlight=False)
    console.print(f"best epoch {report.training.best_epoch}; saved {report.checkpoint} ({report.seconds:.0f}s)")
    if out.resolve() != DEFAULT_RERANKER.resolve():
        use = f"DOCGRAPH_RERANKER_CHECKPOINT={out} docgraph ask --retriever hybrid-rerank"
        console.print(f"to use it: {use} ...", highlight=False)


@handles_errors
def reembed_command(
    doc: Annotated[str | None, typer.Option("--doc", help="Only this document (id or file name).")] = None,
    checkpoint: Annotated[Path | None, typer.Option("--checkpoint", help="GNN checkpoint to use.")] = None,
    variant: Annotated[
        str | None,
        typer.Option(
            "--variant", help="Compute a GNN variant's vectors (its shipped checkpoint): gnn, no-cross-page, no-sim."
        ),
    ] = None,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Recompute gnn_embedding for stored documents (after `docgraph train-gnn`)."""
    if variant and checkpoint is not None:  # a variant's vectors come from its own checkpoint
        raise typer.BadParameter("--checkpoint and --variant do not go together: a variant uses its own checkpoint")
    from docgraph.app.jobs.reembed import ensure_variant, reembed

    with opened_store(store, schema=True) as (graph_store, settings), stage_progress() as progress:
        doc_id = str(find_document(graph_store, doc)["doc_id"]) if doc else None
        if variant:
            prop = ensure_variant(graph_store, settings, variant, doc_id=doc_id, progress=progress)
            result: dict[str, object] = {"variant": variant, "property": prop, "doc_id": doc_id}
        else:
            updated = reembed(graph_store, settings, checkpoint=checkpoint, doc_id=doc_id, progress=progress)
            result = {"updated_nodes": updated, "doc_id": doc_id}
    if json_out:
        print_json(result)
    else:
        shown = {**result, "doc_id": result["doc_id"] or "every document"}  # None is for --json
        console.print(", ".join(f"{key}: {value}" for key, value in shown.items()))


def format_unseen(unseen: dict[str, Any]) -> str:
    """The unseen documents' pseudo-query page R@1 by kind, input embedding -> GNN."""
    lines = [f"unseen documents ({', '.join(unseen['documents'])}): pseudo-query page R@1, input -> GNN"]
    for kind, row in unseen["by_kind"].items():
        gain = 100 * (row["gnn_page_r1"] - row["input_page_r1"])
        lines.append(
            f"  {kind:<11} {row['queries']:>6}  {100 * row['input_page_r1']:5.1f} -> {100 * row['gnn_page_r1']:5.1f}"
            f"  ({gain:+.1f})"
        )
    return "\n".join(lines)


@handles_errors
def calibrate_uncertainty_command(
    questions: Annotated[Path, typer.Argument(help="JSON lines with a question (and a doc to ask it of).")],
    share: Annotated[float, typer.Option("--share", help="Share of the model's answers to re-read.")] = 0.25,
    retriever: Annotated[str, typer.Option("--retriever", help="Retriever variant (see `docgraph eval`).")] = "hybrid",
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Set the configured model's entropy threshold for re-reading, from its answers to QUESTIONS."""
    from docgraph.app.jobs.calibrate_uncertainty import calibrate_uncertainty, load_calibration_questions
    from docgraph.app.llm.client import make_client
    from docgraph.app.pipeline.embedding import configured_encoder
    from docgraph.app.retrieval.registry import make_retriever

    if not 0 < share < 1:  # before the store and the endpoint are tried
        raise ConfigError(f"--share must lie between 0 and 1, not {share:g}")
    loaded = load_calibration_questions(questions)
    with opened_store(store) as (graph_store, settings), stage_progress() as progress:
        make_client(settings)  # no endpoint: refused before any question is asked
        chosen = make_retriever(retriever, graph_store, configured_encoder(settings), settings=settings)
        calibration = calibrate_uncertainty(loaded, graph_store, settings, chosen, share, progress)
    if json_out:
        print_json(calibration.to_json())
        return
    summary = calibration.to_json()
    console.print(
        f"{summary['model']}: re-read above {summary['threshold']} nats (median {summary['median_entropy']}, "
        f"{summary['answers_with_entropy']} of {summary['asked']} answers); saved in {summary['path']}",
        highlight=False,
        markup=False,
    )
