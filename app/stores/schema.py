"""The graph schema: ``schema/graph.yaml`` as typed records, its renderings, and the dialect DDL.

``graph.yaml`` is the one description of labels, properties and relationships; it is rendered as
markdown (README), as plain text (``docgraph schema``, the text-to-Cypher prompt) and as a dict
(``--json``). The constraints and indexes of each database live in ``schema/<dialect>/``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from docgraph.app.resources import SCHEMA_DIR
from docgraph.errors import SchemaError

GRAPH_YAML = SCHEMA_DIR / "graph.yaml"
DEFAULT_VECTOR_DIMENSION = 384
GNN_PROPERTY = "gnn_embedding"
# Node properties holding embeddings: FalkorDB stores them as vecf32, both stores index them.
VECTOR_PROPERTIES: tuple[str, ...] = ("embedding", GNN_PROPERTY)
# A long region's passage vectors, concatenated (passages x dimension floats); not indexed.
PASSAGES_PROPERTY = "passage_embeddings"
# The Region property each GNN ablation's vectors go in (``docgraph eval`` variant -> property);
# not indexed: ablations are searched per document.
GNN_ABLATION_PROPERTIES: dict[str, str] = {
    "no-cross-page": f"{GNN_PROPERTY}_no_cross_page",
    "no-sim": f"{GNN_PROPERTY}_no_sim",
}


def is_vector_property(name: str) -> bool:
    """Whether a property holds vectors that no listing should print: the indexed ones, a long
    region's passage vectors and the GNN ablations' ``gnn_embedding_<variant>``."""
    return name in VECTOR_PROPERTIES or name == PASSAGES_PROPERTY or name.startswith(f"{GNN_PROPERTY}_")


# The property each label's full-text index covers.
FULLTEXT_PROPERTY: dict[str, str] = {"Region": "text", "Section": "title"}
# The property that tells which stored version of a document a node belongs to (set by the stores).
VERSION_PROPERTY = "doc_sha256"


@dataclass(frozen=True, slots=True)
class PropertySpec:
    name: str
    type: str
    meaning: str
    optional: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "meaning": self.meaning, "optional": self.optional}


@dataclass(frozen=True, slots=True)
class LabelSpec:
    name: str
    id_property: str
    meaning: str
    properties: tuple[PropertySpec, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.name,
            "id": self.id_property,
            "meaning": self.meaning,
            "properties": [prop.to_dict() for prop in self.properties],
        }


@dataclass(frozen=True, slots=True)
class RelationshipSpec:
    type: str
    source: str
    target: str
    meaning: str
    properties: tuple[PropertySpec, ...] = ()

    @property
    def pattern(self) -> str:
        props = ", ".join(f"{p.name}: {p.type}{'?' if p.optional else ''}" for p in self.properties)
        inner = f":{self.type} {{{props}}}" if props else f":{self.type}"
        return f"(:{self.source})-[{inner}]->(:{self.target})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "from": self.source,
            "to": self.target,
            "meaning": self.meaning,
            "properties": [prop.to_dict() for prop in self.properties],
        }


@dataclass(frozen=True, slots=True)
class KindLabels:
    on: str
    meaning: str
    labels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GraphSchema:
    labels: tuple[LabelSpec, ...]
    relationships: tuple[RelationshipSpec, ...]
    kind_labels: KindLabels
    notes: tuple[str, ...]

    def label(self, name: str) -> LabelSpec:
        for spec in self.labels:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "labels": [spec.to_dict() for spec in self.labels],
            "kind_labels": {
                "on": self.kind_labels.on,
                "meaning": self.kind_labels.meaning,
                "labels": list(self.kind_labels.labels),
            },
            "relationships": [spec.to_dict() for spec in self.relationships],
            "notes": list(self.notes),
        }

    def to_text(self) -> str:
        """Compact plain text, one line per property and relationship (fits an LLM prompt)."""
        lines = ["Node labels:"]
        for spec in self.labels:
            lines.append(f"(:{spec.name}) {spec.meaning} Id property: {spec.id_property}.")
            for prop in spec.properties:
                optional = ", optional" if prop.optional else ""
                lines.append(f"  {prop.name} ({prop.type}{optional}): {prop.meaning}")
        kinds = self.kind_labels
        lines.append(f"Kind labels on :{kinds.on}: {', '.join(kinds.labels)}. {kinds.meaning}")
        lines.append("Relationships:")
        lines += [f"{rel.pattern} {rel.meaning}" for rel in self.relationships]
        lines.append("Notes:")
        lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """Markdown tables: one per label, one for the relationships."""
        parts: list[str] = []
        for spec in self.labels:
            parts.append(f"**`:{spec.name}`** — {spec.meaning} Id: `{spec.id_property}`.\n")
            parts.append("| Property | Type | Meaning |\n|---|---|---|")
            for prop in spec.properties:
                optional = " (optional)" if prop.optional else ""
                parts.append(f"| `{prop.name}` | {prop.type}{optional} | {_cell(prop.meaning)} |")
            parts.append("")
        kinds = self.kind_labels
        labels = ", ".join(f"`:{label}`" for label in kinds.labels)
        parts.append(f"**Kind labels** on `:{kinds.on}`: {labels}. {kinds.meaning}\n")
        parts.append("| Relationship | From | To | Properties | Meaning |\n|---|---|---|---|---|")
        for rel in self.relationships:
            props = "; ".join(_relationship_property(p) for p in rel.properties) or "—"
            parts.append(f"| `{rel.type}` | `:{rel.source}` | `:{rel.target}` | {props} | {_cell(rel.meaning)} |")
        parts.append("")
        parts += [f"- {note}" for note in self.notes]
        return "\n".join(parts)


def _relationship_property(prop: PropertySpec) -> str:
    """ "`via` (string, optional): 'link' when ...": an optional property is absent where it does not apply."""
    kind = f"{prop.type}, optional" if prop.optional else prop.type
    return f"`{prop.name}` ({kind}): {_cell(prop.meaning)}" if prop.meaning else f"`{prop.name}` ({kind})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


@cache
def load_graph_schema(path: Path = GRAPH_YAML) -> GraphSchema:
    """Parse ``graph.yaml``; raises SchemaError when it is malformed."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        return GraphSchema(
            labels=tuple(_label(name, spec) for name, spec in raw["labels"].items()),
            relationships=tuple(_relationship(spec) for spec in raw["relationships"]),
            kind_labels=KindLabels(
                on=raw["kind_labels"]["label"],
                meaning=raw["kind_labels"]["meaning"],
                labels=tuple(raw["kind_labels"]["labels"]),
            ),
            notes=tuple(" ".join(note.split()) for note in raw.get("notes", [])),
        )
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError) as error:
        raise SchemaError(f"cannot read the graph schema {path}: {error}") from error


