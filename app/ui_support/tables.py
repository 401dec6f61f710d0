"""Query rows for people: compact table cells, CSV export and JSON query parameters."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from docgraph.app.stores.base import Row
from docgraph.app.stores.schema import is_vector_property
from docgraph.app.ui_support.graph_view import is_node, is_path, is_relationship
from docgraph.errors import ConfigError

MAX_CELL_CHARS = 400
LONG_VECTOR = 16  # a list of more numbers than this is shown as its length, not its values


def columns_of(rows: Sequence[Row]) -> list[str]:
    """Every column that any row has, in first-seen order."""
    return list(dict.fromkeys(column for row in rows for column in row))


def display_rows(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Rows with nodes, relationships and paths written compactly and vectors summarised.

    A column that mixes types (numbers and strings) becomes text, so the table widget shows it as is.
    """
    columns = columns_of(rows)
    shown = [{column: display_value(row.get(column)) for column in columns} for row in rows]
    for column in columns:
        kinds = {type(row[column]) for row in shown if row[column] is not None}
        if len(kinds) > 1:
            for row in shown:
                if row[column] is not None:
                    row[column] = str(row[column])
    return shown


def display_value(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return _clip(value)
    return _clip(describe(value))


def describe(value: Any) -> str:
    """One line for a node, relationship, path, vector or nested value."""
    if is_node(value):
        props = _without_vectors(value["properties"])
        return f"(:{':'.join(value['labels'])} {_json(props)})"
    if is_relationship(value):
        props = _without_vectors(value.get("properties") or {})
        return f"[:{value['type']}{' ' + _json(props) if props else ''}]"
    if is_path(value):
        return f"path: {len(value['nodes'])} nodes, {len(value['relationships'])} relationships"
    if isinstance(value, list) and len(value) > LONG_VECTOR and all(isinstance(v, int | float) for v in value):
        return f"[{len(value)} numbers]"
    if isinstance(value, list):
        return "[" + ", ".join(describe(item) if not isinstance(item, str) else item for item in value) + "]"
    if isinstance(value, dict):
        return _json(_without_vectors(value))
    return str(value)


def rows_to_csv(rows: Sequence[Row]) -> str:
    """CSV with a header of every column; nested values as JSON, vectors left in full."""
    columns = columns_of(rows)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_cell(row.get(column)) for column in columns])
    return buffer.getvalue()


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def parse_params(text: str) -> dict[str, Any]:
    """Query parameters from a JSON object; empty text means none."""
    if not text.strip():
        return {}
    try:
        params = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"parameters are not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from exc
    if not isinstance(params, dict):
        raise ConfigError('parameters must be a JSON object, e.g. {"doc": "report", "page": 3}')
    return params


def _without_vectors(props: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in props.items() if not is_vector_property(key)}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"
