"""What an evaluation is given, checked before anything is ingested: the models its variants
need, the questions' gold pages, and the distractor PDFs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.evaluation.questions import Question, QuestionsError
from docgraph.app.pipeline.build import gnn_unavailable
from docgraph.app.pipeline.source_files import expand_paths
from docgraph.app.retrieval.registry import WITHOUT_GNN
from docgraph.app.retrieval.rerank import configured_reranker
from docgraph.app.stores.schema import GNN_ABLATION_PROPERTIES
from docgraph.errors import ModelError
from docgraph.ingest.readers.paged import page_count
from docgraph.ingest.structure.ids import doc_id_for, file_sha256


def check_models_usable(names: Sequence[str], settings: Settings) -> None:
    """Refuse, before the slow ingest, to score variants that read GNN vectors when the configured
    checkpoint cannot give any (a mistyped DOCGRAPH_GNN_CHECKPOINT, a damaged file, another
    encoder's): the ingest would go on without them and "gnn" score 0, the hybrids as no-gnn. The
    reranker of hybrid-rerank is loaded here too (a damaged one failed after the ingest)."""
    if "hybrid-rerank" in names:
        configured_reranker(settings)
    # (the GNN ablations read their own checkpoints' vectors, made by reembed --variant)
    readers = [name for name in names if name not in WITHOUT_GNN and name not in GNN_ABLATION_PROPERTIES]
    reason = gnn_unavailable(settings) if readers else None
    if reason is not None:
        raise ModelError(
            f"{', '.join(readers)} read GNN vectors, which the configured checkpoint cannot give ({reason}): "
            "fix DOCGRAPH_GNN_CHECKPOINT, or score only variants without them (e.g. --variant no-gnn)"
        )


def check_gold_pages(questions: Sequence[Question], docs_dir: Path, max_pages: int) -> None:
    """Refuse a question whose gold page lies past its document's last page: it could only miss."""
    counts = {name: page_count(docs_dir / name, max_pages) for name in dict.fromkeys(q.doc for q in questions)}
    for question in questions:
        last = counts[question.doc]
        if max(question.pages) > last:
            raise QuestionsError(
                f"question {question.id!r}: page {max(question.pages)} is past the last page of {question.doc} ({last})"
            )


def distractor_files(distractors: Sequence[Path], questioned: Sequence[Path]) -> list[Path]:
    """The PDFs of ``distractors`` (files or folders). A file named like one the questions are about
    (the same document id) is that document and is left out; with other content it is refused."""
    for path in distractors:
        if not path.exists():
            raise QuestionsError(f"{path}: no such distractor file or folder")
    taken = {doc_id_for(path.name): path for path in questioned}
    found: list[Path] = []
    for path in expand_paths(distractors):
        same = taken.get(doc_id_for(path.name))
        if same is None:
            taken[doc_id_for(path.name)] = path
            found.append(path)
        elif file_sha256(same) != file_sha256(path):
            raise QuestionsError(f"{path}: another file is named like {same} (one document id); rename one of them")
    return found
