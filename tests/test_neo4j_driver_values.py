"""What the Neo4j store makes of the driver's own values, errors and log, without a server: the
durations and points a query returns, the error a missing database gives (Neo4j Community has
only the database ``neo4j``), and the notifications the driver logs."""

from __future__ import annotations

import logging
from pathlib import Path

import neo4j.spatial
import neo4j.time
import pytest
from neo4j import exceptions as neo4j_errors
from neo4j._debug._notification_printer import NotificationPrinter
from neo4j._work.summary import ResultSummary
from neo4j.addressing import Address
from neo4j.api import ServerInfo

from docgraph.app.config import Settings
from docgraph.app.stores.base import WriteResult
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.neo4j_store import _mapped, check_server_version, memory_limit_not_retried
from docgraph.app.stores.results import plain_value
from docgraph.errors import (
    ConfigError,
    MissingEndpointError,
    StoreError,
    StorePermissionError,
    StoreUnavailableError,
)
from docgraph.records import GraphBatch


def server_error(code: str, message: str) -> neo4j_errors.Neo4jError:
    """The error the driver raises for a failure message from the server (its own constructor)."""
    return neo4j_errors.Neo4jError._hydrate_neo4j(code=code, message=message)


def test_durations_and_points_come_back_as_the_server_writes_them() -> None:
    # A Duration is a tuple of its fields: it came back as [14, 1, 0, 0].
    assert plain_value(neo4j.time.Duration(months=14, days=1)) == "P1Y2M1D"
    assert plain_value({"took": [neo4j.time.Duration(seconds=90)]}) == {"took": ["PT1M30S"]}
    assert plain_value(neo4j.time.Date(2020, 1, 2)) == "2020-01-02"
    assert plain_value(neo4j.spatial.CartesianPoint((1.5, 2.0))) == [1.5, 2.0]


def test_a_missing_database_says_how_to_name_one() -> None:
    error = server_error("Neo.ClientError.Database.DatabaseNotFound", "Graph not found: docgraph")
    mapped = _mapped(error, 30.0, "Neo4j at neo4j://db:7687")
    assert isinstance(mapped, StoreUnavailableError)  # not a query error to show a model or retry
    assert "Graph not found: docgraph" in str(mapped) and "neo4j://HOST:7687/neo4j" in str(mapped)
    starting = server_error("Neo.TransientError.General.DatabaseUnavailable", "Database 'neo4j' is unavailable.")
    mapped = _mapped(starting, 30.0, "Neo4j at neo4j://db:7687")
    assert isinstance(mapped, StoreUnavailableError) and "not available yet" in str(mapped)
    assert "Community" not in str(mapped)  # it exists: it is starting or stopping


def test_a_linked_node_deleted_while_the_write_waited_is_a_missing_endpoint() -> None:
    """Read committed: a write's MATCH still saw a region another transaction was deleting; its
    CREATE of the link then fails with EntityNotFound once that one commits. Mapped as a plain store
    error, the ingest failed instead of choosing its links again (app/pipeline/vanished_links.py)."""
    error = server_error("Neo.ClientError.Statement.EntityNotFound", "Node with id 42 has been deleted in this tx")
    assert isinstance(_mapped(error, 30.0, "Neo4j at neo4j://db:7687"), MissingEndpointError)


def test_only_a_role_s_refusal_is_a_permission_error() -> None:
    """The driver's Forbidden class also covers schema errors (an index that belongs to a constraint):
    taken as a reader's account, apply_schema_if_allowed would have swallowed them."""
    refused = server_error("Neo.ClientError.Security.Forbidden", "Schema operations are not allowed for user 'r'")
    assert isinstance(_mapped(refused, 30.0, "Neo4j"), StorePermissionError)
    schema = server_error("Neo.ClientError.Schema.ForbiddenOnConstraintIndex", "Index belongs to a constraint")
    assert not isinstance(_mapped(schema, 30.0, "Neo4j"), StorePermissionError)


def logged_notifications(statuses: list[dict[str, object]], query: str) -> list[str]:
    """What the driver's notification logger lets through of a result's notifications, logged as
    the driver logs them (neo4j/_sync/work/result.py), from a summary of a Neo4j 5.26 reply."""
    address = Address(("db", 7687))
    summary = ResultSummary(address, True, True, {"server": ServerInfo(address, (5, 8)), "statuses": statuses})
    logger = logging.getLogger("neo4j.notifications")
    kept: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: kept.append(record.getMessage())  # type: ignore[method-assign]
    logger.addHandler(handler)
    try:
        for notification in summary.gql_status_objects:
            logger.warning("Received notification from DBMS server: %s", NotificationPrinter(notification, query, True))
    finally:
        logger.removeHandler(handler)
    return kept


