"""The web UI as ``docgraph ui`` serves it: ``streamlit run ui/asgi.py`` finds ``app`` below and
runs the pages of ui/app.py as an ASGI app, whose page shell names the server's base URL (see
``page_shell``), so that a page's URL opened directly makes no failed request. Started by
``docgraph ui``, it prints the command's start record once it answers."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("docgraph") is None:  # a source checkout that is not installed
    sys.path.insert(0, str(HERE.parent))

import streamlit as st  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402

from docgraph.app.cli.listening import UI_START_RECORD, print_once_answering  # noqa: E402
from docgraph.ui.page_shell import BaseUrlScript  # noqa: E402


@asynccontextmanager
async def start_record(_app: st.App) -> AsyncIterator[None]:
    """``docgraph ui``'s start record, printed once the server takes connections."""
    record = os.environ.get(UI_START_RECORD, "")
    printing = asyncio.create_task(print_once_answering(record)) if record else None
    try:
        yield None
    finally:
        if printing is not None:
            printing.cancel()


app = st.App(HERE / "app.py", middleware=[Middleware(BaseUrlScript)], lifespan=start_record)
