"""``python -m streams.cli``: the ``jackpot`` command without its console script."""

import sys

from streams.cli import main

sys.exit(main())
