"""The window's meaning model: the one it started with, or the one the open vault chose; its
state shown as it changes, and the results searched again when it arrives (a controller of the
main window, given what it needs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt

from explorer.display import safe_text
from explorer.embed.provider import EmbedderProvider, ModelState, shared_provider
from explorer.gui.core.model_bridge import ModelBridge
from explorer.gui.preview.around import AroundPanel
from explorer.gui.statusbar.index_status import IndexStatus, model_text
from explorer.gui.statusbar.stall import StallMonitor
from explorer.index.model_choice import chosen_model


class Models(QObject):
    """The model of ``provider`` (``fixed``: given with ``--model``, whatever a vault chose)."""

    def __init__(
        self,
        provider: EmbedderProvider,
        *,
        fixed: bool,
        data_dir: str | None,
        status: IndexStatus,
        stall: StallMonitor,
        around: AroundPanel,
        update_banner: Callable[[], None],
        refresh: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        #: The provider of a vault that has chosen no model (the one the window started with).
        self.launch = provider
        self.provider = provider
        #: The model was given with ``--model`` or the environment: vaults' choices do not apply.
        self.fixed = fixed
        self.data_dir = data_dir
        self.status = status
        self.stall = stall
        self.around = around
        self.update_banner = update_banner
        self.refresh = refresh
        self.state: ModelState | None = None
        self.bridge = self._bridge(provider)

    def _bridge(self, provider: EmbedderProvider) -> ModelBridge:
        # The model's state is reported when it changes (on the loader's thread, queued here).
        bridge = ModelBridge(provider, self)
        bridge.stateChanged.connect(self.changed, Qt.ConnectionType.QueuedConnection)
        return bridge

    def provider_for(self, vault: Path) -> EmbedderProvider:
        """The provider of the model ``vault`` has chosen, else the window's own."""
        chosen = None if self.fixed else chosen_model(vault, self.data_dir)
        if chosen is None or chosen == self.launch.name:
            return self.launch
        return shared_provider(chosen)

    def use(self, provider: EmbedderProvider) -> None:
        """Read meaning with ``provider`` from now on (a vault that chose another model)."""
        if provider is self.provider:
            return
        self.bridge.close()
        self.bridge.deleteLater()
        self.provider = provider
        self.around.model = provider.name
        self.bridge = self._bridge(provider)
        self.state = None
        self.changed()

    def changed(self, _state: ModelState | None = None) -> None:
        """The model's state changed (or may have): show it, and re-search when it arrived."""
        provider = self.provider
        state = provider.state
        if state == self.state:
            return
        previous, self.state = self.state, state
        self.stall.mark(f"model {state.value}")
        self.status.model.setText(model_text(provider))
        if provider.error and state in (ModelState.FAILED, ModelState.DISABLED):
            self.status.model.setToolTip(safe_text(provider.error))
        self.update_banner()
        if previous is not None and state in (ModelState.READY, ModelState.FAILED):
            # The model arrived (or never will): hybrid results replace the lexical ones.
            self.refresh()

    def close(self) -> None:
        self.bridge.close()
