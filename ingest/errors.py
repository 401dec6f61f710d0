"""Errors raised by ingestion; the app layer maps them to its own typed errors."""

from __future__ import annotations


class PdfInputError(ValueError):
    """The input file cannot be read as a usable PDF (one-line message naming file and cause)."""
