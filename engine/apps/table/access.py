"""Who may do what at the table: the host's key, the room code, and the tries at them.

- The **host** is the page that holds the host's key: a secret made at the
  table's start (:func:`new_host_key`), saved with the room, printed only in the
  server's terminal as the host URL ``http://HOST:PORT/#host=KEY`` (a fragment:
  a browser never sends it in a request line or a Referer). A display that says
  the key in its hello is the host; any other display is a spectator.
  :class:`HostGate` checks a key, counts the wrong ones per peer and says why a
  page is not the host.
- A **phone** joins only with the room code (:func:`new_room_code`; the join URL
  ``/phone?code=ABCD`` and its QR code carry it, case-insensitive:
  :func:`clean_code`). Wrong codes are counted per peer: a few a minute, then
  every join from that peer is refused for the rest of the minute.
- :class:`Tries` counts a peer's failures in a sliding window on the room's
  injected clock; :class:`PeerLog` logs a refused peer at most once per kind
  and 10 s, with the repeats counted, so a flood cannot fill the journal.

Sans-IO: nothing here reads a clock of its own or touches a socket.

>>> clock = iter(range(0, 1000, 10)).__next__
>>> tries = Tries(clock, limit=2, window_s=60)
>>> tries.failed("10.0.0.7"); tries.failed("10.0.0.7")
>>> tries.wait_s("10.0.0.7"), tries.wait_s("10.0.0.8")
(40.0, 0.0)
>>> clean_code(" abcd "), host_url("http://10.0.0.2:8700", "KEY")
('ABCD', 'http://10.0.0.2:8700/#host=KEY')
"""

from __future__ import annotations

import collections
import functools
import logging
import math
import secrets
from collections.abc import Callable
from typing import Any

__all__ = [
    "HostGate",
    "Tries",
    "PeerLog",
    "new_host_key",
    "new_room_code",
    "clean_code",
    "host_url",
    "join_link",
    "qr_data_uri",
    "host_fields",
    "code_refusal",
    "is_room_code",
    "CODE_LETTERS",
    "HOST_ONLY",
    "WRONG_CODE",
    "NO_CODE",
    "WRONG_HOST_KEY",
    "HOST_KEY_REPLACED",
    "TRIES",
    "WINDOW_S",
]

log = logging.getLogger(__name__)

#: The room code's letters: no I or O (read aloud across a room).
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 4
#: Wrong tries (room codes, host keys) a peer has per WINDOW_S.
TRIES = 5
WINDOW_S = 60.0
#: Why a page that is not the host cannot send a host command.
HOST_ONLY = (
    "host controls need the host's key: open the host URL printed where the table was started"
)
WRONG_HOST_KEY = f"wrong host key: this display is a spectator ({HOST_ONLY})"
HOST_KEY_REPLACED = (
    "the host key was replaced: this display is a spectator now "
    "(open the new host URL printed where the table was started)"
)
WRONG_CODE = "wrong room code: it is on the display"
NO_CODE = "type the room code: it is on the display"


def new_host_key() -> str:
    """A fresh host key: 128 random bits, URL-safe (it goes in a URL fragment)."""
    return secrets.token_urlsafe(16)


def new_room_code() -> str:
    """A fresh room code: 4 letters of :data:`CODE_LETTERS`, from the OS's randomness."""
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def is_room_code(code: object) -> bool:
    """Whether ``code`` is a well-formed room code (upper case)."""
    return (
        isinstance(code, str)
        and len(code) == CODE_LENGTH
        and all(letter in CODE_LETTERS for letter in code)
    )


def clean_code(given: object) -> str:
    """A code as a phone sent it, as the room keeps it: upper case, no white space
    around; "" for anything that is not text."""
    return given.strip().upper() if isinstance(given, str) else ""


def host_url(base: str, key: str) -> str:
    """The host URL: the table's address with the key in the fragment."""
    return f"{base}/#host={key}"


def join_link(join_url: str, code: str) -> str:
    """The phones' join URL with the room code (what the display's QR carries)."""
    return f"{join_url}?code={code}" if join_url else f"/phone?code={code}"


@functools.lru_cache(maxsize=8)
def qr_data_uri(text: str) -> str:
    """``text`` as a QR code, an SVG ``data:`` URL (dark on white, so it scans on
    the display's dark page); the page shows it as an image."""
    import segno  # the table extra's; imported when a host says hello

    return segno.make(text, error="m").svg_data_uri(dark="#000", light="#fff", border=2)


def host_fields(base: str, key: str, join_url: str | None = None, code: str = "") -> dict[str, str]:
    """What the host's welcome carries (to the host alone): the host URL and its QR
    code; with the phones' ``join_url``, the room code, the join URL with it and its
    QR code."""
    url = host_url(base, key)
    fields = {"host_url": url, "host_qr": qr_data_uri(url)}
    if join_url is not None:
        join = join_link(join_url, code)
        fields.update(code=code, join_url=join, join_qr=qr_data_uri(join))
    return fields


