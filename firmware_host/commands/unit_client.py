"""A blocking link to a running unit, for the command line (``history --unit``).

The unit is named by a URL: ``socket://HOST:PORT`` for TCP, or a serial
device (``/dev/ttyUSB0``, ``/dev/serial0``). pyserial opens both
(``serial_for_url``; its ``socket://`` is a TCP client); the protocol is
:class:`~firmware_host.protocol.ClientConnection`'s, so this module only
moves bytes and waits. Every failure is one
:class:`~firmware_host.people.console.CommandError` that names the unit and
what to do next.

    with UnitClient("socket://127.0.0.1:7700", token=None) as unit:
        history = unit.request("history", limit=10)
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from firmware_host.people.console import CommandError
from firmware_host.protocol import (
    ClientConnection,
    ErrorReply,
    ProtocolError,
    Reply,
    token_from_text,
)

__all__ = ["UnitClient", "read_token", "check_url", "ANSWER_TIMEOUT_S"]

#: How long the unit has to answer one request.
ANSWER_TIMEOUT_S = 10.0
_SCHEMES = "socket://HOST:PORT for TCP, or a serial device such as /dev/ttyUSB0"


def check_url(url: str) -> str:
    """``url`` if this module can open it, else CommandError saying what can be.

    >>> check_url("socket://127.0.0.1:7700"), check_url("/dev/serial0")
    ('socket://127.0.0.1:7700', '/dev/serial0')
    >>> check_url("tcp://127.0.0.1:7700")
    Traceback (most recent call last):
    ...
    firmware_host.people.console.CommandError: --unit tcp://127.0.0.1:7700: unknown scheme \
'tcp://'; give socket://HOST:PORT for TCP, or a serial device such as /dev/ttyUSB0
    """
    scheme, found, rest = url.partition("://")
    if found and scheme != "socket":
        raise CommandError(f"--unit {url}: unknown scheme '{scheme}://'; give {_SCHEMES}")
    if found:
        host, colon, port = rest.rpartition(":")
        if not (host and colon and port.isdigit() and 0 < int(port) < 65536):
            raise CommandError(
                f"--unit {url}: give socket://HOST:PORT, e.g. socket://127.0.0.1:7700"
            )
    elif not url:
        raise CommandError(f"--unit needs a unit: {_SCHEMES}")
    return url


def read_token(path: str | Path) -> str:
    """The token a ``--token-file`` holds, read as the unit reads its own."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"--token-file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CommandError(f"--token-file {path}: not a text file") from None
    try:
        return token_from_text(text, str(path))
    except ValueError as exc:
        raise CommandError(f"--token-file {exc}") from None


class UnitClient:
    """One link to the unit at ``url``: opened with ``auth`` (when ``token``
    is given) and ``hello``; :meth:`request` returns a reply's data. ``baud``
    is for a serial device. Use it as a context manager."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        token_file: str | None = None,
        baud: int = 115200,
        timeout: float = ANSWER_TIMEOUT_S,
    ):
        self.url = check_url(url)
        self.token = token
        self.token_file = token_file
        self.baud = baud
        self.timeout = timeout
        self._link: Any = None
        self._protocol = ClientConnection()
        self._replies: dict[Any, Reply | ErrorReply] = {}

    def __enter__(self) -> UnitClient:
        self.open()
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def open(self) -> None:
        import serial  # pyserial: only this command needs it

        try:
            self._link = serial.serial_for_url(self.url, baudrate=self.baud, timeout=0.1)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise CommandError(self._cannot_open(exc)) from None
        try:
            if self.token is not None:
                self.request("auth", token=self.token)
            self.request("hello")
        except BaseException:
            self.close()
            raise

    def _cannot_open(self, exc: Exception) -> str:
        text = str(exc)
        if self.url.startswith("socket://"):
            if "refused" in text.lower():
                return (
                    f"cannot connect to the unit at {self.url}: connection refused "
                    "(is the unit daemon running and listening there? see server.listen)"
                )
            return f"cannot connect to the unit at {self.url}: {text}"
        return f"cannot open the serial device {self.url}: {text}"

    def close(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            link.close()

    def request(self, cmd: str, **args) -> dict[str, Any]:
        """Send ``cmd`` and wait for its reply; the reply's data, or
        CommandError with the unit's words and what to do."""
        try:
            request_id, line = self._protocol.send_request(cmd, **args)
        except ProtocolError as exc:
            raise CommandError(exc.message) from None
        try:
            self._link.write(line)
            self._link.flush()
        except Exception as exc:  # pyserial's SerialException, or the OS's
            raise CommandError(f"the unit at {self.url} closed the link ({exc})") from None
        reply = self._wait_for(request_id, cmd)
        if isinstance(reply, ErrorReply):
            raise CommandError(self._refused(cmd, reply))
        return dict(reply.data)

    def _wait_for(self, request_id, cmd: str) -> Reply | ErrorReply:
        deadline = time.monotonic() + self.timeout
        while request_id not in self._replies:
            if time.monotonic() > deadline:
                raise CommandError(
                    f"the unit at {self.url} did not answer {cmd} within {self.timeout:g} s"
                )
            try:
                data = self._read()
            except Exception as exc:  # pyserial's SerialException, or the OS's
                raise CommandError(f"the unit at {self.url} closed the link ({exc})") from None
            for item in self._protocol.receive_data(data):
                if isinstance(item, (Reply, ErrorReply)):
                    if item.id is None:  # the unit could not read our line
                        raise CommandError(self._refused(cmd, item))
                    self._replies[item.id] = item
        return self._replies.pop(request_id)

    def _read(self) -> bytes:
        """What has come: waits up to 0.1 s for a first byte, then takes
        whatever else is there without waiting."""
        link = self._link
        data = link.read(1)
        if data:
            link.timeout = 0
            try:
                data += link.read(1 << 16)
            finally:
                link.timeout = 0.1
        return data

    def _refused(self, cmd: str, reply: ErrorReply) -> str:
        if reply.code == "unauthorized":
            if self.token is None:
                return (
                    f"the unit at {self.url} needs its token: give --token-file FILE "
                    "(the file the unit's server.token_file names)"
                )
            return f"the unit at {self.url} refused the token of {self.token_file}: {reply.message}"
        return f"the unit at {self.url} refused {cmd}: {reply.message} ({reply.code})"
