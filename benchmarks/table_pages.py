"""Bytes per page load of the browser table: each page and everything it loads
(the stylesheets, scripts, images and icons its HTML names, the modules its
scripts import, one level after another, the files its CSS names), each counted
once per page, as served and gzipped (``benchmarks/table_bench.py``).
"""

from __future__ import annotations

import gzip
import http.client
import re
import urllib.error
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from benchmarks.table_served import BenchError

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "engine" / "apps" / "table" / "static"

__all__ = ["fetch", "page_weight", "pages", "references"]


class _Refs(HTMLParser):
    """What an HTML page makes the browser fetch: stylesheets, icons, scripts, images."""

    LINK_RELS = frozenset({"stylesheet", "icon", "modulepreload", "preload", "manifest"})

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "link" and self.LINK_RELS & set(values.get("rel", "").lower().split()):
            self.refs.append(values.get("href", ""))
        elif tag in ("script", "img", "audio", "video", "source", "iframe", "embed"):
            self.refs.append(values.get("src", ""))


_JS_IMPORTS = re.compile(
    r"""(?:\bimport|\bexport)\s[^'";]*?\bfrom\s*["']([^"']+)["']"""  # import x from "m"
    r"""|\bimport\s*["']([^"']+)["']"""  # import "m"
    r"""|\bimport\(\s*["']([^"']+)["']\s*\)"""  # import("m")
)
_CSS_URLS = re.compile(r"""url\(\s*["']?([^"')]+?)["']?\s*\)|@import\s+["']([^"']+)["']""")


def references(kind: str, text: str) -> list[str]:
    """The URLs a file of ``kind`` (``html``, ``js``, ``css``) makes the browser fetch.

    >>> references("js", 'import { a,\\n b } from "./common.js";\\nimport "./x.js";')
    ['./common.js', './x.js']
    >>> references("css", '@import "a.css"; body { background: url(/static/b.png) }')
    ['a.css', '/static/b.png']
    """
    if kind == "html":
        parser = _Refs()
        parser.feed(text)
        found = parser.refs
    else:
        pattern = _JS_IMPORTS if kind == "js" else _CSS_URLS
        found = [next(g for g in match.groups() if g) for match in pattern.finditer(text)]
    return [ref for ref in found if ref and not ref.startswith(("data:", "#"))]


def _kind(content_type: str, url: str) -> str:
    if "html" in content_type:
        return "html"
    if "javascript" in content_type or url.endswith(".js"):
        return "js"
    if "css" in content_type:
        return "css"
    return "other"


#: One kept-alive HTTP connection per host, as a browser keeps them (the table
#: refuses an address that opens connections too fast).
_CONNECTIONS: dict[str, http.client.HTTPConnection] = {}


def fetch(url: str, accept_gzip: bool = False) -> tuple[bytes, str, str | None]:
    """The body, the content type and the Content-Encoding of ``url``, over
    a connection kept alive (opened again if the server closed it)."""
    headers = {"Accept-Encoding": "gzip"} if accept_gzip else {"Accept-Encoding": "identity"}
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    for attempt in (1, 2):
        connection = _CONNECTIONS.get(parts.netloc)
        if connection is None:
            connection = _CONNECTIONS[parts.netloc] = http.client.HTTPConnection(
                parts.netloc, timeout=10
            )
        try:
            connection.request("GET", target, headers=headers)
            reply = connection.getresponse()
            body = reply.read()
        except (http.client.HTTPException, ConnectionError):
            connection.close()
            del _CONNECTIONS[parts.netloc]
            if attempt == 2:
                raise
            continue
        if reply.status >= 400:
            raise urllib.error.HTTPError(url, reply.status, reply.reason, reply.headers, None)
        return body, reply.headers.get("Content-Type", ""), reply.headers.get("Content-Encoding")
    raise AssertionError("unreachable")


def page_weight(base: str, path: str) -> dict[str, Any]:
    """The page at ``path`` and everything it loads, transitively, each file once."""
    origin = urlsplit(base).netloc
    queue, seen = [urljoin(base, path)], set()
    files, external = [], []
    compressed_by_server = False
    while queue:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        if urlsplit(url).netloc != origin:
            external.append(url)
            continue
        try:
            body, content_type, _ = fetch(url)
            served_gzip, _, encoding = fetch(url, accept_gzip=True)
        except urllib.error.URLError as exc:
            raise BenchError(f"{url} (loaded by the page {path}): {exc}") from None
        compressed_by_server |= encoding == "gzip"
        files.append(
            {
                "url": urlsplit(url).path,
                "bytes": len(body),
                "gzip_bytes": len(gzip.compress(body, 6)),
                "served_gzip_bytes": len(served_gzip),
            }
        )
        kind = _kind(content_type, url)
        if kind != "other":
            text = body.decode("utf-8", errors="replace")
            queue += [urljoin(url, ref) for ref in references(kind, text)]
    return {
        "path": path,
        "files": files,
        "bytes": sum(f["bytes"] for f in files),
        "gzip_bytes": sum(f["gzip_bytes"] for f in files),
        "served_gzip_bytes": sum(f["served_gzip_bytes"] for f in files),
        "compressed_by_server": compressed_by_server,
        "external": external,
    }


def pages(base: str) -> dict[str, str]:
    """The pages to weigh: the display, the phone, and every other page in static/
    (by its route, ``/panel`` for ``panel.html``, where the server has one)."""
    found = {"display": "/", "phone": "/phone"}
    for html in sorted(STATIC.glob("*.html")):
        if html.name in ("display.html", "phone.html"):
            continue
        route = f"/{html.stem}"
        try:
            _, content_type, _ = fetch(urljoin(base, route))
        except urllib.error.URLError:
            content_type = ""
        found[html.stem] = route if "html" in content_type else f"/static/{html.name}"
    return found
