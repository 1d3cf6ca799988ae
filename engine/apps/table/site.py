"""A Starlette app with the table's guard around all of it: the browser table's
site and the league's alike.

:class:`GuardedSite` puts :class:`~engine.apps.table.guard.SecurityHeaders`
and :class:`~engine.apps.table.guard.Guard` outside Starlette's own middleware
stack, so that Starlette's error responses are guarded and carry the headers
too (``add_middleware`` would put them inside its error handler).
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.types import ASGIApp

from engine.apps.table.guard import Guard, Hosts, SecurityHeaders
from engine.apps.table.limits import RefusalLog

__all__ = ["GuardedSite"]


class GuardedSite(Starlette):
    """Starlette, answering only requests for ``hosts`` (loopback by default)
    with the security headers on every answer; ``site`` is what the refusals
    call it ("table", "league"); refusals are logged through ``refusals``."""

    def __init__(
        self,
        *args,
        hosts: Hosts | None = None,
        refusals: RefusalLog | None = None,
        site: str = "table",
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.hosts = hosts or Hosts()
        self.refusals = refusals or RefusalLog()
        self.site = site

    def build_middleware_stack(self) -> ASGIApp:
        inner = super().build_middleware_stack()
        return SecurityHeaders(
            Guard(inner, hosts=self.hosts, refusals=self.refusals, site=self.site)
        )
