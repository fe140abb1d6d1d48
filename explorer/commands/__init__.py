"""The commands of ``vault-explorer``, one module each, each with its ``register(sub, common)``
(the convention of :mod:`explorer.watch_cli` and :mod:`explorer.related_cli`, which move here
in time); :mod:`explorer.entry` puts them together."""
