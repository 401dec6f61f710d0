"""Routes over the stored documents: health, list, upload (as an ingest job), delete, jobs (list, progress, cancel)."""

from __future__ import annotations

import contextlib
import shutil
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from starlette.responses import JSONResponse

from docgraph.app.api.access import key_id_of
from docgraph.app.api.errors import ApiError, SafeJSONResponse, public_message
from docgraph.app.api.jobs import KEPT_JOBS, clash_refusal
from docgraph.app.api.models import DeleteResultModel, DocumentModel, HealthModel, JobModel, JobStatus, as_json
from docgraph.app.api.responses import documented
from docgraph.app.api.state import ApiState
from docgraph.app.config import Settings
from docgraph.app.jobs.documents import (
    clashing_document,
    doc_id_or_empty,
    find_document,
    list_documents,
    upload_file_name,
)
from docgraph.app.jobs.documents import delete_document as delete_document_and_copy
from docgraph.app.llm.client import llm_configured
from docgraph.app.llm.probe import llm_problem
from docgraph.app.resources import docgraph_release
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.kept_copies import kept_copies_dir
from docgraph.app.stores.page_cache import page_cache_dir
from docgraph.app.stores.url import parse_store_url
from docgraph.errors import DocgraphError, DocumentNotFoundError

router = APIRouter()

PDF_MAGIC = b"%PDF-"
MAGIC_WINDOW = 1024  # readers accept the header anywhere in the first KiB, as Acrobat does


def api_state(request: Request) -> ApiState:
    state: ApiState = request.app.state.docgraph
    return state


State = Annotated[ApiState, Depends(api_state)]


@router.get(
    "/health",
    response_model=HealthModel,
    responses={**documented(), 503: {"model": HealthModel, "description": "The store cannot be reached"}},
    tags=["service"],
)
def health(
    state: State,
    check_llm: Annotated[
        bool, Query(description="Also ask the LLM endpoint for its models (a request to it, no tokens)")
    ] = False,
) -> JSONResponse:
    """Whether the store answers, how many documents it holds, and whether an LLM is configured (and,
    with ``check_llm``, whether it answers: the status stays ``ok`` without it, since the store and
    retrieval work, though questions fail until it is back)."""
    settings = state.settings
    body: dict[str, Any] = {
        "status": "ok",
        "version": docgraph_release(),
        "store": public_store_name(settings),
        "dialect": "",
        "documents": None,
        "llm": llm_configured(settings),
        "error": "",
    }
    problem = llm_problem(settings) if check_llm else None
    if problem is not None:
        body["llm_reachable"], body["llm_error"] = not problem, problem
    try:
        store = state.store()
        body["dialect"] = store.dialect
        body["documents"] = len(list_documents(store))
    except DocgraphError as error:
        body["status"], body["error"] = "unavailable", public_message(str(error), settings)
        return SafeJSONResponse(as_json(HealthModel, body), status_code=503)
    return SafeJSONResponse(as_json(HealthModel, body))


@router.get("/documents", response_model=list[DocumentModel], responses=documented(), tags=["documents"])
def documents(state: State) -> list[dict[str, Any]]:
    """Every stored document with its page, section and region counts."""
    return [as_json(DocumentModel, row) for row in list_documents(state.store())]


@router.post(
    "/documents",
    status_code=202,
    response_model=JobModel,
    responses=documented(403, 409, 413, 415),
    tags=["documents"],
)
def upload_document(
    request: Request,
    state: State,
    file: Annotated[UploadFile, File(description="A PDF file")],
    embed: Annotated[bool, Form(description="Embed regions for dense retrieval")] = True,
    force: Annotated[
        bool,
        Form(
            description="Rebuild the file even if it is stored as this server builds it "
            "(after an update of docgraph within one release)"
        ),
    ] = False,
    replace: Annotated[
        bool,
        Form(description="Replace a different document stored under the same name (without it: 409)"),
    ] = False,
) -> JSONResponse:
    """Upload a PDF and ingest it in the background; poll ``GET /jobs/{job_id}`` for progress.

    The same file again changes nothing (unless ``force``). A different file under the name of a
    stored document is refused with 409 unless ``replace`` is set: a name alone never replaces one.
    """
    _check_upload(file, state.max_upload_bytes)
    store = state.store()  # refuse now (503) rather than fail in the job when the store is down
    name = upload_file_name(file.filename)
    job_dir = state.uploads_dir / uuid.uuid4().hex
    job_dir.mkdir(parents=True, exist_ok=True)
    try:  # the upload's folder is the job's from here on; until the job is queued, it goes on any failure
        target = job_dir / name
        file.file.seek(0)
        with target.open("wb") as out:
            shutil.copyfileobj(file.file, out)
        clash = None if replace else clashing_document(store, name, target)
        if clash is not None:
            raise ApiError(409, "conflict", clash_refusal(clash))
        job = state.jobs.submit(name, target, sent_by=key_id_of(request), embed=embed, force=force, replace=replace)
    except BaseException:
        shutil.rmtree(job_dir, ignore_errors=True)
        raise
    location = f"{request.scope.get('root_path', '')}/jobs/{job.job_id}"  # behind a proxy, under its prefix
    return SafeJSONResponse(as_json(JobModel, job.to_json()), status_code=202, headers={"Location": location})


