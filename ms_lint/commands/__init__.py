"""The subcommands of ``ms-lint``, one module each (see ``ms_lint.cli``)."""

# Every subcommand, and argparse for all of them, prints its errors under this one prefix.
ERROR_PREFIX = "ms-lint: error: "
