"""The judge server's interactive docs (Swagger UI at ``/docs``, ReDoc at ``/redoc``) work
without internet: their pages reference only assets served by the app itself.

FastAPI's default docs pages load Swagger UI / ReDoc from cdn.jsdelivr.net, which leaves a
blank page on a LAN without internet; :func:`kiekai.judge.server.create_app` serves the assets from
:data:`kiekai.judge.server.DOCS_STATIC_URL` instead. The docs pages never call the judge, so these
tests serve a judge double and load no models.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from kiekai.judge.server import DOCS_STATIC_URL, create_app
from kiekai.judge.verdict import Strictness

#: Content types each kind of asset must be served with.
ASSET_TYPES = {
    ".js": ("text/javascript", "application/javascript"),
    ".css": ("text/css",),
    ".png": ("image/png",),
}
#: Text each script or style sheet must contain to be the real library, not an empty file.
ASSET_MARKERS = {
    "swagger-ui-bundle.js": "SwaggerUIBundle",
    "swagger-ui.css": ".swagger-ui",
    "redoc.standalone.js": "Redoc",
}


class UnusedJudge:
    """Judge double for pages that must not judge anything: every call fails the test."""

    def match(self, secret: str, guess: str):
        raise AssertionError("the docs pages called the judge")

    def is_repeat(self, candidate: str, used: list[str]):
        raise AssertionError("the docs pages called the judge")


class AssetLinks(HTMLParser):
    """Collects the ``src`` of ``<script>`` and the ``href`` of ``<link>`` in a page."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"script": "src", "link": "href"}.get(tag)
        for name, value in attrs:
            if name == wanted and value:
                self.urls.append(value)


def asset_urls(html: str) -> list[str]:
    parser = AssetLinks()
    parser.feed(html)
    return parser.urls


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app({level: UnusedJudge() for level in Strictness})) as test_client:
        yield test_client


@pytest.mark.parametrize(
    ("page", "needed"),
    [
        ("/docs", {"swagger-ui-bundle.js", "swagger-ui.css"}),
        ("/redoc", {"redoc.standalone.js"}),
    ],
)
def test_docs_page_loads_only_assets_served_by_the_app(client, page, needed):
    response = client.get(page)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    # no absolute URL anywhere in the page: not in asset links, nor in inline config
    # (e.g. Swagger UI's validator badge at validator.swagger.io)
    assert not re.search(r"(?i)\b(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", html), html
    urls = asset_urls(html)
    names = {url.rsplit("/", 1)[-1] for url in urls}
    assert needed <= names, urls
    for url in urls:
        parts = urlsplit(url)
        assert not parts.scheme and not parts.netloc, url
        assert url.startswith(DOCS_STATIC_URL + "/"), url
        asset = client.get(url)
        assert asset.status_code == 200, url
        suffix = "." + url.rsplit(".", 1)[-1]
        assert asset.headers["content-type"].startswith(ASSET_TYPES[suffix]), (
            url,
            asset.headers["content-type"],
        )
        marker = ASSET_MARKERS.get(url.rsplit("/", 1)[-1])
        if marker is not None:
            assert len(asset.content) > 10_000, url  # the bundled library, not a stub file
            assert marker in asset.text, url


def test_docs_page_reads_this_apps_schema(client):
    html = client.get("/docs").text
    assert "'/openapi.json'" in html or '"/openapi.json"' in html
    schema = client.get("/openapi.json")
    assert schema.status_code == 200
    # the docs pages and their assets are not API endpoints
    assert sorted(schema.json()["paths"]) == [
        "/healthz",
        "/v1/judge",
        "/v1/judge/batch",
        "/v1/repeat",
        "/v1/tables",
        "/v1/tables/{name}/rulings",
        "/v1/tables/{name}/rulings.tsv",
    ]


def test_missing_asset_is_a_json_404(client):
    response = client.get(f"{DOCS_STATIC_URL}/no-such-file.js")
    assert response.status_code == 404
    assert response.json()["error"] == "not-found"
