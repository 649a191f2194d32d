"""``python -m litlens.cli``."""

import sys

from litlens.cli import main

sys.exit(main())