def notice(status: str, code: str, classification: str) -> dict[str, object]:
    return {
        "gql_status": status,
        "status_description": f"warn: {code}",
        "neo4j_code": f"Neo.ClientNotification.Statement.{code}",
        "title": code,
        "diagnostic_record": {"_classification": classification, "_severity": "WARNING", "CURRENT_SCHEMA": "/"},
    }


def test_notices_of_optional_properties_stay_out_of_the_log(tmp_path: Path) -> None:
    """Page.turn is set on turned scans only: every render of a stored page drew an "unknown
    property key" warning with the query into a server's log. Deprecations still come through."""
    with pytest.raises(StoreUnavailableError):  # the store installs its log filter as it connects
        open_store(Settings(home=tmp_path), "bolt://127.0.0.1:1")
    statuses = [
        notice("01N52", "UnknownPropertyKeyWarning", "UNRECOGNIZED"),
        notice("01N50", "UnknownLabelWarning", "UNRECOGNIZED"),
        notice("01N01", "FeatureDeprecationWarning", "DEPRECATION"),
    ]
    kept = logged_notifications(statuses, "MATCH (p:Page {page_id: $page_id}) RETURN p.turn AS turn")
    assert len(kept) == 1 and "FeatureDeprecationWarning" in kept[0]


def test_a_write_past_neo4j_s_memory_limit_is_not_retried_and_says_what_to_raise() -> None:
    """Neo4j's transaction memory limit is a transient error to the driver, which ran a document's
    whole write again and again for 30 s before the same failure came out as raw server fields."""
    limit = server_error(
        "Neo.TransientError.General.MemoryPoolOutOfMemoryError",
        "The allocation of an extra 2.0 MiB would use more than the limit 700.0 MiB.",
    )
    assert limit.is_retryable()  # as the driver found it

    def write(tx: object) -> WriteResult:
        raise limit

    with pytest.raises(StoreError) as caught:
        memory_limit_not_retried(write, GraphBatch(doc_id="manual", sha256="00"))(None)  # type: ignore[arg-type]
    assert not isinstance(caught.value, neo4j_errors.Neo4jError | neo4j_errors.DriverError)  # the driver stops
    assert "writing document manual failed, the graph is unchanged" in str(caught.value)
    assert "db.memory.transaction.total.max" in str(caught.value)
    starting = server_error("Neo.TransientError.General.DatabaseUnavailable", "Database 'neo4j' is unavailable.")

    def waits(tx: object) -> WriteResult:
        raise starting

    with pytest.raises(neo4j_errors.TransientError):  # other transient errors: still the driver's to retry
        memory_limit_not_retried(waits, GraphBatch(doc_id="manual", sha256="00"))(None)  # type: ignore[arg-type]
    assert "db.memory.transaction.total.max" in str(_mapped(limit, 30.0, "Neo4j at neo4j://db:7687"))


@pytest.mark.parametrize(
    ("agent", "refused"),
    [
        ("Neo4j/5.15.0", True),
        ("Neo4j/4.4.30", True),
        ("Neo4j/5.18.0", False),
        ("Neo4j/5.26.12", False),
        ("Neo4j/2025.06.0", False),
    ],
)
def test_a_neo4j_older_than_the_queries_need_is_refused_at_connect(agent: str, refused: bool) -> None:
    """On 5.0-5.17 the schema or every retrieval failed later, with an unknown function or index."""
    if refused:
        with pytest.raises(ConfigError, match=rf"runs {agent}; docgraph needs Neo4j 5\.18 or later"):
            check_server_version(agent, "Neo4j at neo4j://db:7687")
    else:
        check_server_version(agent, "Neo4j at neo4j://db:7687")


def test_a_neo4j_url_nothing_answers_says_what_to_check() -> None:
    """neo4j:// said only "Unable to retrieve routing information" of a refused port, an HTTP port
    and a hung server alike."""
    error = neo4j_errors.ServiceUnavailable("Unable to retrieve routing information")
    said = str(_mapped(error, 30.0, "Neo4j at neo4j://db:7687/neo4j"))
    assert said.startswith("Neo4j at neo4j://db:7687/neo4j is unavailable: Unable to retrieve routing information")
    assert "check the host and port" in said and "bolt://" in said
