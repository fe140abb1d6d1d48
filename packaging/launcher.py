"""Entry point of the standalone app built by ``vault-explorer.spec`` (PyInstaller).

With no arguments it opens the window (last vault, else the bundled sample vault); any
``vault-explorer`` command line works too (``launcher gui VAULT``, ``launcher search ...``).
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from explorer.entry import main

    sys.exit(main(sys.argv[1:]))
