"""Entry point of the packaged app: the same `litlens` command as the installed script."""

import multiprocessing
import sys

from litlens.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
