"""The commands of ``vault-explorer``, one module each (``index``, ``search``, ``explain``,
``compare``, ``status``, ``watch``, ``related``, ``eval``, ``bench``, ``mcp``, ``gui``), each
with its ``register(sub, common)``; what they share is in :mod:`explorer.commands.common`, and
:mod:`explorer.commands.program` puts them in one parser.

Every command is imported to build the parser, so a command module imports at its top only what
its options need (argparse, the search settings, bounds and names) and what a command that a
running ``watch`` answers needs to ask it (:mod:`explorer.commands.warm`); what a command runs —
the model, numpy, the search, the index's writer, the evaluation — it imports in the function
that runs it.  A search answered warm then starts no faster than this lets it
(``tests/commands/test_program.py``, ``tests/commands/test_warm.py`` list what it may load)."""
