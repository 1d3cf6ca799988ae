"""Who the table's site answers, and the headers on every answer.

Two ASGI middlewares over the whole app (the room's routes and every add-on's):

- :class:`Guard`: every HTTP request and WebSocket handshake must name in its
  ``Host`` a host the table serves (:class:`Hosts`), or it is refused, 421,
  with the names it serves: that stops DNS rebinding (a page of a name an
  attacker controls, pointed at the table's address). A WebSocket handshake
  that carries an ``Origin`` must come from a page of the table itself (the
  origin's host and port are the ``Host`` the handshake names), or it is
  refused, 403, before anything is read: a page of another site can no more
  open the table's sockets than read its pages. A handshake without an
  ``Origin`` is not a browser's (a page always sends one) and is let in, as
  the websockets library's ``origins=[..., None]`` does. Each refusal is
  logged with the peer (:class:`~engine.apps.table.limits.RefusalLog`).
- :class:`SecurityHeaders`: a Content-Security-Policy that allows only the
  table's own scripts, styles, images (and ``data:`` images) and sockets, and
  no framing; ``nosniff``, no referrer, and the rest of OWASP's list that
  costs nothing (:data:`SECURITY_HEADERS`), on every response, the refusals
  above and the add-ons' included.
"""

from __future__ import annotations

import argparse
import ipaddress
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # no web library until the table runs (table_cmd imports this module)
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from engine.apps.table.limits import RefusalLog

__all__ = [
    "Hosts",
    "host_name",
    "add_allow_host_argument",
    "Guard",
    "SecurityHeaders",
    "CONTENT_SECURITY_POLICY",
    "SECURITY_HEADERS",
]

#: The table's pages load only their own scripts, styles and images (the QR
#: code may come as a ``data:`` image) and open only their own sockets
#: (``'self'`` covers ws:// to the page's own host and port in CSP Level 3);
#: nothing may frame them, and a form posts nowhere else.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
#: On every response (OWASP's HTTP headers cheat sheet; HSTS needs HTTPS, which
#: the table does not speak). The phone keeps its screen on (screen-wake-lock):
#: not among the features turned off.
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = tuple(
    (name.encode(), value.encode())
    for name, value in (
        ("content-security-policy", CONTENT_SECURITY_POLICY),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
        ("cross-origin-opener-policy", "same-origin"),
        ("cross-origin-resource-policy", "same-origin"),
        ("x-permitted-cross-domain-policies", "none"),
        ("permissions-policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()"),
    )
)
_OURS = {name for name, _ in SECURITY_HEADERS}

#: A host name as a person types it (letters, digits, dots, dashes), or an IP address.
_NAME = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?")
LOOPBACK = ("localhost", "127.0.0.1", "::1")


def host_name(text: str) -> str:
    """``text`` (a host name or IP address, as given to ``--allow-host``) in the
    form :class:`Hosts` compares: lower case, an IPv6 address without its
    brackets; ValueError if it is neither.

    >>> host_name("Table.Local"), host_name("[::1]"), host_name("192.168.1.5")
    ('table.local', '::1', '192.168.1.5')
    """
    name = text.strip().lower().removeprefix("[").removesuffix("]")
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        pass
    if len(name) > 253 or not _NAME.fullmatch(name):
        raise ValueError(
            f"{text!r} is not a host name or an IP address (give one like table.local, "
            "with no scheme, port or path)"
        )
    return name


