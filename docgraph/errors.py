"""Every error docgraph raises on purpose, in one tree under :class:`DocgraphError`.

It sits at the bottom of the package so that every layer (``ingest``, ``models``, ``app``, ``ui``)
raises from the same tree. The CLI prints ``str(error)`` as one line; the API maps classes to
HTTP statuses (``app/api/errors.py``).
"""

from __future__ import annotations

from collections.abc import Sequence


class DocgraphError(Exception):
    """Base of all docgraph errors."""


class ConfigError(DocgraphError):
    """A setting or store URL is invalid."""


class StoreError(DocgraphError):
    """The graph store failed."""


class MissingEndpointError(StoreError):
    """A document's write named a node that is not in the graph (a linked document was replaced or
    deleted after the links were chosen); nothing was written."""


class StoreUnavailableError(StoreError):
    """The graph store cannot be reached or started."""


class StoreBusyError(StoreError):
    """Other writers kept changing the graph for as long as a write may wait; trying again later works."""


class QueriesBusyError(DocgraphError):
    """Every slot for queries people or models wrote is taken; trying again shortly works."""


class QuerySyntaxError(StoreError):
    """The database rejected a query as malformed."""


class ReadOnlyViolationError(StoreError):
    """A write was attempted through the read-only path."""


class QueryTimeoutError(StoreError):
    """A query ran past its time limit."""


class SchemaError(StoreError):
    """Applying constraints or indexes failed."""


class StorePermissionError(StoreError):
    """The store's account may not do this: a database user with read rights only asked to write or
    to change the schema."""


class NotFoundError(DocgraphError):
    """Something asked for by name or id does not exist."""


class CypherNotFoundError(NotFoundError):
    """A named Cypher file does not exist."""


class DocumentNotFoundError(NotFoundError):
    """No document with that id or file name."""


class UnknownDocumentError(DocumentNotFoundError):
    """No stored document has that id or file name; each surface says where the stored ones are listed."""


class AmbiguousDocumentError(UnknownDocumentError):
    """A file name that several stored documents have (none of them with it as its id): which one is
    meant is unknown, and each surface says where the stored ones are listed."""


class RegionNotFoundError(NotFoundError):
    """No region with that id (its document was deleted or replaced)."""


class JobNotFoundError(NotFoundError):
    """No ingest job with that id (the newest 500 are kept, across restarts of the server)."""


class DocumentBusyError(DocgraphError):
    """The document is being ingested (by this or another process on the data home): it cannot be
    deleted until that ingest ends."""


class JobStateError(DocgraphError):
    """An ingest job cannot do what was asked in its state (cancel one that ended or is writing)."""


class IngestError(DocgraphError):
    """A document could not be ingested; the graph is unchanged for it."""


class IngestCancelled(IngestError):
    """An ingest was cancelled before its write: the graph is unchanged for it."""


class BadDocumentError(IngestError):
    """The input is not a readable PDF (not a PDF, encrypted, corrupt, empty, too long)."""


class WorkerLostError(IngestError):
    """An ingest worker (a process here or on a Ray cluster) died while it ran a task: the document
    it worked on is not written, the others go on."""


class AnswerAbandoned(Exception):
    """Whoever asked stopped waiting (a client that hung up): the answer's model calls stop at their
    next piece. Not a DocgraphError: nobody is left to report it to."""


class ServerStoppingError(DocgraphError):
    """The server is stopping: an answer under way ends at its model's next piece, not minutes later."""


class IngestInterrupted(KeyboardInterrupt):
    """Ctrl-C during a batch of documents: ``reports`` are those that ended (written or not), in the
    order given; ``not_started`` the files left. A KeyboardInterrupt still, for callers that do not ask."""

    def __init__(self, reports: Sequence[object], not_started: Sequence[object], abandoned: bool = False) -> None:
        super().__init__()
        self.reports, self.not_started = list(reports), list(not_started)
        # A second Ctrl-C while the documents under way finished: they are in ``not_started`` too, and
        # still run in threads of this process (a write under way is one transaction, whole or not at
        # all); the CLI ends the process at once.
        self.abandoned = abandoned


class ModelError(DocgraphError):
    """A model could not be loaded or run."""


class LLMUnavailableError(DocgraphError):
    """No LLM endpoint is configured or it cannot be reached."""


class LLMTimeoutError(LLMUnavailableError):
    """The LLM endpoint did not answer in time (tried twice), or did not finish its reply in time;
    ``partial`` is what had come of the reply then."""

    def __init__(self, message: str, partial: str = "") -> None:
        super().__init__(message)
        self.partial = partial


class LLMReplyCutOffError(LLMTimeoutError):
    """The endpoint ended a reply without finishing it (no finish reason): handled as a reply that did
    not finish in time, so the answer falls back to quoting the documents."""


class LLMRequestError(DocgraphError):
    """The LLM endpoint rejected a request or sent back a reply that cannot be used."""


class Text2CypherError(DocgraphError):
    """No valid read-only query could be generated for a question within the allowed tries;
    ``attempts`` holds each try (``{"query", "error"}``) so that callers can show them."""

    def __init__(self, message: str, attempts: Sequence[dict[str, str]] = ()) -> None:
        super().__init__(message)
        self.attempts = list(attempts)


class QuestionError(DocgraphError):
    """A question that cannot be asked (an empty one, or one asking for fewer than one region)."""


class QuestionsError(DocgraphError):
    """An evaluation questions file is missing or malformed."""


class ReembedError(DocgraphError):
    """``docgraph reembed`` could not re-embed some documents (the others were)."""


class CorpusChangedError(DocgraphError):
    """Documents were stored or deleted while an operation over the whole corpus ran, every time it
    was tried; running it again once they are in completes it."""
