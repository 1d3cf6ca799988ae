"""Who the table's site answers (engine.apps.table.guard), through ASGI without a
server: a Host it does not serve is refused (421, DNS rebinding), a WebSocket
from another origin is refused before anything is read (403, on every socket of
the site, the panel's too), each refusal logged with the peer; and the security
headers are on every kind of response, the refusals included."""

from __future__ import annotations

import logging
import random

import pytest

from engine.apps.table.guard import (
    CONTENT_SECURITY_POLICY,
    SECURITY_HEADERS,
    Hosts,
    host_name,
    split_host,
)
from engine.apps.table.history_page import HistoryPage
from engine.apps.table.panel import UnitPanel
from engine.apps.table.room import Room
from engine.apps.table.server import create_app
from engine.units.unit_history import HistoryBook
from tests.asgi_helpers import Asgi
from tests.async_helpers import run_coroutine

HEADERS = {name.decode(): value.decode() for name, value in SECURITY_HEADERS}


def table(hosts: Hosts | None = None, panel: bool = True):
    room = Room(seats=2, rng=random.Random(1), code="TEST", join_url="http://127.0.0.1:8700/phone")
    addons = [HistoryPage(HistoryBook()), *([UnitPanel()] if panel else [])]
    return create_app(room, pace_s=0, addons=addons, hosts=hosts)


def gets(app, *requests):
    """Each (path, keyword arguments) GET in turn, in one lifespan."""

    async def run():
        async with Asgi(app) as site:
            return [await site.get(path, **kwargs) for path, kwargs in requests]

    return run_coroutine(run())


def handshakes(app, *requests):
    """The app's answers to WebSocket handshakes, each (path, keyword
    arguments), in one lifespan (each socket closed after)."""

    async def run():
        answers = []
        async with Asgi(app) as site:
            for path, kwargs in requests:
                socket = await site.websocket(path, **kwargs)
                if socket.accepted:
                    await socket.close()
                answers.append(socket.answer)
        return answers

    return run_coroutine(run())


def handshake(app, path="/ws", **kwargs):
    """The app's answer to one WebSocket handshake."""
    return handshakes(app, (path, kwargs))[0]


# -- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "host"),
    [
        ("127.0.0.1:8700", "127.0.0.1"),
        ("LOCALHOST:8700", "localhost"),
        ("[::1]:8700", "::1"),
        ("[::1]", "::1"),
        ("table.local", "table.local"),
        ("table.local.:80", "table.local."),
        ("evil.example:8700:1", None),
        ("[::1", None),
        ("host:port", None),
        ("", None),
        ("a b:80", None),
    ],
)
def test_a_host_header_is_read_as_a_name_and_a_port(header, host):
    assert split_host(header) == host


def test_a_name_given_to_allow_host_is_a_host_name_or_an_address():
    assert host_name("Table.LOCAL") == "table.local"
    assert host_name("::1") == "::1" and host_name("[fe80::1]") == "fe80::1"
    with pytest.raises(ValueError) as refused:
        host_name("http://table.local:8700/")
    assert str(refused.value) == (
        "'http://table.local:8700/' is not a host name or an IP address (give one like "
        "table.local, with no scheme, port or path)"
    )


def test_the_table_serves_its_addresses_localhost_and_the_names_given():
    loopback = Hosts.serving("127.0.0.1", "127.0.0.1")
    assert loopback.names == {"localhost", "127.0.0.1", "::1"}
    assert "192.168.1.5" not in loopback
    lan = Hosts.serving("0.0.0.0", "192.168.1.5", ["uno.local"])
    assert lan.names == {"localhost", "127.0.0.1", "::1", "192.168.1.5", "uno.local"}
    # Listening on every address: any address of its own (an IP cannot be rebound).
    assert "10.42.0.1" in lan and "fe80::1" in lan
    assert "evil.example" not in lan and "uno.local.evil.example" not in lan
    assert lan.words() == (
        "127.0.0.1, 192.168.1.5, ::1, localhost, uno.local and any address of this machine"
    )
    assert Hosts.serving("192.168.1.5", "192.168.1.5").names == {
        "localhost",
        "127.0.0.1",
        "::1",
        "192.168.1.5",
    }


# -- Host ------------------------------------------------------------------------------------


def test_a_request_naming_a_host_the_table_does_not_serve_is_refused_with_its_names(caplog):
    caplog.set_level(logging.WARNING)
    [(status, headers, body)] = gets(table(), ("/", {"host": "evil.example:8700"}))
    assert status == 421
    assert headers["content-type"] == "text/plain; charset=utf-8"
    assert body.decode() == (
        "This table answers to 127.0.0.1, ::1, localhost, not 'evil.example:8700': open it "
        "by one of those, or start it with --allow-host NAME.\n"
    )
    assert caplog.messages == [
        "refused a request for / from 127.0.0.1: it names the host 'evil.example:8700', "
        "which this table does not serve"
    ]


def test_a_request_with_no_host_or_two_is_refused():
    answers = gets(
        table(),
        ("/", {"host": None}),
        ("/", {"host": "127.0.0.1:8700", "headers": [("host", "evil.example")]}),
    )
    assert [status for status, _, _ in answers] == [421, 421]
    assert b"not 'no Host'" in answers[0][2] and b"not 'two Hosts'" in answers[1][2]


