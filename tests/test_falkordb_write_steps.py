"""FalkorDB runs a document write as one MULTI/EXEC, which does not roll back: a step that fails
after the nodes were written must fail the write (not report it done), and a delete removes the
Document node last, so that a document whose delete failed half-way can still be found and deleted."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from docgraph.app.stores import falkordb_write
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.stores.falkordb_write import Command
from docgraph.errors import StoreError
from tests.test_store_contract import doc, make_batch


def test_a_step_that_fails_after_the_nodes_were_written_fails_the_write(
    falkordb_store: FalkorDBStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = falkordb_write.write_commands

    def with_a_failing_cleanup(*args: Any, **kwargs: Any) -> Iterator[Command]:
        commands = list(made(*args, **kwargs))
        failing = Command("UNWIND [1] AS x RETURN x / 'not a number'", {})  # fails as it runs, not as it is queued
        yield from [*commands[:-1], failing, commands[-1]]  # just before write_end

    monkeypatch.setattr(falkordb_write, "write_commands", with_a_failing_cleanup)
    with pytest.raises(StoreError, match=r"went wrong after its nodes were written .* --force"):
        falkordb_store.write_document(make_batch(doc("late"), "a"))


def test_a_delete_removes_the_document_node_last(
    falkordb_store: FalkorDBStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    falkordb_store.write_document(make_batch(doc("order"), "a"))
    sent: list[str] = []
    execute = falkordb_write.DocumentWriter._execute

    def recorded(self: falkordb_write.DocumentWriter, pipe: Any, commands: Iterable[Command]) -> list[Any]:
        listed = list(commands)
        sent.extend(command.query for command in listed)
        return execute(self, pipe, listed)

    monkeypatch.setattr(falkordb_write.DocumentWriter, "_execute", recorded)
    assert falkordb_store.delete_document(doc("order")) > 0
    assert len(sent) == 4 and "(n:Document" in sent[-1] and all("(n:Document" not in q for q in sent[:-1])
