"""The model's state seen from the GUI thread: its changes as a Qt signal.

:class:`~explorer.embed.provider.EmbedderProvider` reports a change on the thread that makes it
(the model loader's); the bridge re-emits it through a signal of a ``QObject`` that lives in the
GUI thread, so the slots run there (queued).  The window reads the state when told, instead of
asking every few hundred milliseconds.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from explorer.embed.provider import EmbedderProvider, ModelState


class ModelBridge(QObject):
    """Follows one provider's state for as long as it lives (or until :meth:`close`)."""

    stateChanged = Signal(object)  # ModelState, on the GUI thread

    def __init__(self, provider: EmbedderProvider, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.provider = provider
        self._closed = False
        unsubscribe = provider.subscribe(self._on_state)
        self._unsubscribe = unsubscribe
        # The provider is shared by the process and outlives windows: never call a deleted one.
        self.destroyed.connect(lambda *_: unsubscribe())

    def _on_state(self, state: ModelState) -> None:
        # Called on the thread that changed the state: only emit (queued to the GUI thread).
        if not self._closed:
            self.stateChanged.emit(state)

    def close(self) -> None:
        self._closed = True
        self._unsubscribe()