def test_the_names_given_and_any_address_are_served_on_the_lan():
    app = table(Hosts.serving("0.0.0.0", "192.168.1.5", ["uno.local"]))
    answers = gets(
        app,
        ("/", {"host": "uno.local:8700"}),
        ("/", {"host": "192.168.1.5:8700"}),
        ("/", {"host": "10.42.0.1:8700"}),
        ("/", {"host": "[fe80::1]:8700"}),
        ("/", {"host": "evil.example:8700"}),
    )
    assert [status for status, _, _ in answers] == [200, 200, 200, 200, 421]


# -- Origin ------------------------------------------------------------------------------------


def test_a_websocket_from_the_table_s_own_page_or_from_no_page_is_accepted():
    assert handshake(table(), headers=[("origin", "http://127.0.0.1:8700")])["type"] == (
        "websocket.accept"
    )
    assert handshake(table())["type"] == "websocket.accept"  # no Origin: not a browser
    answers = handshakes(
        table(Hosts.serving("0.0.0.0", "192.168.1.5", ["uno.local"])),
        *(
            ("/ws", {"host": host, "headers": [("origin", f"http://{host}")]})
            for host in ("uno.local:8700", "[fe80::1]:8700", "uno.local")
        ),
        # behind a reverse proxy with TLS that passes the Host on
        ("/ws", {"host": "uno.local", "headers": [("origin", "https://uno.local")]}),
    )
    assert [answer["type"] for answer in answers] == ["websocket.accept"] * 4


@pytest.mark.parametrize(
    "origins",
    [
        ["http://evil.example:8700"],
        ["http://127.0.0.1:9000"],  # another server on the same machine
        ["http://localhost:8700"],  # another name of it: another origin to the browser
        ["null"],  # a sandboxed frame, a file
        ["ws://127.0.0.1:8700"],
        ["http://127.0.0.1:8700", "http://evil.example"],
    ],
)
def test_a_websocket_from_another_origin_is_refused_before_anything_is_read(caplog, origins):
    caplog.set_level(logging.WARNING)
    answer = handshake(table(), headers=[("origin", origin) for origin in origins])
    assert answer["type"] == "websocket.http.response.start"
    assert answer["status"] == 403
    assert answer["body"] == b"This table's sockets are for its own pages only.\n"
    headers = {k.decode(): v.decode() for k, v in answer["headers"]}
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert caplog.messages == [
        f"refused a WebSocket for /ws from 127.0.0.1: its page is from {', '.join(origins)!r}, "
        "not this table (127.0.0.1:8700)"
    ]


def test_every_socket_of_the_site_is_guarded_the_panel_s_too():
    evil = [("origin", "http://evil.example")]
    assert handshake(table(), "/panel/ws", headers=evil)["status"] == 403
    assert handshake(table(), "/panel/ws", host="evil.example")["status"] == 421
    assert handshake(table(), "/panel/ws")["type"] == "websocket.accept"


def test_a_websocket_naming_a_host_the_table_does_not_serve_is_refused():
    answer = handshake(
        table(), host="evil.example:8700", headers=[("origin", "http://evil.example:8700")]
    )
    assert answer["status"] == 421


# -- headers --------------------------------------------------------------------------------


def test_every_kind_of_response_carries_the_security_headers():
    with_panel = gets(
        table(),
        ("/", {}),
        ("/phone", {}),
        ("/join", {}),
        ("/static/table.css", {}),
        ("/static/display.js", {}),
        ("/static/favicon.svg", {}),
        ("/favicon.ico", {}),
        ("/qr.svg", {}),
        ("/history", {}),
        ("/history.json", {}),
        ("/history.json?limit=0", {}),  # the add-on's own refusal
        ("/panel", {}),
        ("/no/such/page", {}),
        ("/static/nothing.css", {}),
        ("/", {"host": "evil.example"}),
    )
    [no_panel] = gets(table(panel=False), ("/panel", {}))
    statuses = [status for status, _, _ in [*with_panel, no_panel]]
    assert statuses == [200] * 10 + [400, 200, 404, 404, 421, 404]
    for status, headers, _ in [*with_panel, no_panel]:
        assert {name: headers.get(name) for name in HEADERS} == HEADERS, status
        assert "server" not in headers


def test_the_policy_allows_only_the_table_s_own_scripts_styles_images_and_sockets():
    directives = dict(
        (part.split()[0], part.split()[1:]) for part in CONTENT_SECURITY_POLICY.split("; ")
    )
    assert directives == {
        "default-src": ["'none'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "manifest-src": ["'self'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
    assert HEADERS["x-content-type-options"] == "nosniff"
    assert HEADERS["referrer-policy"] == "no-referrer"
    assert HEADERS["x-frame-options"] == "DENY"


def test_the_favicon_is_an_svg_of_the_table_s_own():
    [(status, headers, body), (_, _, linked)] = gets(
        table(), ("/favicon.ico", {}), ("/static/favicon.svg", {})
    )
    assert status == 200 and headers["content-type"] == "image/svg+xml"
    assert body == linked and body.startswith(b'<svg xmlns="http://www.w3.org/2000/svg"')


def test_allow_host_takes_names_and_refuses_a_url(capsys):
    from engine.apps.cli import build_parser

    args = build_parser().parse_args(["table", "--allow-host", "UNO.local", "--allow-host", "::1"])
    assert args.allow_host == ["uno.local", "::1"]
    with pytest.raises(SystemExit):
        build_parser().parse_args(["table", "--allow-host", "http://uno.local:8700"])
    assert capsys.readouterr().err.splitlines()[-1] == (
        "showdown table: error: argument --allow-host: 'http://uno.local:8700' is not a host "
        "name or an IP address (give one like table.local, with no scheme, port or path)"
    )