def _said(wait_s: float) -> str:
    return f"{math.ceil(wait_s)} s"


class Tries:
    """Each peer's failures in the last ``window_s`` (on ``clock``): at ``limit``
    of them the peer waits until the oldest is ``window_s`` old. At most
    ``most_peers`` peers are remembered (the oldest forgotten first)."""

    def __init__(
        self,
        clock: Callable[[], float],
        *,
        limit: int = TRIES,
        window_s: float = WINDOW_S,
        most_peers: int = 4096,
    ):
        self.clock = clock
        self.limit = limit
        self.window_s = window_s
        self.most_peers = most_peers
        self._failed: dict[str, collections.deque[float]] = {}

    def wait_s(self, peer: str) -> float:
        """Seconds ``peer`` must wait before its next try (0.0: it may try now)."""
        times = self._failed.get(peer)
        if times is None:
            return 0.0
        now = self.clock()
        while times and times[0] <= now - self.window_s:
            times.popleft()
        if not times:
            del self._failed[peer]
            return 0.0
        if len(times) < self.limit:
            return 0.0
        return float(times[0] + self.window_s - now)

    def failed(self, peer: str) -> None:
        """``peer`` failed a try now."""
        times = self._failed.pop(peer, None)
        if times is None:
            times = collections.deque(maxlen=self.limit)
        times.append(self.clock())
        self._failed[peer] = times  # the newest last: the oldest is forgotten first
        while len(self._failed) > self.most_peers:
            del self._failed[next(iter(self._failed))]


class PeerLog:
    """Warnings about a refused peer: at most one line per kind and peer every
    ``every_s`` seconds; the repeats meanwhile are counted and said on the next."""

    def __init__(
        self,
        clock: Callable[[], float],
        logger: logging.Logger = log,
        *,
        every_s: float = 10.0,
        most: int = 4096,
    ):
        self.clock = clock
        self.logger = logger
        self.every_s = every_s
        self.most = most
        self._last: dict[tuple[str, str], tuple[float, int]] = {}

    def warn(self, kind: str, peer: str, text: str) -> None:
        key = (kind, peer)
        now = self.clock()
        last = self._last.pop(key, None)
        if last is not None and now - last[0] < self.every_s:
            self._last[key] = (last[0], last[1] + 1)
            return
        repeats = 0 if last is None else last[1]
        more = f" ({repeats} more since the last line)" if repeats else ""
        self.logger.warning("%s, from %s%s", text, peer or "an unknown peer", more)
        self._last[key] = (now, 0)
        while len(self._last) > self.most:
            del self._last[next(iter(self._last))]


class HostGate:
    """The host's key (``key``; a fresh one unless given) and the wrong tries at
    it, per peer, on ``clock``."""

    def __init__(
        self,
        clock: Callable[[], float],
        key: str | None = None,
        *,
        peer_log: PeerLog | None = None,
    ):
        self.key = key or new_host_key()
        self.tries = Tries(clock)
        self.peer_log = peer_log or PeerLog(clock)

    def check(self, given: Any, peer: str) -> tuple[bool, str | None]:
        """Whether ``given`` (a hello's ``host_key``) is the key, and what to
        tell the page when it is not (None when it gave no key at all)."""
        if given is None or given == "":
            return False, None
        wait = self.tries.wait_s(peer)
        if wait > 0:
            self.peer_log.warn("host key", peer, "A host key was refused (too many wrong ones)")
            return False, (
                f"too many wrong host keys from your address: try again in {_said(wait)}; "
                "this display is a spectator meanwhile"
            )
        if self.holds(given):
            return True, None
        self.tries.failed(peer)
        self.peer_log.warn("host key", peer, "A wrong host key was given")
        return False, WRONG_HOST_KEY

    def holds(self, key: str | None) -> bool:
        """Whether ``key`` is the key now (a page said it earlier: the key may
        have been replaced since). Counts nothing."""
        return isinstance(key, str) and secrets.compare_digest(key.encode(), self.key.encode())

    def replace(self) -> str:
        """A new key; the old one stops working at once. Returns the new one."""
        self.key = new_host_key()
        return self.key


def code_refusal(tries: Tries, peer_log: PeerLog, code: str, given: Any, peer: str) -> str | None:
    """Why a join with ``given`` is refused to ``peer`` (None: the right code):
    the peer waits after too many wrong codes; a wrong one counts."""
    wait = tries.wait_s(peer)
    if wait > 0:
        peer_log.warn("room code", peer, "A join was refused (too many wrong room codes)")
        return f"too many wrong room codes from your address: try again in {_said(wait)}"
    cleaned = clean_code(given)
    if not cleaned:
        return NO_CODE
    if secrets.compare_digest(cleaned.encode(), code.encode()):
        return None
    tries.failed(peer)
    peer_log.warn("room code", peer, "A wrong room code was given")
    return WRONG_CODE
