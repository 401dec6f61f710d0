"""Query parameters as FalkorDB's CYPHER header text, vectors included."""

from __future__ import annotations

import numpy as np

from docgraph.app.stores.falkordb_write import encode_query
from docgraph.app.stores.records import _float32_text


def test_vectors_go_as_float32_precision_floats() -> None:
    vector = [*np.random.default_rng(0).standard_normal(384).astype(np.float64).tolist(), 3.0]
    text = encode_query("RETURN 1", {"row": {"embedding": _float32_text(vector)}})
    literal = text.removeprefix("CYPHER `row`={`embedding`:[").removesuffix("]} RETURN 1")
    values = [float(v) for v in literal.split(",")]
    assert np.array_equal(np.float32(values), np.float32(vector))  # the float32 vecf32 stores is exact
    assert "3.00000000" in text  # a decimal point on every value: vecf32 is handed floats only


def test_a_vector_sits_in_a_row_as_the_client_writes_the_rest() -> None:
    row = {"props": {"title": 'a "b"', "page": 3, "bbox": [1.5, 2.0], "note": None}, "embedding": _float32_text([0.5])}
    assert encode_query("Q", {"rows": [row]}) == (
        'CYPHER `rows`=[{`props`:{`title`:"a \\"b\\"",`page`:3,`bbox`:[1.5,2.0],`note`:null},'
        "`embedding`:[0.500000000]}] Q"
    )
