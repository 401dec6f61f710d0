"""What the servers (``serve``, ``mcp``, ``ui``) print: a start record and their log, as text or
JSON lines for a log collector. Under ``--json`` stdout carries the start record only; every log
line goes to stderr."""

from __future__ import annotations

import copy
import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

from docgraph.app.cli.common import console

# uvicorn's access log passes these as its record's args, in this order.
ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")


class JsonLogFormatter(logging.Formatter):
    """One JSON object a line: time (UTC), level, logger, message; an access line's request
    fields; the traceback of a logged exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) == 5:
            entry.update(zip(ACCESS_FIELDS, record.args, strict=True))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def server_log_config(as_json: bool, server_level: str = "INFO", stdout_taken: bool = False) -> dict[str, Any]:
    """uvicorn's logging setup plus docgraph's own loggers, the Neo4j driver's and the root logger
    (which otherwise reach stderr bare, through Python's last-resort handler, without info lines).
    ``stdout_taken``: stdout carries something else (the start record, MCP over stdio)."""
    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["docgraph"] = {"format": "%(levelname)s:     %(name)s: %(message)s"}
    config["handlers"]["docgraph"] = {
        "formatter": "docgraph",
        "class": "logging.StreamHandler",
        "stream": "ext://sys.stderr",
    }
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        config["loggers"][name]["level"] = server_level
    # Libraries' own warnings (the MCP SDK sets up a Rich handler of its own on the root logger).
    config["root"] = {"handlers": ["docgraph"], "level": "WARNING"}
    config["loggers"]["docgraph"] = {"handlers": ["docgraph"], "level": "INFO", "propagate": False}
    config["loggers"]["neo4j"] = {"handlers": ["docgraph"], "level": "WARNING", "propagate": False}
    if as_json:
        for name in config["formatters"]:
            config["formatters"][name] = {"()": JsonLogFormatter}
    if as_json or stdout_taken:
        config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    return config


def announce(service: str, url: str, as_json: bool, **details: str) -> None:
    """Where the server listens: one JSON line on stdout, or a line of text."""
    line = announcement(service, url, as_json, **details)
    if as_json:
        sys.stdout.write(line + "\n")
    else:
        console.print(line, highlight=False, soft_wrap=True)
    sys.stdout.flush()


def announcement(service: str, url: str, as_json: bool, **details: str) -> str:
    """The line :func:`announce` prints."""
    if as_json:
        return json.dumps({"service": service, "url": url, **details}, ensure_ascii=False)
    return f"docgraph {service} on {url}" + "".join(f", {name} {value}" for name, value in details.items())
