"""The API's interactive docs (Swagger UI at ``/docs``, ReDoc at ``/redoc``), served offline.

FastAPI's own pages load Swagger UI, ReDoc, a favicon and Google Fonts from CDNs, so they stay
blank on a machine without internet. Here the same pages load their scripts and styles from the
``fastapi-offline`` package's copies (installed with docgraph), served under ``/docs-assets``.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from docgraph.errors import ConfigError

ASSETS_PATH = "/docs-assets"
ASSET_FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js", "favicon.png")
# Nothing from elsewhere: ReDoc's bundle still names its logo on a CDN, which the browser now skips.
# The pages start their UI with an inline script; ReDoc searches in a worker made from a blob.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'"
)


def assets_folder() -> Path:
    """The installed copies of Swagger UI and ReDoc; refuses a package that lacks any of them."""
    folder = Path(str(files("fastapi_offline") / "static"))
    missing = [name for name in ASSET_FILES if not (folder / name).is_file()]
    if missing:
        raise ConfigError(f"the fastapi-offline package lacks {', '.join(missing)}; reinstall docgraph")
    return folder


def install_docs(app: FastAPI) -> None:
    """Add ``/docs``, its OAuth2 redirect page and ``/redoc`` to an app made with ``docs_url=None``
    and ``redoc_url=None``, their assets served from the package."""
    app.mount(ASSETS_PATH, StaticFiles(directory=assets_folder()), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"
    redirect_url = app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return _self_contained(
            get_swagger_ui_html(
                openapi_url=openapi_url,
                title=f"{app.title} - Swagger UI",
                oauth2_redirect_url=redirect_url,
                swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
                swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
                swagger_favicon_url=f"{ASSETS_PATH}/favicon.png",
            )
        )

    @app.get(redirect_url, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return _self_contained(
            get_redoc_html(
                openapi_url=openapi_url,
                title=f"{app.title} - ReDoc",
                redoc_js_url=f"{ASSETS_PATH}/redoc.standalone.js",
                redoc_favicon_url=f"{ASSETS_PATH}/favicon.png",
                with_google_fonts=False,
            )
        )


def _self_contained(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return page
