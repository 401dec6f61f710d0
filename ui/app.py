"""The docgraph web UI: ``docgraph ui`` (or ``streamlit run ui/app.py``) on the configured store."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# `streamlit run ui/app.py` puts ui/ first on the path, where this file would shadow the `app`
# package: take ui/ off and put the repository root on instead.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from ui import common  # noqa: E402
from ui.views import ask, cypher_page, documents, graph  # noqa: E402

# No page or page_icon icons: Streamlit fetches a material-icon favicon from a font CDN (offline here).
st.set_page_config(page_title="docgraph", layout="wide")
navigation = st.navigation(
    [
        st.Page(ask.render, title="Ask", default=True),
        st.Page(documents.render, title="Documents", url_path="documents"),
        st.Page(cypher_page.render, title="Cypher", url_path="cypher"),
        st.Page(graph.render, title="Graph", url_path="graph"),
    ]
)
common.sidebar_health()
navigation.run()
