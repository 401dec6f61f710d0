"""Commands that train or re-run models: train-layout (and, with the GNN, train-gnn and reembed)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import JsonOption, console, handles_errors, print_json


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
    from models.train_layout import train_layout

    trained = train_layout(data, out, base=base, epochs=epochs, imgsz=imgsz, batch=batch, device=device)
    result = {"weights": str(trained.weights), "onnx": str(trained.onnx), "class_names": list(trained.class_names)}
    if json_out:
        print_json(result)
    else:
        console.print(f"weights: {trained.weights}\nonnx: {trained.onnx}  (use: --reader detector with this model)")
