"""The window following its live index: the status bar follows the health, the banner says what
keeps the index behind, why meaning search is not in the result and the query's notes, the
stall monitor marks the index's events (a controller of the main window, given what it
needs)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from explorer.display import safe_text
from explorer.embed.provider import EmbedderProvider
from explorer.gui.statusbar.banner import Banner, banner_text, notes_text, problem_text
from explorer.gui.statusbar.index_status import IndexStatus, model_text
from explorer.gui.statusbar.stall import StallMonitor
from explorer.live import EmbedDone, ErrorEvent, Health, LiveEvent, NoticeEvent, SyncEvent
from explorer.live.problems import Problem
from explorer.search.fusion.results import SearchResponse


class IndexFollow(QObject):
    """Shows the open vault's live index in ``status`` and ``banner``."""

    def __init__(
        self,
        status: IndexStatus,
        banner: Banner,
        stall: StallMonitor,
        *,
        provider: Callable[[], EmbedderProvider],
        mode: Callable[[], str],
        response: Callable[[], SearchResponse | None],
        settled: Callable[[], bool],
        say: Callable[[str, int], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.status = status
        self.banner = banner
        self.stall = stall
        self.provider = provider
        self.mode = mode
        self.response = response
        self.settled = settled
        self.say = say
        #: What the banner says keeps the index behind (the open index's).
        self.problem: Problem | None = None

    def live_event(self, event: LiveEvent) -> None:
        """What the window itself does with the live index's events (the flow re-searches,
        the panels and the preview follow the session, the progress bar follows the health)."""
        if isinstance(event, SyncEvent | EmbedDone):
            self.stall.mark(f"{event.kind}: {event.message}")
        if isinstance(event, ErrorEvent | NoticeEvent) and event.message:
            self.say(safe_text(event.message), 8000)

    def health_changed(self, health: Health) -> None:
        self.status.follow(health, model_text(self.provider()), settled=self.settled())
        if health.problem != self.problem:
            self.problem = health.problem
            self.update_banner()

    def closed(self) -> None:
        """The index closed: its problem is no longer the window's."""
        self.status.hide_progress()
        self.problem = None

    def banner_text(self) -> str | None:
        """What keeps the index behind, then why semantic search is not in the result, then
        the query's notes."""
        response = self.response()
        texts = [
            problem_text(self.problem) if self.problem is not None else None,
            banner_text(self.mode(), self.provider(), response),
            notes_text(response),
        ]
        return "<br>".join(t for t in texts if t) or None

    def update_banner(self) -> None:
        text = self.banner_text()
        if text:
            self.banner.show_message(text)
        else:
            self.banner.hide()
