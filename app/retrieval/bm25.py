"""Okapi BM25 over a fixed list of texts, as a sparse matrix so a query costs a few column sums.

Each cell holds a term's full BM25 contribution for a text (idf x saturated, length-normalised tf),
so scoring is summing the query terms' columns. ``idf`` is Lucene's ``log(1 + (N - n + .5)/(n + .5))``,
which, unlike Okapi's original, never goes negative for terms in most texts.

Each document has its own indexes. Asked across several documents, their scores are put on one
scale by :func:`scores_across`: every index scores with the idf of the texts of all of them, as
one index over the whole store would (a word rare in a long manual is not rare in the store).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from docgraph.app.retrieval.text import tokenize

K1 = 1.2
B = 0.75


@dataclass(frozen=True, slots=True)
class SharedStatistics:
    """What BM25 needs of a collection of texts spread over several indexes, for one query."""

    idf: dict[str, float]  # query term -> idf over all the texts
    average_length: float  # tokens per text over all the texts


class BM25Index:
    def __init__(self, texts: Sequence[str], k1: float = K1, b: float = B) -> None:
        self.size, self.k1, self.b = len(texts), k1, b
        self.vocabulary: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        counts: list[float] = []
        self.lengths = np.zeros(self.size, dtype=np.float64)
        for row, text in enumerate(texts):
            tokens = tokenize(text)
            self.lengths[row] = len(tokens)
            for term, count in Counter(tokens).items():
                rows.append(row)
                cols.append(self.vocabulary.setdefault(term, len(self.vocabulary)))
                counts.append(float(count))
        self.total_length = float(self.lengths.sum())
        shape = (self.size, max(1, len(self.vocabulary)))
        row_index, col_index = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
        self.document_frequency = np.bincount(col_index, minlength=shape[1]).astype(np.int64)
        self.idf = np.log1p((self.size - self.document_frequency + 0.5) / (self.document_frequency + 0.5))
        # term counts in the same layout as the weights, for scoring with shared statistics
        self.counts = sparse.csc_matrix((np.asarray(counts, dtype=np.float32), (row_index, col_index)), shape=shape)
        self.weights = self._weights(row_index, col_index, np.asarray(counts, dtype=np.float64), shape)

    def _weights(
        self,
        row_index: NDArray[np.int64],
        col_index: NDArray[np.int64],
        tf: NDArray[np.float64],
        shape: tuple[int, int],
    ) -> sparse.csc_matrix:
        if not row_index.size:
            return sparse.csc_matrix(shape, dtype=np.float32)
        average = float(self.lengths.mean()) or 1.0
        norm = self.k1 * (1.0 - self.b + self.b * self.lengths[row_index] / average)
        values = self.idf[col_index] * tf * (self.k1 + 1.0) / (tf + norm)
        return sparse.csc_matrix((values.astype(np.float32), (row_index, col_index)), shape=shape)

    def frequency(self, term: str) -> int:
        """How many texts hold ``term``."""
        column = self.vocabulary.get(term)
        return int(self.document_frequency[column]) if column is not None else 0

    def rows_with(self, term: str) -> list[int]:
        """The texts that hold the token ``term``."""
        column = self.vocabulary.get(term)
        if column is None:
            return []
        return [int(row) for row in self.counts.indices[self.counts.indptr[column] : self.counts.indptr[column + 1]]]

    def scores(self, query: str, shared: SharedStatistics | None = None) -> NDArray[np.float32]:
        """BM25 score of every text for ``query`` (zeros where nothing matches); with ``shared``, scored
        with the idf and average length of a larger collection (:func:`scores_across`)."""
        scores = np.zeros(self.size, dtype=np.float32)
        # Column by column on the CSC arrays: a few microseconds each, where slicing the sparse
        # matrix costs about a millisecond per query. Rows are unique within a column.
        pointers, rows, values = self.weights.indptr, self.weights.indices, self.weights.data
        for term in tokenize(query):
            column = self.vocabulary.get(term)
            if column is None:
                continue
            start, end = pointers[column], pointers[column + 1]
            if shared is None:
                scores[rows[start:end]] += values[start:end]
            else:
                scores[rows[start:end]] += self._shared_values(term, rows[start:end], start, end, shared)
        return scores

    def _shared_values(
        self, term: str, rows: NDArray[np.int32], start: int, end: int, shared: SharedStatistics
    ) -> NDArray[np.float32]:
        tf = self.counts.data[start:end].astype(np.float64)
        norm = self.k1 * (1.0 - self.b + self.b * self.lengths[rows] / (shared.average_length or 1.0))
        values: NDArray[np.float32] = (shared.idf[term] * tf * (self.k1 + 1.0) / (tf + norm)).astype(np.float32)
        return values

    def top_k(self, query: str, k: int, shared: SharedStatistics | None = None) -> list[tuple[int, float]]:
        """(row, score) of the ``k`` best texts with a score above zero, best first."""
        return top_k_of(self.scores(query, shared), k)


def shared_statistics(indexes: Sequence[BM25Index], query: str) -> SharedStatistics:
    """The idf of each query term, and the average text length, over the texts of all ``indexes``."""
    total = sum(index.size for index in indexes)
    idf: dict[str, float] = {}
    for term in tokenize(query):
        if term not in idf:
            held = sum(index.frequency(term) for index in indexes)
            idf[term] = float(np.log1p((total - held + 0.5) / (held + 0.5)))
    tokens = sum(index.total_length for index in indexes)
    return SharedStatistics(idf, tokens / total if total else 0.0)


def scores_across(
    indexes: Mapping[str, BM25Index], query: str, one_scale: bool = True
) -> dict[str, NDArray[np.float32]]:
    """Each index's scores for ``query``, on one scale: with one index its own; with several, every
    index scores with the statistics of all their texts together (:func:`shared_statistics`), as
    one index over all of them would (each with its own statistics when not ``one_scale``)."""
    shared = shared_statistics(list(indexes.values()), query) if one_scale and len(indexes) > 1 else None
    return {name: index.scores(query, shared) for name, index in indexes.items()}


def top_k_of(scores: NDArray[np.float32], k: int) -> list[tuple[int, float]]:
    if k <= 0 or scores.size == 0:
        return []
    k = min(k, scores.size)
    best = np.argpartition(-scores, k - 1)[:k]
    ordered = best[np.argsort(-scores[best], kind="stable")]
    return [(int(i), float(scores[i])) for i in ordered if scores[i] > 0]