def _properties(raw: dict[str, Any] | None) -> tuple[PropertySpec, ...]:
    return tuple(
        PropertySpec(name, str(spec["type"]), str(spec["meaning"]), bool(spec.get("optional", False)))
        for name, spec in (raw or {}).items()
    )


def _label(name: str, raw: dict[str, Any]) -> LabelSpec:
    return LabelSpec(name, raw["id"], " ".join(raw["meaning"].split()), _properties(raw["properties"]))


def _relationship(raw: dict[str, Any]) -> RelationshipSpec:
    return RelationshipSpec(
        raw["type"], raw["from"], raw["to"], " ".join(raw["meaning"].split()), _properties(raw.get("properties"))
    )


def kind_label(kind: str) -> str:
    """``section_header`` -> ``SectionHeader``: the extra label of a Region of that kind."""
    return "".join(part.capitalize() for part in kind.split("_") if part)


# ---- dialect DDL -----------------------------------------------------------------------------


def load_ddl(dialect: str, dimension: int = DEFAULT_VECTOR_DIMENSION) -> list[str]:
    """The Cypher statements of ``schema/<dialect>/*.cypher`` in file order, ``{dimension}`` filled."""
    if dimension <= 0:
        raise SchemaError(f"vector dimension must be positive, got {dimension}")
    statements: list[str] = []
    for path in sorted((SCHEMA_DIR / dialect).glob("*.cypher")):
        statements += _statements(path.read_text(encoding="utf-8"))
    if not statements:
        raise SchemaError(f"no DDL for dialect {dialect!r} in {SCHEMA_DIR / dialect}")
    return [statement.replace("{dimension}", str(dimension)) for statement in statements]


def load_falkordb_constraints() -> list[list[str]]:
    """Arguments of ``GRAPH.CONSTRAINT CREATE <graph> ...`` from ``schema/falkordb/constraints.redis``.

    FalkorDB creates constraints with a command, not with Cypher, hence the separate file.
    """
    path = SCHEMA_DIR / "falkordb" / "constraints.redis"
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split() for line in lines if line.strip() and not line.lstrip().startswith("#")]


_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)
_VECTOR_INDEX = re.compile(r"VECTOR INDEX FOR \(n:(\w+)\) ON \(n\.(\w+)\)")


def fulltext_index_ddl(dialect: str, label: str) -> str:
    """The schema's statement that creates the full-text index of ``label``."""
    wanted = f"FULLTEXT INDEX FOR (n:{label})"
    found = [statement for statement in load_ddl(dialect) if wanted in statement]
    if len(found) != 1:
        raise SchemaError(f"expected one full-text index on {label} in schema/{dialect}, found {len(found)}")
    return found[0]


def vector_index_ddl(dialect: str, dimension: int) -> list[tuple[str, str, str]]:
    """(label, property, the statement that creates it) for each vector index of the schema."""
    found = []
    for statement in load_ddl(dialect, dimension):
        match = _VECTOR_INDEX.search(statement)
        if match:
            found.append((match[1], match[2], statement))
    return found


def _statements(text: str) -> list[str]:
    body = _COMMENT.sub("", text)
    return [" ".join(part.split()) for part in body.split(";") if part.strip()]
