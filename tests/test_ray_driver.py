"""The Ray driver process's bookkeeping in this process, without a cluster: what a task gets when no
driver can be started (tests/test_ray_cluster_loss.py kills real clusters)."""

from __future__ import annotations

from typing import Any

import pytest

from docgraph.app.config import Settings
from docgraph.app.pipeline.execution.ray_driver import RayDriverProcess, _Driver
from docgraph.app.pipeline.worker import WorkerSpec
from docgraph.errors import WorkerLostError


class NoProcessLeft(RayDriverProcess):
    """Its first driver has ended; no other can be started (no file descriptors left, say)."""

    def _start(self) -> _Driver:
        if not hasattr(self, "_asks"):  # the first, in __init__: one that ended since
            return _Driver(process=Any, connection=Any, workers=2, gone="it ended")  # type: ignore[arg-type]
        raise RuntimeError("no file descriptors left")


def test_a_driver_that_cannot_be_started_fails_each_task_and_the_sending_goes_on(tmp_path: Any) -> None:
    """The sending thread died on an error that was not docgraph's: the task, and every later one,
    waited for ever (the API's jobs hung until a restart)."""
    executor = NoProcessLeft(WorkerSpec(Settings(home=tmp_path), "native"), "127.0.0.1:1")
    try:
        first, second = executor.submit("read_window"), executor.submit("read_window")
        for task in (first, second):
            with pytest.raises(WorkerLostError, match="RuntimeError: no file descriptors left; this document"):
                task.result(timeout=30)
    finally:
        executor.close()
