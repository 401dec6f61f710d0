"""Reader selection: maps a reader name from settings or the CLI to an ``ingest`` reader."""

from __future__ import annotations

from app.config import Settings
from app.exceptions import ConfigError
from ingest.types import Reader

READER_NAMES = ("native",)


def make_reader(name: str, settings: Settings) -> Reader:
    if name == "native":
        from ingest.native import NativeReader

        return NativeReader(max_pages=settings.max_pages)
    raise ConfigError(f"unknown reader {name!r}; choose one of: {', '.join(READER_NAMES)}")
