"""The docgraph web UI's pages on the configured store. ``docgraph ui`` serves them through
``ui/asgi.py``; ``streamlit run ui/app.py`` runs them too, without the page shell's base URL."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# `streamlit run ui/app.py` puts ui/ first on the path, where its modules would pass for top-level
# ones: take it off. A source checkout that is not installed imports `docgraph` from its root.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
if importlib.util.find_spec("docgraph") is None:
    sys.path.insert(0, str(HERE.parent))

import streamlit as st  # noqa: E402

from docgraph.ui import common, signin  # noqa: E402
from docgraph.ui.views import ask, cypher_page, documents, graph  # noqa: E402

# No page or page_icon icons: Streamlit fetches a material-icon favicon from a font CDN (offline here).
st.set_page_config(page_title="docgraph", layout="wide")
signin.check_host()  # a foreign Host (DNS rebinding) gets nothing
# The navigation first, so that a page opened by its URL (a bookmark) is still the page once the
# key is given; hidden until then.
navigation = st.navigation(
    [
        st.Page(ask.render, title="Ask", default=True),
        st.Page(documents.render, title="Documents", url_path="documents"),
        st.Page(cypher_page.render, title="Cypher", url_path="cypher"),
        st.Page(graph.render, title="Graph", url_path="graph"),
    ],
    position="sidebar" if signin.session_allowed() else "hidden",
)
signin.signed_in_role()  # once any API key was made, nothing shows before a valid one is given
common.sidebar_health()
navigation.run()
