"""The UI's pages, one module each, each with a ``render()`` that draws the page."""
