"""Layout training wrapper: DocLayNet (COCO) -> YOLO conversion, and a clear error without Ultralytics."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from docgraph.errors import ModelError
from docgraph.models.layout_detector import DOCLAYNET_CLASSES
from docgraph.models.train_layout import coco_to_yolo, prepare_doclaynet, train_layout

CATEGORIES = [{"id": k + 1, "name": name} for k, name in enumerate(DOCLAYNET_CLASSES)]


def coco(images: list[tuple[int, str]], annotations: list[tuple[int, int, list[float]]]) -> dict[str, object]:
    return {
        "images": [{"id": i, "file_name": name, "width": 1025, "height": 1025} for i, name in images],
        "annotations": [
            {"id": n, "image_id": i, "category_id": c, "bbox": b} for n, (i, c, b) in enumerate(annotations)
        ],
        "categories": CATEGORIES,
    }


def test_coco_boxes_become_normalised_yolo_lines() -> None:
    data = coco([(1, "a.png"), (2, "b.png")], [(1, 11, [102.5, 205.0, 410.0, 102.5]), (1, 7, [0, 0, 1025, 1025])])
    labels = coco_to_yolo(data, [c["id"] for c in CATEGORIES])
    # Title is category 11 -> YOLO class 10; centre (307.5, 256.25) / 1025, size 0.4 x 0.1.
    assert labels["a.png"] == ["10 0.300000 0.250000 0.400000 0.100000", "6 0.500000 0.500000 1.000000 1.000000"]
    assert labels["b.png"] == []  # an image without boxes still gets an (empty) label file


def test_prepare_doclaynet_writes_a_yolo_dataset(tmp_path: Path) -> None:
    root = tmp_path / "DocLayNet"
    (root / "COCO").mkdir(parents=True)
    (root / "PNG").mkdir()
    for name in ("p1.png", "p2.png"):
        (root / "PNG" / name).write_bytes(b"png")
    (root / "COCO" / "train.json").write_text(json.dumps(coco([(1, "p1.png")], [(1, 10, [10, 10, 100, 50])])))
    (root / "COCO" / "val.json").write_text(json.dumps(coco([(2, "p2.png")], [])))
    data = prepare_doclaynet(root, tmp_path / "yolo")
    text = data.read_text()
    assert "train: images/train" in text and "val: images/val" in text and "test:" not in text
    assert '10: "Title"' in text and '0: "Caption"' in text
    assert (tmp_path / "yolo" / "images" / "train" / "p1.png").resolve() == (root / "PNG" / "p1.png").resolve()
    assert (tmp_path / "yolo" / "labels" / "train" / "p1.txt").read_text().startswith("9 ")
    with pytest.raises(ModelError, match="DocLayNet format"):
        prepare_doclaynet(tmp_path / "nowhere", tmp_path / "out")


@pytest.mark.skipif(importlib.util.find_spec("ultralytics") is not None, reason="ultralytics is installed here")
def test_training_without_ultralytics_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"pip install ultralytics torchvision"):
        train_layout(tmp_path / "data.yaml", tmp_path / "out")
