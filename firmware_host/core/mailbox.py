"""A queue that a thread waits on with ``select``, next to other files.

:meth:`Mailbox.put` adds an item and writes one byte to a pipe, so a
``select`` on the mailbox returns. It never blocks (a full pipe means the
reader is awake already), so the unit's loop thread can put without ever
waiting for a reader, and so can any other thread.

The pipe's write end can be given to :func:`signal.set_wakeup_fd`: the
interpreter's own C-level handler then writes each signal's number there, and
:meth:`Mailbox.take` returns it as a :class:`signal.Signals`. This is what
makes a signal reliable for a thread that blocks: a Python-level handler runs
only when the main thread next executes Python code, so a signal that lands
just before the main thread blocks (or that the kernel hands to another
thread) would otherwise go unseen until something else woke it.

>>> box = Mailbox()
>>> box.put("hello"); box.wait(0)
True
>>> box.take(), box.wait(0)
(['hello'], False)
>>> box.close()
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import signal

__all__ = ["Mailbox"]


class Mailbox:
    """Items from any thread (and signals, see :attr:`wakeup_fd`) for one
    reader thread, which waits with :meth:`wait` or ``select([mailbox])``."""

    def __init__(self):
        self._items: queue.SimpleQueue = queue.SimpleQueue()
        self._read, self._write = os.pipe()
        for fd in (self._read, self._write):
            os.set_blocking(fd, False)
        self._stop_requested = False

    def fileno(self) -> int:
        """Readable while something is waiting to be taken."""
        return self._read

    @property
    def wakeup_fd(self) -> int:
        """The write end, for :func:`signal.set_wakeup_fd` (non-blocking)."""
        return self._write

    def put(self, item) -> None:
        """Add ``item`` and wake the reader; never blocks."""
        self._items.put(item)
        self._poke()

    def request_stop(self) -> None:
        """Ask the reader to finish (see :attr:`stop_requested`)."""
        self._stop_requested = True
        self._poke()

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def wait(self, timeout: float | None = None) -> bool:
        """Block until something can be taken (True) or ``timeout`` passes."""
        return bool(select.select([self._read], [], [], timeout)[0])

    def take(self) -> list:
        """Everything waiting, oldest first: the signals noted on the pipe
        (as :class:`signal.Signals`), then the items put."""
        taken = []
        with contextlib.suppress(BlockingIOError, OSError):
            while chunk := os.read(self._read, 512):
                taken += [_signal(byte) for byte in chunk if byte]
        while True:
            try:
                taken.append(self._items.get_nowait())
            except queue.Empty:
                return taken

    def close(self) -> None:
        """Close the pipe; safe to call twice."""
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._read = self._write = -1

    def _poke(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._write, b"\0")


def _signal(number: int):
    try:
        return signal.Signals(number)
    except ValueError:  # a real-time signal has no name
        return number
