"""The web UI as ``docgraph ui`` serves it: ``streamlit run ui/asgi.py`` finds ``app`` below and
runs the pages of ui/app.py as an ASGI app, whose page shell names the server's base URL (see
``page_shell``), so that a page's URL opened directly makes no failed request."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("docgraph") is None:  # a source checkout that is not installed
    sys.path.insert(0, str(HERE.parent))

import streamlit as st  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402

from docgraph.ui.page_shell import BaseUrlScript  # noqa: E402

app = st.App(HERE / "app.py", middleware=[Middleware(BaseUrlScript)])
