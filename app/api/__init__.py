"""docgraph over HTTP: a FastAPI app (:func:`app.api.app.create_app`, served by ``docgraph serve``).

:mod:`app.api.models` holds the JSON shapes shared with the CLI's ``--json`` output; it needs only
pydantic, so nothing here imports FastAPI until the app itself is built.
"""
