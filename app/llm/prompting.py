"""Prompt templates kept as files in ``app/llm/prompts/``, filled with ``{{name}}`` markers.

Double braces leave JSON examples and Cypher ``$parameters`` in the templates untouched.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
_MARKER = re.compile(r"\{\{([a-z_]+)\}\}")


@cache
def template(name: str) -> str:
    return (PROMPTS_DIR / f"{name}.md").read_text(encoding="utf-8").strip()


def fill(name: str, **values: str) -> str:
    """The template ``name`` with every ``{{marker}}`` replaced; a marker without a value is an error."""

    def value_for(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"prompt {name!r} needs a value for {{{{{key}}}}}")
        return values[key]

    return _MARKER.sub(value_for, template(name))
