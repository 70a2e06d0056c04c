"""``python -m ms_lint``: the ``ms-lint`` command, as ``python -m flake8`` is flake8's."""
import sys

from ms_lint.cli import main

if __name__ == "__main__":
    sys.exit(main())
