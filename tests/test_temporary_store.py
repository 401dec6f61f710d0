"""The throw-away store of `docgraph eval` and `bench`: gone afterwards, whatever happened."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.app.config import Settings
from docgraph.app.stores import falkordb_client, falkordb_server
from docgraph.app.stores.temporary import temporary_local_store
from docgraph.errors import StoreError


def test_a_store_that_fails_to_open_leaves_no_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    started: list[Path] = []
    start = falkordb_server.running_server

    def recorded_start(home: Path, *args: object, **kwargs: object) -> tuple[Path, bool]:
        started.append(home)
        return start(home, *args, **kwargs)  # type: ignore[arg-type]

    def refused(*args: object, **kwargs: object) -> None:
        raise StoreError("the client could not connect")

    monkeypatch.setattr(falkordb_server, "running_server", recorded_start)
    monkeypatch.setattr(falkordb_client, "connect_falkordb", refused)
    with pytest.raises(StoreError, match="could not connect"), temporary_local_store(Settings(home=tmp_path, store="")):
        pytest.fail("the store should not have opened")
    (home,) = started
    assert not home.exists()
    assert not falkordb_server.status(home).running


def test_the_store_is_stopped_and_removed_after_use(tmp_path: Path) -> None:
    with temporary_local_store(Settings(home=tmp_path, store="")) as store:
        assert store.read("RETURN 1 AS one") == [{"one": 1}]
        home = Path(store.url.removeprefix("falkordb-local://").partition("?")[0])
        assert falkordb_server.status(home).running
    assert not home.exists() and not falkordb_server.status(home).running
