"""The vault for an AI assistant: the Model Context Protocol server of ``vault-explorer mcp``.

:mod:`~explorer.mcp.server` speaks the protocol, on the official SDK (the only module that
imports it); :mod:`~explorer.mcp.reader` answers its tools, reading the index through the
window's :class:`~explorer.live.reader.IndexReader`.  The command that starts it is
:mod:`explorer.commands.mcp`.
"""
