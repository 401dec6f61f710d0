"""Query parameters as FalkorDB's CYPHER header text: our fast path must say what the client says."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from falkordb.helpers import stringify_param_value

from app.exceptions import StoreError
from app.stores.falkordb_write import encode_query, param_text
from app.stores.records import _float32_text

VALUES: list[Any] = [
    "plain",
    'quote " and back\\slash',
    "",
    None,
    True,
    7,
    -2.5,
    [1, 2, 3],
    [0.1, 2, -3.25e-7],
    [],
    ["a", None, 1.5],
    [[1.0, 2.0], [3.0]],
    {"props": {"title": "Zoo", "page": 3, "bbox": [1.5, 2.0, 3.25, 4.0]}, "src": "r1"},
    {"rows": [{"props": {"text": "x"}, "embedding": None}]},
]


@pytest.mark.parametrize("value", VALUES)
def test_param_text_is_the_clients_text(value: Any) -> None:
    assert param_text(value) == stringify_param_value(value)


def test_vectors_go_as_float32_precision_floats() -> None:
    vector = [*np.random.default_rng(0).standard_normal(384).astype(np.float64).tolist(), 3.0]
    text = param_text({"embedding": _float32_text(vector)})
    values = [float(v) for v in text.removeprefix("{`embedding`:[").removesuffix("]}").split(",")]
    assert np.array_equal(np.float32(values), np.float32(vector))  # the float32 vecf32 stores is exact
    assert "3.00000000" in text  # a decimal point on every value: vecf32 is handed floats only


@pytest.mark.parametrize("key", ["", "a`b"])
def test_a_map_key_the_header_cannot_carry_is_a_store_error(key: str) -> None:
    with pytest.raises(StoreError, match="cannot be sent"):
        encode_query("RETURN $m", {"m": {key: 1}})
