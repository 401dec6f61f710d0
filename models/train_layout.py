"""Optional fine-tuning of the layout detector (``docgraph train-layout``), wrapping Ultralytics.

For users with a working torchvision (ideally a GPU): DocLayNet-format data (COCO JSON per split
plus the page PNGs) is converted to the YOLO layout Ultralytics trains on, a YOLO model is
trained from a local checkpoint (or from scratch from an architecture file such as
``yolov8n.yaml``; nothing is downloaded), and the best weights are exported to ONNX, ready for
:class:`models.layout_detector.LayoutDetector` (``--model PATH``). Ultralytics and torchvision
are imported only here, lazily; where they cannot be imported the functions fail with one
clear :class:`~docgraph.errors.ModelError` saying what to install.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docgraph.errors import ModelError
from docgraph.models.layout_detector import DOCLAYNET_CLASSES

SPLITS = ("train", "val", "test")
DEFAULT_ARCHITECTURE = "yolov8n.yaml"  # built from Ultralytics' bundled config: no download
DEFAULT_IMGSZ = 1024
UNUSABLE = (
    "layout training needs the ultralytics and torchvision packages matching the installed torch "
    "(pip install ultralytics torchvision; a GPU is strongly advised): {cause}"
)


@dataclass(frozen=True, slots=True)
class TrainedLayout:
    weights: Path  # best PyTorch checkpoint
    onnx: Path  # its ONNX export, for LayoutDetector
    class_names: tuple[str, ...]


def check_training_available() -> Any:
    """The ``ultralytics.YOLO`` class, or a ModelError naming what is missing or broken."""
    try:
        import torchvision  # noqa: F401  (Ultralytics needs it for NMS; it must match torch)
        from ultralytics import YOLO
    except Exception as exc:  # ImportError, or a torchvision built for another torch (RuntimeError)
        raise ModelError(UNUSABLE.format(cause=f"{type(exc).__name__}: {exc}")) from exc
    return YOLO


def coco_to_yolo(coco: Mapping[str, Any], class_ids: Sequence[int]) -> dict[str, list[str]]:
    """YOLO label lines per image file name: ``class cx cy w h`` normalised to the image size.

    ``class_ids`` are the COCO category ids in the order of the YOLO classes.
    """
    index = {cid: k for k, cid in enumerate(class_ids)}
    images = {int(img["id"]): img for img in coco.get("images", [])}
    labels: dict[str, list[str]] = {str(img["file_name"]): [] for img in images.values()}
    for ann in coco.get("annotations", []):
        image = images.get(int(ann["image_id"]))
        cls = index.get(int(ann["category_id"]))
        if image is None or cls is None:
            continue
        x, y, w, h = (float(v) for v in ann["bbox"])
        iw, ih = float(image["width"]), float(image["height"])
        if w <= 0 or h <= 0 or iw <= 0 or ih <= 0:
            continue
        cx, cy = min(max((x + w / 2) / iw, 0.0), 1.0), min(max((y + h / 2) / ih, 0.0), 1.0)
        labels[str(image["file_name"])].append(f"{cls} {cx:.6f} {cy:.6f} {min(w / iw, 1.0):.6f} {min(h / ih, 1.0):.6f}")
    return labels


def prepare_doclaynet(root: Path, out: Path) -> Path:
    """Convert a DocLayNet-format folder (``COCO/{train,val,test}.json``, ``PNG/``) to YOLO; returns data.yaml.

    Images are linked, not copied. Class names and order come from the COCO categories.
    """
    coco_dir, png_dir = root / "COCO", root / "PNG"
    if not (coco_dir / "train.json").is_file() or not png_dir.is_dir():
        raise ModelError(f"{root} is not in DocLayNet format: expected COCO/train.json, COCO/val.json and PNG/")
    names: list[str] = []
    for split in SPLITS:
        source = coco_dir / f"{split}.json"
        if not source.is_file():
            continue
        coco = json.loads(source.read_text(encoding="utf-8"))
        categories = sorted(coco.get("categories", []), key=lambda c: int(c["id"]))
        names = names or [str(c["name"]) for c in categories]
        labels = coco_to_yolo(coco, [int(c["id"]) for c in categories])
        _write_split(out, split, png_dir, labels)
    return _write_data_yaml(out, names or list(DOCLAYNET_CLASSES))


def _write_split(out: Path, split: str, png_dir: Path, labels: Mapping[str, list[str]]) -> None:
    image_dir, label_dir = out / "images" / split, out / "labels" / split
    image_dir.mkdir(parents=True, exist_ok=True)
    label_dir.mkdir(parents=True, exist_ok=True)
    for file_name, lines in labels.items():
        link = image_dir / file_name
        if not link.exists():
            os.symlink((png_dir / file_name).resolve(), link)
        (label_dir / Path(file_name).with_suffix(".txt").name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_data_yaml(out: Path, names: Sequence[str]) -> Path:
    splits = [s for s in SPLITS if (out / "images" / s).is_dir()]
    lines = [f"path: {out.resolve()}"] + [f"{s}: images/{s}" for s in splits] + ["names:"]
    lines += [f"  {k}: {json.dumps(name)}" for k, name in enumerate(names)]
    data = out / "data.yaml"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return data


def train_layout(
    data: Path,
    out: Path,
    base: str | Path = DEFAULT_ARCHITECTURE,
    epochs: int = 50,
    imgsz: int = DEFAULT_IMGSZ,
    batch: int = 16,
    device: str | None = None,
) -> TrainedLayout:
    """Fine-tune (from a local ``.pt``) or train (from a ``.yaml`` architecture) and export to ONNX.

    ``data``: a YOLO ``data.yaml`` or a DocLayNet-format folder (converted under ``out/dataset``).
    """
    yolo_class = check_training_available()
    if epochs < 1 or imgsz < 32 or batch < 1:
        raise ValueError("epochs, batch must be at least 1 and imgsz at least 32")
    base_text = str(base)
    if not base_text.endswith(".yaml") and not Path(base_text).is_file():
        raise ModelError(f"base checkpoint {base_text} not found (nothing is downloaded: give a local .pt file)")
    data_yaml = data if data.suffix in (".yaml", ".yml") else prepare_doclaynet(data, out / "dataset")
    model = yolo_class(base_text)
    model.train(
        data=str(data_yaml),
        epochs=epochs,
        imgsz=imgsz,
        batch=batch,
        device=device,
        project=str(out),
        name="train",
        exist_ok=True,
        plots=False,
    )
    best = Path(model.trainer.best)
    trained = yolo_class(str(best))
    onnx = Path(trained.export(format="onnx", imgsz=imgsz, opset=12, dynamic=False, simplify=False))
    names = trained.names
    class_names = tuple(str(names[k]) for k in sorted(names)) if isinstance(names, dict) else tuple(names)
    return TrainedLayout(weights=best, onnx=onnx, class_names=class_names)