def add_allow_host_argument(parser: argparse.ArgumentParser, site: str) -> None:
    """``--allow-host NAME`` (repeated): the names ``site`` ("table", "league")
    answers to besides its addresses and localhost, in :func:`host_name`'s form."""

    def allowed(text: str) -> str:
        try:
            return host_name(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parser.add_argument(
        "--allow-host",
        action="append",
        type=allowed,
        default=[],
        metavar="NAME",
        help=f"a host name the {site} also answers to (e.g. a .local name, or a reverse "
        "proxy's), besides its addresses and localhost; repeat for more",
    )


def split_host(header: str) -> str | None:
    """The host of a ``Host`` header (``name``, ``name:port``, ``[v6]:port``),
    in :func:`host_name`'s form; None when it is not one."""
    if header.startswith("["):
        name, bracket, rest = header[1:].partition("]")
        if not bracket or (rest and not re.fullmatch(r":[0-9]{1,5}", rest)):
            return None
    else:
        name, colon, port = header.rpartition(":")
        if not colon:
            name = port
        elif not re.fullmatch(r"[0-9]{1,5}", port):
            return None
    try:
        return host_name(name)
    except ValueError:
        return None


class Hosts:
    """The host names the table serves: the loopback names, the address it
    listens on, the LAN address it prints, and any given (``--allow-host``).
    Listening on every address (``0.0.0.0``, ``::``), it serves any IP address
    of its own: an address in ``Host`` cannot be an attacker's name, so no
    DNS rebinding comes that way."""

    def __init__(self, names: Iterable[str] = (), *, any_address: bool = False):
        self.names = frozenset(host_name(name) for name in (*LOOPBACK, *names))
        self.any_address = any_address

    @classmethod
    def serving(cls, listen: str, shown: str, extra: Iterable[str] = ()) -> Hosts:
        """The hosts of a table listening on ``listen`` and printing ``shown``."""
        wildcard = listen in ("", "0.0.0.0", "::")
        return cls([*([] if wildcard else [listen]), shown, *extra], any_address=wildcard)

    def __contains__(self, host: str) -> bool:
        if host in self.names:
            return True
        if not self.any_address:
            return False
        try:
            ipaddress.ip_address(host)
        except ValueError:
            return False
        return True

    def words(self) -> str:
        names = ", ".join(sorted(self.names))
        return f"{names} and any address of this machine" if self.any_address else names


def _header(scope: Scope, name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in scope["headers"] if key == name]


def _peer(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


class Guard:
    """The ASGI middleware of :data:`Hosts` and origins; see the module docstring."""

    def __init__(self, app: ASGIApp, *, hosts: Hosts, refusals: RefusalLog, site: str = "table"):
        self.app, self.hosts, self.refusals, self.site = app, hosts, refusals, site

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        why = self.refused(scope)
        if why is None:
            await self.app(scope, receive, send)
            return
        status, kind, line, text = why
        self.refusals.note(kind, _peer(scope), line)
        await _answer(scope, send, status, text)

    def refused(self, scope: Scope) -> tuple[int, str, str, str] | None:
        """None, or (status, kind, the log's line, the answer's text)."""
        peer, path = _peer(scope), scope.get("path", "")
        what = "a WebSocket" if scope["type"] == "websocket" else "a request"
        hosts = _header(scope, b"host")
        host = split_host(hosts[0]) if len(hosts) == 1 else None
        if host is None or host not in self.hosts:
            named = "no Host" if not hosts else ("two Hosts" if len(hosts) > 1 else hosts[0])
            return (
                421,
                "host",
                f"refused {what} for {path} from {peer}: it names the host {named!r}, "
                f"which this {self.site} does not serve",
                f"This {self.site} answers to {self.hosts.words()}, not {named!r}: open it by one "
                "of those, or start it with --allow-host NAME.\n",
            )
        if scope["type"] != "websocket":
            return None
        origins = _header(scope, b"origin")
        if not origins:
            return None  # not a browser: a page always sends its origin
        origin = origins[0] if len(origins) == 1 else ""
        scheme, sep, authority = origin.partition("://")
        same = authority.lower() == hosts[0].lower()
        if len(origins) == 1 and sep and scheme in ("http", "https") and same:
            return None
        return (
            403,
            "origin",
            f"refused a WebSocket for {path} from {peer}: its page is from "
            f"{', '.join(origins)!r}, not this {self.site} ({hosts[0]})",
            f"This {self.site}'s sockets are for its own pages only.\n",
        )


async def _answer(scope: Scope, send: Send, status: int, text: str) -> None:
    """A short plain-text refusal, as HTTP or as a WebSocket handshake's answer."""
    body = text.encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    elif "websocket.http.response" in scope.get("extensions", {}):
        await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": body})
    else:  # a server without the extension answers 403 to a close before accept
        await send({"type": "websocket.close", "code": 1008})


class SecurityHeaders:
    """The ASGI middleware putting :data:`SECURITY_HEADERS` on every HTTP
    response and every refused WebSocket handshake (a route's own value of one
    of them gives way to the table's)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.http.response.start"):
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() not in _OURS]
                message = {**message, "headers": [*headers, *SECURITY_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
