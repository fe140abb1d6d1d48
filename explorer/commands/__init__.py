"""The commands of ``vault-explorer``, one module each (``index``, ``search``, ``explain``,
``compare``, ``status``, ``watch``, ``related``, ``eval``, ``bench``, ``mcp``, ``gui``), each
with its ``register(sub, common)``; what they share is in :mod:`explorer.commands.common`, and
:mod:`explorer.commands.program` puts them in one parser."""
