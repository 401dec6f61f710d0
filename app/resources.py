"""Locations of the repository's non-Python resources (Cypher, schema, samples)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CYPHER_DIR = ROOT / "cypher"
SCHEMA_DIR = ROOT / "schema"
SAMPLES_DIR = ROOT / "samples"
