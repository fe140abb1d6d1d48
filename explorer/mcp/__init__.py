"""The MCP server (``vault-explorer mcp``): the protocol over stdio (:mod:`explorer.mcp.server`)
and the read-only vault it answers from (:mod:`explorer.mcp.reader`).  The command that starts
it is :mod:`explorer.commands.mcp`."""