@router.delete(
    "/documents/{doc_id}",
    response_model=DeleteResultModel,
    responses=documented(
        403, 404, 409, described={409: "The document is being ingested (an upload's job, or another process)"}
    ),
    tags=["documents"],
)
def delete_document(doc_id: str, state: State) -> dict[str, Any]:
    """Delete a document (by id or file name) and everything under it; refused (409) while an
    upload's job, or another docgraph process on this data home, ingests it: its write would
    otherwise land after the delete."""
    store = state.store()
    writing = state.jobs.unfinished_job_for(_named_ids(store, doc_id))
    if writing is not None:
        state_now = "cancelling" if writing.cancelling else writing.status
        raise ApiError(
            409,
            "conflict",
            f"{doc_id!r} is being ingested (job {writing.job_id}, {state_now}): delete it once the job has ended",
        )
    files_dir, page_cache = kept_copies_dir(state.settings.home, store), page_cache_dir(state.settings.home, store)
    deleted = delete_document_and_copy(store, doc_id, files_dir, page_cache)
    state.jobs.forget_document(deleted.doc_id)  # the ended jobs that name it
    return as_json(DeleteResultModel, deleted.to_json())


def _named_ids(store: GraphStore, doc: str) -> set[str]:
    """The document ids ``doc`` may name: its own (an id, or a file name), and the stored document's
    it finds (by id or by the file name it was stored under)."""
    named = {doc_id_or_empty(doc)}
    with contextlib.suppress(DocumentNotFoundError):
        named.add(str(find_document(store, doc)["doc_id"]))
    return named - {""}


@router.get("/jobs", response_model=list[JobModel], responses=documented(), tags=["documents"])
def jobs(
    state: State,
    status: Annotated[JobStatus | None, Query(description="Only the jobs in this state")] = None,
    limit: Annotated[int, Query(ge=1, le=KEPT_JOBS, description="At most this many")] = 50,
) -> list[dict[str, Any]]:
    """The kept ingest jobs, newest first: every unfinished one and the newest finished ones."""
    return [as_json(JobModel, job.to_json()) for job in state.jobs.listed(status, limit)]


@router.get("/jobs/{job_id}", response_model=JobModel, responses=documented(404), tags=["documents"])
def job_status(job_id: str, state: State) -> dict[str, Any]:
    """Progress of an ingest job: its stage, how far it is (pages read, regions embedded), and the ingest
    report when done."""
    return as_json(JobModel, state.jobs.get(job_id).to_json())


@router.delete(
    "/jobs/{job_id}",
    response_model=JobModel,
    responses={
        **documented(403, 404, 409, described={409: "The job has ended, or is writing its document: too late"}),
        202: {"model": JobModel, "description": "Running: it stops before it writes"},
    },
    tags=["documents"],
)
def cancel_job(job_id: str, state: State, request: Request) -> JSONResponse:
    """Cancel an ingest job: a queued one at once (200, ``cancelled``); a running one stops at its next
    page window, chunk of texts or stage, before anything is written (202, ``cancelling``). A job
    that has ended or is writing its document is not cancelled (409)."""
    job = state.jobs.cancel(job_id, by=key_id_of(request))
    status_code = 202 if job.status == "running" else 200
    return SafeJSONResponse(as_json(JobModel, job.to_json()), status_code=status_code)


def public_store_name(settings: Settings) -> str:
    """The configured store's kind and graph: no path, host or password (the store may not be open yet)."""
    try:
        return parse_store_url(settings.store_url, settings).public()
    except DocgraphError:
        return "(invalid store URL)"


def _check_upload(file: UploadFile, max_bytes: int) -> None:
    size = file.size if file.size is not None else _stream_size(file)
    if size > max_bytes:
        raise ApiError(413, "too_large", f"the file is {size} bytes; the limit is {max_bytes} (api_max_upload_mb)")
    if size == 0:  # as the CLI says of it
        raise ApiError(415, "unsupported_media_type", "the file is empty")
    file.file.seek(0)
    head = file.file.read(MAGIC_WINDOW)
    if PDF_MAGIC not in head:
        raise ApiError(415, "unsupported_media_type", "the file is not a PDF (no %PDF- header)")


def _stream_size(file: UploadFile) -> int:
    file.file.seek(0, 2)
    return int(file.file.tell())
