"""``python -m explorer`` is the ``vault-explorer`` command."""

import sys

from explorer.entry import main

sys.exit(main())
