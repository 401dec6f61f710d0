"""Whether the configured LLM can answer, asked without a completion: for ``GET /health?check_llm=true``.

An endpoint is asked for its model list (cheap on llama.cpp's server and on OpenAI's); it must
answer, accept the key, and, where it lists several models, list the configured one. A ``local:`` model
must be a readable GGUF file. Nothing is generated, so a probe costs no tokens.
"""

from __future__ import annotations

import ssl

from docgraph.app.config import Settings
from docgraph.app.llm.client import llm_configured
from docgraph.app.llm.local_model import local_model_path

PROBE_TIMEOUT_S = 5.0
GGUF_MAGIC = b"GGUF"
NAMED_MODELS = 5  # of the endpoint's models, named when the configured one is not among them


def llm_problem(settings: Settings) -> str | None:
    """Why the configured LLM cannot answer, in one line; '' when it can; None when none is configured."""
    if not llm_configured(settings):
        return None
    path = local_model_path(settings.llm_model)
    if path is not None:
        return _local_model_problem(str(path))
    return _endpoint_problem(settings)


def _local_model_problem(path: str) -> str:
    try:
        with open(path, "rb") as model:
            head = model.read(len(GGUF_MAGIC))
    except OSError as error:
        return f"the local model's file cannot be read: {error.strerror or error}"  # no path: /health names none
    return "" if head == GGUF_MAGIC else "the local model's file is not a GGUF file"


def connection_problem(error: BaseException) -> str:
    """Why a connection failed, without the host or URL the error texts name: the system's reason
    (connection refused, name not known), or that TLS failed, or the error's kind."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ssl.SSLError):
            return "its TLS handshake failed"
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror.lower()
        cause = cause.__cause__ or cause.__context__
    return type(error.__cause__ or error).__name__


def _endpoint_problem(settings: Settings) -> str:
    import openai

    where = "the LLM endpoint"  # named without its URL: /health names no host
    client = openai.OpenAI(
        api_key=settings.llm_api_key, base_url=settings.llm_base_url, timeout=PROBE_TIMEOUT_S, max_retries=0
    )
    try:
        served = [model.id for model in client.models.list()]
    except openai.AuthenticationError:
        return f"{where} refused the API key (HTTP 401)"
    except openai.NotFoundError:  # OpenAI-compatible servers list models under /v1: a URL without it
        return f"{where} has no model list (HTTP 404): is its URL the server's OpenAI-compatible /v1 address?"
    except openai.APITimeoutError:
        return f"{where} did not answer within {PROBE_TIMEOUT_S:g}s"
    except openai.APIConnectionError as error:
        return f"{where} cannot be reached: {connection_problem(error)}"
    except openai.APIStatusError as error:
        return f"{where} answered HTTP {error.status_code} to a request for its models"
    except (openai.APIError, ValueError, TypeError, AttributeError):  # a body that is not a model list
        return f"{where} did not answer with a model list (is it an OpenAI-compatible /v1 URL?)"
    finally:
        client.close()
    if len(served) > 1 and settings.llm_model not in served:  # a server of one model (llama.cpp's) takes any name
        named = ", ".join(served[:NAMED_MODELS]) + (", ..." if len(served) > NAMED_MODELS else "")
        return f"{where} does not serve the model {settings.llm_model!r} (it serves: {named})"
    return ""
