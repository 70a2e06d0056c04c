"""A small library whose Cells are built by its own examples: docstrings, tests and a script."""
