"""The JSON shapes docgraph hands out, as pydantic models: the HTTP API's schema and the CLI's ``--json``.

Each response model mirrors the ``to_json()`` of the object it describes (``IngestReport``,
``AnswerResult``, ``Text2CypherResult``, retrieval hits), so the API and ``docgraph … --json`` print
the same thing. Response models accept extra keys (``extra="allow"``): a field added to a
``to_json()`` passes through before the model learns of it; ``tests/test_api.py`` checks that the
models and the ``to_json()`` outputs name the same fields. Request models refuse unknown keys.

Only pydantic is imported here, so the CLI can use these models without the API's dependencies::

    from docgraph.app.api.models import AnswerModel, as_json
    print_json(as_json(AnswerModel, result.to_json()))
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    model_validator,
)

from docgraph.app.llm.service import ASK_K

# The retriever variants of app.retrieval.registry, spelled out so the OpenAPI schema lists them.
Variant = Literal[
    "hybrid",
    "no-gnn",
    "gnn",
    "no-cross-page",
    "no-sim",
    "no-lead-in",
    "no-gnn-no-lead-in",
    "no-kind",
    "no-part",
    "per-document-bm25",
    "hybrid-rerank",
    "dense-region",
    "bm25-region",
    "fulltext-region",
    "bm25-page",
    "section",
]
RETRIEVER_VARIANTS: tuple[str, ...] = get_args(Variant)
MAX_K = 50
MAX_TEXT = 4000  # longest question or query accepted

M = TypeVar("M", bound=BaseModel)


def as_json(model: type[M], payload: Any) -> dict[str, Any]:
    """``payload`` (a ``to_json()`` result) checked against ``model`` and dumped as plain JSON values."""
    return model.model_validate(payload).model_dump(mode="json")


class ResponseModel(BaseModel):
    model_config = ConfigDict(extra="allow")


class RequestModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- errors --------------------------------------------------------------------------------------


class ErrorDetail(ResponseModel):
    type: str = Field(description="Machine-readable kind of error, e.g. not_found, store_unavailable")
    message: str = Field(description="What went wrong, in one line")
    status: int = Field(description="The HTTP status code, repeated")
    details: list[dict[str, Any]] | None = Field(default=None, description="Per-field problems of a request")


class ErrorResponse(ResponseModel):
    error: ErrorDetail


# ---- health and documents ------------------------------------------------------------------------


class HealthModel(ResponseModel):
    status: Literal["ok", "unavailable"]
    version: str
    store: str = Field(description="The store's kind and graph (no path, host or credentials)")
    dialect: str = Field(description="falkordb or neo4j; empty when the store cannot be reached")
    documents: int | None = Field(description="Documents stored; null when the store cannot be reached")
    llm: bool = Field(description="Whether an LLM endpoint is configured (else answers are extractive)")
    llm_reachable: bool | None = Field(
        None, description="Asked with check_llm=true: whether the LLM answers (null when not asked or not configured)"
    )
    llm_error: str = Field("", description="Why the LLM cannot answer, when it was asked and cannot")
    error: str = ""


class DocumentModel(ResponseModel):
    doc_id: str
    title: str | None = None
    file_name: str | None = None
    pages: int | None = None
    sections: int = 0
    regions: int = 0
    ingested_at: str | None = None


class DeleteResultModel(ResponseModel):
    doc_id: str
    deleted_nodes: int
    same_content: list[str] = Field(
        description="The stored documents that still hold the same file (a copy, or the file under another name)"
    )
    text_on_disk: bool = Field(
        description="The store's append-only file could not be rewritten: the text stays until its next compaction"
    )


class IngestReportModel(ResponseModel):
    """``IngestReport.to_json()`` (``docgraph ingest --json`` prints a list of these)."""

    file: str
    doc_id: str
    status: Literal["ingested", "replaced", "refreshed", "unchanged", "failed"]
    error: str
    pages: int
    regions: int
    sections: int
    nodes: dict[str, int]
    edges: dict[str, int]
    stats: dict[str, Any]
    stages: dict[str, float] = Field(description="Seconds per pipeline stage")
    seconds: float
    notes: list[str] = Field(default=[], description="What the pipeline ran without and why (OCR, the GNN, …)")


JobStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]


class JobModel(ResponseModel):
    """An ingest job started by ``POST /documents``."""

    job_id: str
    status: JobStatus
    file_name: str
    stage: str = Field(description="What runs now: prepare, then the stages read, graph, embed, graph_write")
    stage_index: int = Field(description="1-based position of that stage; 0 before the first")
    stages: int = Field(description="How many stages the job runs")
    done: int = Field(description="Units of the current stage done (pages for read, regions for embed)")
    total: int = Field(description="Units of the current stage in all; 0 when the stage does not count")
    created_at: str
    started_at: str | None = None
    finished_at: str | None = None
    error: str = ""
    report: IngestReportModel | None = None
    restarts: int = Field(0, description="Times the server stopped while this job ran; it ran again from the start")
    cancelling: bool = Field(
        False, description="A cancel was asked while it runs and has not taken effect yet (false once it ended)"
    )
    sent_by: str = Field("", description="The id of the API key that uploaded the file; empty without keys")
    cancelled_by: str = Field("", description="The id of the API key that asked to cancel it; empty if none did")


# ---- retrieval -----------------------------------------------------------------------------------


class ContextRegionModel(ResponseModel):
    region_id: str
    page: int
    kind: str
    text: str
    relation: str = Field(
        description="caption, captioned, refers_to, referred_by, continues, continued_from, next_page, previous_page"
    )
    bbox: list[float]


class RegionHitModel(ResponseModel):
    region_id: str
    doc_id: str
    page: int
    bbox: list[float] = Field(description="[x0, y0, x1, y1] in PDF points, origin top-left")
    kind: str
    text: str
    score: float
    signals: dict[str, float] = Field(description="Score of each signal that ranked the region")
    context: list[ContextRegionModel]
    section_path: list[str] = Field(description="Titles of the enclosing sections, outermost first")


VariantField = Annotated[Variant, Field(description="Retriever variant")]
QueryText = Annotated[str, Field(min_length=1, max_length=MAX_TEXT, pattern=r"\S")]
DocIdField = Annotated[str | None, Field(default=None, max_length=512, description="Only this document")]
KField = Annotated[int, Field(default=8, ge=1, le=MAX_K, description="How many regions")]


class RetrieveRequest(RequestModel):
    query: QueryText
    k: KField = 8
    variant: VariantField = "hybrid"
    doc_id: DocIdField = None


class RetrieveResponse(ResponseModel):
    query: str
    retriever: str
    doc_id: str | None
    regions: list[RegionHitModel]


# ---- answers -------------------------------------------------------------------------------------


class AskRequest(RequestModel):
    question: QueryText
    k: KField = ASK_K
    variant: VariantField = "hybrid"
    doc_id: DocIdField = None
    force_cypher: bool = Field(default=False, description="Answer through text-to-Cypher (needs an LLM)")


class CitationModel(ResponseModel):
    region_id: str
    doc_id: str
    page: int
    bbox: list[float]
    kind: str
    tag: str
    ocr: bool  # the region's text was (partly) read by OCR


class PassageModel(ResponseModel):
    region_id: str
    doc_id: str
    page: int
    kind: str
    bbox: list[float]
    text: str
    score: float
    via: str
    section: str
    description: str
    ocr: bool  # the region's text was (partly) read by OCR
    excerpt: str  # what the generator was shown of a long region, cut to the question ("": the whole text)


class TokenUsageModel(ResponseModel):
    prompt: int
    completion: int
    calls: int
    unreported: int


class AnswerModel(ResponseModel):
    """``AnswerResult.to_json()``: what ``POST /ask`` and ``docgraph ask --json`` return."""

    question: str
    answer: str
    mode: Literal["llm", "extractive"]
    llm_fallback: str | None = Field(
        description="Why the configured LLM gave no answer (timed out, cut off): the answer quotes the documents"
    )
    route: str
    citations: list[CitationModel]
    removed_citations: int
    invented_tags: list[str]
    evidence: list[PassageModel]
    cypher: str | None
    rows: list[dict[str, Any]] | None
    tokens: TokenUsageModel
    timings: dict[str, float]
    entropy: float | None
    rereads: int
    abstained: bool = Field(description="The documents do not seem to answer it: the nearest passages are listed")
    relevance: dict[str, float] | None = Field(description="The evidence measures the abstention was decided on")
    trace: list[dict[str, Any]]


class AnswerTextEvent(ResponseModel):
    """A piece of ``POST /ask/stream``'s answer as the model writes it."""

    event: Literal["text"]
    text: str = Field(description="The next piece of text (the uncertainty loop's notes included)")


