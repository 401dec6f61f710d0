"""Locations of the repository's non-Python resources (Cypher, schema, samples)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout, or the installed package
IMPORT_ROOT = Path(__file__).parent.parent.parent  # the folder `docgraph` is imported from
CYPHER_DIR = ROOT / "cypher"
SCHEMA_DIR = ROOT / "schema"
SAMPLES_DIR = ROOT / "samples"


def source_commit() -> str | None:
    """The git commit of the source tree ("+dirty" when it has uncommitted changes), or None outside
    a git checkout: recorded with a trained model, since the reader's code shapes its training data."""
    import subprocess

    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+dirty" if status.stdout.strip() else "")


def docgraph_release() -> str:
    """The installed docgraph version ("unknown" when run from a source tree that is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("docgraph")
    except PackageNotFoundError:
        return "unknown"
