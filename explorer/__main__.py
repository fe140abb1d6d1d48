"""``python -m explorer`` is the ``vault-explorer`` command."""

import sys

from explorer.cli import main

sys.exit(main())
