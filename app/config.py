"""One settings object for docgraph.

Sources, strongest first: explicit arguments (CLI flags), environment (``DOCGRAPH_*``, plus the
conventional ``OPENAI_*`` and ``NEO4J_*`` names), ``docgraph.toml`` in the working directory, defaults.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from docgraph.errors import ConfigError
from docgraph.models.runtimes import DEFAULT_RUNTIME, EncoderRuntime, default_model_cache

DEFAULT_LLM_MODEL = "gpt-4o-mini"


def default_home() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "docgraph"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="DOCGRAPH_",
        toml_file="docgraph.toml",
        extra="forbid",  # a misspelt setting (an argument, a key of docgraph.toml) was ignored silently
        populate_by_name=True,
    )

    home: Path = Field(default_factory=default_home, description="Data home: local store, caches")
    store: str = Field(default="", description="Store URL; empty means falkordb-local://<home>")
    graph: str = Field(default="docgraph", description="Graph (FalkorDB) or database (Neo4j) name")
    neo4j_user: str = Field(default="neo4j", validation_alias=AliasChoices("DOCGRAPH_NEO4J_USER", "NEO4J_USER"))
    neo4j_password: str = Field(default="", validation_alias=AliasChoices("DOCGRAPH_NEO4J_PASSWORD", "NEO4J_PASSWORD"))
    query_timeout_s: float = Field(default=30.0, gt=0, description="Time limit of one query")
    user_query_timeout_s: float = Field(
        default=10.0, gt=0, description="Time limit of a query a person or a model wrote (/cypher, text-to-Cypher)"
    )
    user_query_slots: int = Field(
        default=1,
        ge=1,
        description="How many such queries the API runs at once; the rest wait a little, then get 429, so that "
        "heavy queries cannot take every database worker from retrieval",
    )
    reader: str = Field(default="auto", description="PDF reader: auto, native, detector or azure")
    max_pages: int = Field(
        default=20_000, gt=0, description="Longest PDF accepted, in pages (a guard against runaway files)"
    )
    ingest_workers: int = Field(
        default=0,
        ge=0,
        description="Worker processes that read and embed documents at ingest; 0 = one per two cores. Each gets "
        "its share of the cores for its threads",
    )
    ray_address: str = Field(
        default="",
        description="Ingest on a Ray cluster: auto (the cluster this machine belongs to), HOST:PORT or "
        "ray://HOST:PORT; empty = this machine's worker processes",
    )
    encoder_model: str = Field(
        default="all-MiniLM-L6-v2", description="Sentence encoder: a name, or a path to a model folder"
    )
    encoder_runtime: EncoderRuntime = Field(
        default=DEFAULT_RUNTIME,
        description="How the encoder runs: torch; onnx (an ONNX export, the same vectors, faster); onnx-int8 "
        "(int8 weights: fastest, vectors within ~1% cosine)",
    )
    gnn_checkpoint: Path | None = Field(
        default=None, description="GNN checkpoint for ingest and reembed; unset = the shipped one"
    )
    reranker_checkpoint: Path | None = Field(
        default=None, description="Cross-encoder checkpoint of --retriever hybrid-rerank; unset = the shipped one"
    )
    similarity_k: int = Field(
        default=10,
        ge=0,
        description="IS_SIMILAR neighbours per region within its document (the GNN's similarity relation; the "
        "shipped checkpoint was trained with 10)",
    )
    similarity_corpus_k: int = Field(
        default=0,
        ge=0,
        description="IS_SIMILAR neighbours per region in the other stored documents, linked both ways at ingest; "
        "0 = none",
    )
    similarity_corpus_min: float = Field(
        default=0.5,
        ge=-1,
        le=1,
        description="Least cosine for a neighbour in another document (documents on unrelated topics get no links)",
    )
    model_cache: Path = Field(
        default_factory=default_model_cache, description="Folder for models docgraph derives (ONNX exports)"
    )
    llm_base_url: str = Field(default="", validation_alias=AliasChoices("DOCGRAPH_LLM_BASE_URL", "OPENAI_BASE_URL"))
    llm_api_key: str = Field(default="", validation_alias=AliasChoices("DOCGRAPH_LLM_API_KEY", "OPENAI_API_KEY"))
    llm_model: str = Field(default=DEFAULT_LLM_MODEL, description="Chat model name at the endpoint")
    llm_timeout_s: float = Field(
        default=60.0,
        gt=0,
        description="Time limit of one LLM reply, streamed or not; an endpoint that does not answer at all "
        "is tried once more",
    )
    llm_max_tokens: int = Field(
        default=1024, gt=0, description="Most tokens any reply may have (some calls ask for fewer)"
    )
    vlm_model: str = Field(default="", description="Vision model name; empty disables descriptions")
    llm_entropy_threshold: float = Field(
        default=0.6,
        ge=0,
        description="Mean token entropy (nats, over the top-5 alternatives) above which an answer is uncertain "
        "and the evidence is re-read",
    )
    llm_max_rereads: int = Field(default=2, ge=0, description="Most re-reads with more evidence per question")
    context_focus: bool = Field(
        default=True,
        description="Show the generator each long passage cut to its sentences (table rows, code lines) that share "
        "the question's words best; the regions stay whole in the store and in citations",
    )
    abstain: bool = Field(
        default=True,
        description="Say that the documents do not seem to answer a question whose best evidence is below the bar "
        "(app.retrieval.relevance), listing the nearest passages instead of an answer",
    )
    text2cypher_max_tries: int = Field(
        default=3, ge=1, description="Tries to get a valid read-only query, the database's error fed back each time"
    )
    text2cypher_row_limit: int = Field(default=200, gt=0, description="Most rows a generated query returns")
    azure_di_endpoint: str = Field(
        default="",
        validation_alias=AliasChoices("DOCGRAPH_AZURE_DI_ENDPOINT", "AZURE_DI_ENDPOINT"),
        description="Azure AI Document Intelligence endpoint (the azure reader)",
    )
    azure_di_key: str = Field(
        default="",
        validation_alias=AliasChoices("DOCGRAPH_AZURE_DI_KEY", "AZURE_DI_KEY"),
        description="Azure AI Document Intelligence key (the azure reader)",
    )
    allowed_hosts: str = Field(
        default="",
        validation_alias=AliasChoices("DOCGRAPH_ALLOWED_HOSTS", "allowed_hosts"),
        description="Comma-separated Host names the servers answer to besides loopback and the address they "
        "listen on (a name a proxy or DNS gives them)",
    )
    ingest_roots: str = Field(
        default="",
        validation_alias=AliasChoices("DOCGRAPH_INGEST_ROOTS", "ingest_roots"),
        description="Folders (separated by ':' or ',') below which the web UI may ingest a folder on the "
        "server; empty = none",
    )
    api_max_upload_mb: float = Field(
        default=100.0, gt=0, description="Largest PDF the HTTP API accepts for upload, in MiB"
    )
    detector_model: str = Field(
        default="", description="Layout detector ONNX file for the detector reader; empty = bundled DocLayNet YOLOv8n"
    )
    ocr_lang: str = Field(default="eng", description="Tesseract language(s) for OCR, e.g. eng+deu")
    picture_ocr: bool = Field(
        default=True,
        description="OCR the words drawn inside embedded pictures (a diagram's labels) into their figure regions "
        "(auto and detector readers; needs tesseract)",
    )

    @field_validator("gnn_checkpoint", "reranker_checkpoint", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: Any) -> Any:
        """``DOCGRAPH_GNN_CHECKPOINT=`` means the shipped checkpoint, not the current folder."""
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("llm_model", mode="before")
    @classmethod
    def _empty_model_is_the_default(cls, value: Any) -> Any:
        """``DOCGRAPH_LLM_MODEL=`` (as .env.example and docker-compose.yml leave it) means the default
        model, not an LLM switched off."""
        return DEFAULT_LLM_MODEL if isinstance(value, str) and not value.strip() else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))

    @property
    def store_url(self) -> str:
        return self.store or f"falkordb-local://{self.home}"


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment and ``docgraph.toml``, with non-empty overrides on top."""
    given = {key: value for key, value in overrides.items() if value not in (None, "")}
    try:
        return Settings(**given)
    except ValidationError as exc:
        raise ConfigError(f"bad setting: {setting_errors(exc)}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"docgraph.toml in {Path.cwd()} is not valid TOML: {exc}") from exc


def setting_errors(exc: ValidationError, unknown: str = "no such setting (see docs/configuration.md)") -> str:
    """Pydantic's report in one line: "encoder_runtime: Input should be 'torch', 'onnx' or 'onnx-int8'";
    a name that is no field is said to be ``unknown``."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"])
        parts.append(f"{where}: {unknown if error['type'] == 'extra_forbidden' else error['msg']}")
    return "; ".join(parts)
