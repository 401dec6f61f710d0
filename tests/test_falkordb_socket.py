"""The local store's socket when the data home's path is too long for one: a private temp folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from docgraph.app.stores import falkordb_server
from docgraph.errors import StoreUnavailableError


def test_a_socket_folder_someone_else_could_use_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "shared-tmp"))  # not the machine's /tmp
    home = tmp_path / ("a-data-home-with-a-long-name-" * 4)
    folder = tmp_path / "shared-tmp" / f"docgraph-{os.getuid()}"
    folder.mkdir(parents=True)
    folder.chmod(0o777)  # as if another user had made it first, open to them
    with pytest.raises(StoreUnavailableError, match="not this user's private folder"):
        falkordb_server.ensure_running(home)
    assert not list(folder.iterdir())  # nothing was started there

    folder.chmod(0o700)
    try:
        socket = falkordb_server.ensure_running(home)
        assert socket.parent == folder and socket.is_socket()
    finally:
        falkordb_server.stop(home)
