"""Whether the machine runs on battery, and the rule that holds embedding while it does.

A first embedding keeps a core busy for minutes or hours; on a laptop off its charger that is
the battery.  The live embedder looks at the battery between two batches, at most every
:data:`BATTERY_EVERY` seconds (a read of ``/sys`` on Linux), and pauses while
:func:`battery_pause` gives a reason; it goes on when the charger is back.  Where the platform
does not report a battery (a desktop, a container: ``psutil.sensors_battery()`` is ``None``),
nothing changes.  ``VAULT_EXPLORER_EMBED_ON_BATTERY=1`` keeps embedding on battery.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

import psutil

#: What the embedder says while it waits for the charger.
ON_BATTERY = "on battery"
#: Seconds between two looks at the battery (while embedding, and while paused on battery).
BATTERY_EVERY = 30.0
ENV_EMBED_ON_BATTERY = "VAULT_EXPLORER_EMBED_ON_BATTERY"

#: Tells whether the machine runs on battery: ``True``, ``False``, or ``None`` when the platform
#: does not say.
BatteryCheck = Callable[[], bool | None]


def on_battery() -> bool | None:
    """Whether the machine runs on battery now, as the platform reports it (``None``: no
    battery, or the platform does not say)."""
    try:
        battery = psutil.sensors_battery()
    except Exception:  # an odd platform or /sys: no battery is the safe reading
        return None
    if battery is None or battery.power_plugged is None:
        return None
    return not battery.power_plugged


def embed_on_battery(env: Mapping[str, str] | None = None) -> bool:
    """Whether the user asked to keep embedding on battery (``VAULT_EXPLORER_EMBED_ON_BATTERY``
    set to 1, yes, true or on)."""
    value = (os.environ if env is None else env).get(ENV_EMBED_ON_BATTERY, "")
    return value.strip().lower() in ("1", "yes", "true", "on")


def battery_pause(battery: bool | None, allowed: bool = False) -> str | None:
    """Why embedding holds for the battery (:data:`ON_BATTERY`), or ``None`` to go on: it holds
    only when the platform says it runs on battery and embedding on battery is not
    ``allowed``."""
    return ON_BATTERY if battery is True and not allowed else None