class AnswerEndEvent(ResponseModel):
    """``POST /ask/stream``'s last event: the whole answer, as ``POST /ask`` returns it."""

    event: Literal["answer"]
    answer: AnswerModel


class AnswerErrorEvent(ResponseModel):
    """``POST /ask/stream``'s last event when the answer fails after its first text."""

    event: Literal["error"]
    error: ErrorDetail


class AnswerStreamEvent(RootModel[AnswerTextEvent | AnswerEndEvent | AnswerErrorEvent]):
    """One line of ``POST /ask/stream``: text events, then one answer or error event."""

    root: Annotated[AnswerTextEvent | AnswerEndEvent | AnswerErrorEvent, Field(discriminator="event")]


# ---- graph queries -------------------------------------------------------------------------------

Int64 = Annotated[StrictInt, Field(ge=-(2**63), le=2**63 - 1)]
Scalar = StrictStr | Int64 | StrictFloat | StrictBool | None
ParamValue = Scalar | list[Scalar]
# What `$name` can refer to in Cypher; the drivers refuse anything else (an empty name included).
ParamName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]


class CypherRequest(RequestModel):
    """Either ``query`` (Cypher you wrote) or ``question`` (turned into Cypher by the LLM), not both."""

    query: Annotated[str | None, Field(default=None, max_length=MAX_TEXT, description="A read-only Cypher query")] = (
        None
    )
    params: dict[ParamName, ParamValue] = Field(default_factory=dict, description="Parameters of `query`")
    question: Annotated[str | None, Field(default=None, max_length=MAX_TEXT, description="A question")] = None
    run: bool = Field(default=True, description="Run the query (false: check it only)")

    @model_validator(mode="after")
    def one_of_query_or_question(self) -> CypherRequest:
        given = [name for name in ("query", "question") if (getattr(self, name) or "").strip()]
        if len(given) != 1:
            raise ValueError("give exactly one of `query` and `question`")
        if any(isinstance(v, float) and not math.isfinite(v) for v in _scalars(self.params)):
            raise ValueError("parameters must be finite numbers")
        return self


def _scalars(params: dict[ParamName, ParamValue]) -> list[Any]:
    values: list[Any] = []
    for value in params.values():
        values += value if isinstance(value, list) else [value]
    return values


class CypherAttemptModel(ResponseModel):
    query: str
    error: str


class CypherResultModel(ResponseModel):
    """``Text2CypherResult.to_json()``: what ``POST /cypher`` and ``docgraph text2cypher --json`` return."""

    question: str
    cypher: str
    ran: bool
    rows: list[dict[str, Any]]
    truncated: bool
    attempts: list[CypherAttemptModel]
    tokens: TokenUsageModel
    timings: dict[str, float]
