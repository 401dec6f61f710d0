"""Reader selection: maps a reader name from settings or the CLI to an ``ingest`` reader.

* ``native``: born-digital PDFs, text layer and fonts (fast, no model).
* ``detector``: a layout detector (YOLO DocLayNet ONNX) finds the regions on every page; text from
  the text layer inside each box, tesseract OCR where there is none (scans).
* ``auto`` (the default): ``native`` on pages with a good text layer, ``detector`` on the others;
  without tesseract it reads every page as ``native`` does, and says so (:func:`reader_notes`).
* ``azure``: Azure AI Document Intelligence ``prebuilt-layout`` (needs AZURE_DI_ENDPOINT and AZURE_DI_KEY).
"""

from __future__ import annotations

from pathlib import Path

from docgraph.app.config import Settings
from docgraph.errors import ConfigError
from docgraph.ingest.types import Reader

READER_NAMES = ("native", "detector", "auto", "azure")


def make_reader(name: str, settings: Settings) -> Reader:
    choice = name.strip().lower()
    if choice == "native":
        from docgraph.ingest.readers.native import NativeReader

        return NativeReader(max_pages=settings.max_pages)
    if choice == "detector":
        from docgraph.ingest.readers.detector import DetectorReader

        return DetectorReader(
            max_pages=settings.max_pages,
            model_path=_model_path(settings),
            ocr_lang=settings.ocr_lang,
            image_text=settings.picture_ocr,
        )
    if choice == "auto":
        from docgraph.ingest.pdf.ocr import tesseract_available
        from docgraph.ingest.readers.auto import AutoReader

        return AutoReader(
            max_pages=settings.max_pages,
            model_path=_model_path(settings),
            ocr_lang=settings.ocr_lang,
            ocr=tesseract_available() and not _no_language_installed(settings.ocr_lang),
            image_text=settings.picture_ocr,
        )
    if choice == "azure":
        from docgraph.ingest.readers.azure import AzureReader

        return AzureReader(settings.azure_di_endpoint, settings.azure_di_key, max_pages=settings.max_pages)
    raise ConfigError(f"unknown reader {name!r}; choose one of: {', '.join(READER_NAMES)}")


def reader_ocr_off(reader: Reader) -> bool:
    """Whether ``reader`` is the ``auto`` reader running without OCR (no tesseract)."""
    return reader.name == "auto" and getattr(reader, "ocr", True) is False


def reader_notes(reader: Reader) -> list[str]:
    """What the reader leaves out and why, for the user to see once."""
    lang = str(getattr(reader, "ocr_lang", ""))
    missing = _missing_languages(lang) if reader.name in ("detector", "auto") else []
    if reader_ocr_off(reader):
        from docgraph.ingest.pdf.ocr import DEBIAN_PACKAGE, TESSERACT

        if missing:  # tesseract is there, but no language of DOCGRAPH_OCR_LANG
            return [_language_note(missing, "OCR off: scanned pages and text in pictures stay unread")]
        return [
            f"OCR off: the `{TESSERACT}` command is not installed, so scanned pages stay empty "
            f"(apt-get install {DEBIAN_PACKAGE})"
        ]
    if missing and _no_language_installed(lang):  # the detector reader OCRs where the text layer gives nothing
        return [_language_note(missing, "scanned pages and text in pictures fail to read")]
    if missing:  # tesseract reads with the others
        return [_language_note(missing, f"OCR reads without {', '.join(missing)}")]
    if reader.name in ("detector", "auto"):
        from docgraph.ingest.pdf.ocr import tesseract_available
        from docgraph.ingest.pdf.orientation import OSD_PACKAGE, orientation_model_installed

        if tesseract_available() and not orientation_model_installed():
            return [
                "scans are read as they lie: tesseract's `osd` model, which turns a scan stored "
                f"sideways or upside down, is not installed (apt-get install {OSD_PACKAGE})"
            ]
    return []


def _model_path(settings: Settings) -> Path | None:
    if not settings.detector_model:
        return None
    path = Path(settings.detector_model).expanduser()
    if not path.is_file():
        raise ConfigError(f"DOCGRAPH_DETECTOR_MODEL: no ONNX file at {path}")
    return path


def _missing_languages(lang: str) -> list[str]:
    from docgraph.ingest.pdf.ocr import missing_languages

    return missing_languages(lang)


def _no_language_installed(lang: str) -> bool:
    from docgraph.ingest.pdf.ocr import no_language_installed

    return no_language_installed(lang)


def _language_note(missing: list[str], effect: str) -> str:
    from docgraph.ingest.pdf.ocr import missing_language_message

    return f"{effect}: {missing_language_message(missing)}"


def ocr_packages(reader: Reader) -> list[str]:
    """What to install for ``reader``'s OCR (off, for ``auto``): tesseract, or the languages of
    DOCGRAPH_OCR_LANG it has no data for."""
    from docgraph.ingest.pdf.ocr import DEBIAN_PACKAGE, language_package, tesseract_available

    if not tesseract_available():
        return [DEBIAN_PACKAGE]
    return [language_package(lang) for lang in _missing_languages(str(getattr(reader, "ocr_lang", "")))]
