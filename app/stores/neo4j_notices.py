"""The Neo4j driver's notifications, kept out of the log where they say nothing wrong.

The driver logs every notification the server attaches to a result (logger
``neo4j.notifications``, at WARNING). docgraph's queries read optional properties (a page's
``turn``, a region's ``description``) and labels an empty database does not know yet, so the
server flags them as UNRECOGNIZED on every request, and a server's log would fill with them.
They are dropped here, in the client: the server-side filter needs Neo4j 5.7 or newer and fails
the connection on older 5.x servers. Other notifications (deprecations, slow plans) stay.
"""

from __future__ import annotations

import logging

from neo4j import NotificationClassification

NOTIFICATION_LOGGER = "neo4j.notifications"


class UnrecognizedNameFilter(logging.Filter):
    """Drops log records of notifications classified UNRECOGNIZED (an unknown property key,
    label or relationship type)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        notification = getattr(args[0], "notification", None) if args else None
        classification = getattr(notification, "classification", None)
        return bool(classification != NotificationClassification.UNRECOGNIZED)


def quiet_unrecognized_names() -> None:
    """Install the filter on the driver's notification logger, once."""
    logger = logging.getLogger(NOTIFICATION_LOGGER)
    if not any(isinstance(existing, UnrecognizedNameFilter) for existing in logger.filters):
        logger.addFilter(UnrecognizedNameFilter())
