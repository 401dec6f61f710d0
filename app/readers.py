"""Reader selection: maps a reader name from settings or the CLI to an ``ingest`` reader.

* ``native``: born-digital PDFs, text layer and fonts (fast, no model).
* ``detector``: a layout detector (YOLO DocLayNet ONNX) finds the regions on every page; text from
  the text layer inside each box, tesseract OCR where there is none (scans).
* ``auto``: ``native`` on pages with a good text layer, ``detector`` on the others.
* ``azure``: Azure AI Document Intelligence ``prebuilt-layout`` (needs AZURE_DI_ENDPOINT and AZURE_DI_KEY).
"""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.exceptions import ConfigError
from ingest.types import Reader

READER_NAMES = ("native", "detector", "auto", "azure")


def make_reader(name: str, settings: Settings) -> Reader:
    choice = name.strip().lower()
    if choice == "native":
        from ingest.native import NativeReader

        return NativeReader(max_pages=settings.max_pages)
    if choice == "detector":
        from ingest.detector_reader import DetectorReader

        return DetectorReader(
            max_pages=settings.max_pages, model_path=_model_path(settings), ocr_lang=settings.ocr_lang
        )
    if choice == "auto":
        from ingest.auto_reader import AutoReader

        return AutoReader(max_pages=settings.max_pages, model_path=_model_path(settings), ocr_lang=settings.ocr_lang)
    if choice == "azure":
        from ingest.azure_reader import AzureReader

        return AzureReader(settings.azure_di_endpoint, settings.azure_di_key, max_pages=settings.max_pages)
    raise ConfigError(f"unknown reader {name!r}; choose one of: {', '.join(READER_NAMES)}")


def _model_path(settings: Settings) -> Path | None:
    if not settings.detector_model:
        return None
    path = Path(settings.detector_model).expanduser()
    if not path.is_file():
        raise ConfigError(f"DOCGRAPH_DETECTOR_MODEL: no ONNX file at {path}")
    return path
