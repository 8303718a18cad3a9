"""``python -m grader``: see grader/cli.py."""

import sys

from grader.cli import main

if __name__ == "__main__":
    sys.exit(main())
