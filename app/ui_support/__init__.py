"""Plain-Python support for the Streamlit UI (``ui/``): everything the pages do beyond layout.

Nothing here imports Streamlit, so each piece is tested on its own against a real store.
"""
