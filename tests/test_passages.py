"""Cutting long region texts into passages for the encoder."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from docgraph.app.pipeline.passages import split_passages


def test_a_short_text_is_one_passage_and_an_empty_one_none() -> None:
    assert split_passages("  A short paragraph.  ", "paragraph") == ["A short paragraph."]
    assert split_passages("   ", "paragraph") == []


def test_prose_is_cut_at_sentence_ends() -> None:
    sentences = [f"Sentence {n} says something about item {n}." for n in range(40)]
    passages = split_passages(" ".join(sentences), "paragraph", limit=200, most=100)
    assert len(passages) > 1 and all(len(p) <= 200 for p in passages)
    assert all(p.endswith(".") for p in passages)  # no sentence is cut in half
    assert " ".join(passages) == " ".join(sentences)


def test_table_passages_repeat_the_header_row() -> None:
    header = ["| Name | Meaning |", "| --- | --- |"]
    rows = [f"| flag{n} | sets bit {n} of the field flags |" for n in range(30)]
    passages = split_passages("\n".join(header + rows), "table", limit=300)
    assert len(passages) > 1
    for passage in passages:
        assert passage.splitlines()[:2] == header and len(passage) <= 300
    assert [line for p in passages for line in p.splitlines()[2:]] == rows  # every row once, in order


def test_code_is_cut_at_line_breaks() -> None:
    lines = [f"canvas.drawString({n}, {n}, 'line {n}')" for n in range(60)]
    passages = split_passages("\n".join(lines), "code", limit=250, most=100)
    assert [line for p in passages for line in p.splitlines()] == lines


def test_a_region_longer_than_the_most_passages_keeps_its_first_ones() -> None:
    text = " ".join(f"Word{n}." for n in range(2000))
    passages = split_passages(text, "paragraph", limit=100, most=3)
    assert len(passages) == 3 and passages[0].startswith("Word0.")


@given(st.text(alphabet=st.characters(codec="utf-8", categories=["L", "N", "P", "Zs"]), max_size=3000))
def test_passages_fit_and_keep_every_word_in_order(text: str) -> None:
    passages = split_passages(text, "paragraph", limit=120, most=1000)
    assert all(0 < len(p) <= 120 for p in passages)
    kept = " ".join(passages).split()
    words = text.split()
    assert [w[:120] for w in words] == kept
