"""The vault for an AI assistant: the Model Context Protocol server of ``vault-explorer mcp``.

:mod:`~explorer.mcp.server` has the tools and the text of each answer, on the official SDK,
:mod:`~explorer.mcp.framing` the protocol's lines on stdin (the two modules that import the
SDK); :mod:`~explorer.mcp.reader` answers the tools, reading the index through the window's
:class:`~explorer.live.reader.IndexReader`.  The command that starts it is
:mod:`explorer.commands.mcp`.
"""
