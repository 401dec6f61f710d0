"""The ``azure`` reader: Azure AI Document Intelligence ``prebuilt-layout`` through its Python SDK.

The PDF is validated locally (same checks and page limit as the other readers), sent to the
service once, and the AnalyzeResult converted by :func:`layout_from_analyze_result` (a pure
function, tested offline). The SDK is imported only when a document is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docgraph.errors import ConfigError, IngestError
from docgraph.ingest.links.pdf_links import document_links
from docgraph.ingest.pdf import api as pdf_api
from docgraph.ingest.pdf.checks import open_checked
from docgraph.ingest.pdf.text import clean_title
from docgraph.ingest.readers.azure_layout import layout_from_analyze_result
from docgraph.ingest.readers.native import DEFAULT_MAX_PAGES
from docgraph.ingest.readers.paged import document_outline
from docgraph.ingest.structure.ids import file_sha256
from docgraph.ingest.types import DocumentLayout, ProgressCallback

__all__ = ["MISSING_CREDENTIALS", "AzureReader", "layout_from_analyze_result"]

DEFAULT_MODEL = "prebuilt-layout"
MISSING_CREDENTIALS = (
    "the azure reader needs an Azure AI Document Intelligence endpoint and key: set AZURE_DI_ENDPOINT "
    "(e.g. https://<resource>.cognitiveservices.azure.com/) and AZURE_DI_KEY in the environment "
    "(or DOCGRAPH_AZURE_DI_ENDPOINT / DOCGRAPH_AZURE_DI_KEY, or azure_di_endpoint / azure_di_key in docgraph.toml)"
)


class AzureReader:
    """Reads PDFs with the ``prebuilt-layout`` model; ``client`` may be given (any object with
    ``begin_analyze_document``), otherwise one is built from ``endpoint`` and ``key``."""

    name = "azure"

    def __init__(
        self,
        endpoint: str = "",
        key: str = "",
        model_id: str = DEFAULT_MODEL,
        max_pages: int = DEFAULT_MAX_PAGES,
        client: Any = None,
    ) -> None:
        if client is None and (not endpoint.strip() or not key.strip()):
            raise ConfigError(MISSING_CREDENTIALS)
        self.endpoint = endpoint.strip()
        self.key = key.strip()
        self.model_id = model_id
        self.max_pages = max_pages
        self._client = client

    def read(self, path: Path, progress: ProgressCallback | None = None) -> DocumentLayout:
        path = Path(path)
        with pdf_api.MUPDF_LOCK:
            doc = open_checked(path, self.max_pages)
            try:
                outline = document_outline(doc)
                links = document_links(doc)  # the service returns none: read from the file, as the others do
                metadata_title = clean_title((doc.metadata or {}).get("title", "") or "")
            finally:
                pdf_api.close(doc)
        result = self.analyze(path)
        layout = layout_from_analyze_result(result, path, sha256=file_sha256(path))
        layout.outline = outline
        layout.links = links
        if metadata_title:
            layout.title = metadata_title
        if progress is not None:
            progress(layout.page_count, layout.page_count)
        return layout

    def analyze(self, path: Path) -> dict[str, Any]:
        """The AnalyzeResult of ``path`` as a REST-schema dict."""
        from azure.core.exceptions import AzureError

        client = self.client()
        try:
            poller = client.begin_analyze_document(
                self.model_id, path.read_bytes(), string_index_type="unicodeCodePoint"
            )
            result = poller.result()
        except AzureError as exc:
            message = " ".join(str(exc).split())[:300]
            raise IngestError(f"{path.name}: Azure Document Intelligence failed: {message}") from exc
        return dict(result.as_dict() if hasattr(result, "as_dict") else result)

    def client(self) -> Any:
        if self._client is None:
            try:
                from azure.ai.documentintelligence import DocumentIntelligenceClient
                from azure.core.credentials import AzureKeyCredential
            except ImportError as exc:
                raise ConfigError(
                    "the azure reader needs the azure-ai-documentintelligence package: "
                    "pip install azure-ai-documentintelligence"
                ) from exc
            self._client = DocumentIntelligenceClient(self.endpoint, AzureKeyCredential(self.key))
        return self._client
