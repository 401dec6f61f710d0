"""The error responses a route documents in the OpenAPI schema."""

from __future__ import annotations

from typing import Any

from docgraph.app.api.errors import COMMON_ERRORS
from docgraph.app.api.models import ErrorResponse

DESCRIPTIONS = {
    400: "Bad request (a malformed query, an invalid setting, a Host header not served here)",
    401: "An API key is needed (once any key exists): send Authorization: Bearer KEY",
    403: "Refused: the key's role may not do this, the request came from a foreign origin, or the query would write",
    404: "No such document or job",
    409: "A different document is stored under that name (send replace=true to replace it)",
    413: "The upload is larger than api_max_upload_mb",
    429: "Every slot for written queries is busy (user_query_slots): try again shortly",
    415: "The upload is not a PDF",
    422: "The request does not match the schema, or no valid query could be generated",
    500: "Internal error (details in the server log only)",
    502: "The LLM endpoint failed",
    503: "The store, the LLM endpoint or a model is unavailable, or the server is stopping (server_stopping)",
    504: "The query ran past its time limit",
}


def documented(*statuses: int, described: dict[int, str] | None = None) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route: the given statuses plus those every route may answer; ``described``
    says what a status means on this route where that is not its usual meaning."""
    wanted = sorted(set(statuses) | set(COMMON_ERRORS))
    text = {**DESCRIPTIONS, **(described or {})}
    return {status: {"model": ErrorResponse, "description": text[status]} for status in wanted}
