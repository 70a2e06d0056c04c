"""The ground truth under each MindSpore release on PyPI: ``nox -s ground-truth-2.7.1`` (``nox -l`` lists them).

Each session installs that MindSpore (with ``numpy<2``) first and ms-lint's ``[validate]`` extra after it, as a
user with MindSpore already installed would, checks the extra kept the version, then runs the tests that compile
or run code with it: the ground-truth compile tests, the validator's tests, and the API tables' tests (the shipped
tables of that version must be what it gives), and the rule fixtures' tests, which must pass whatever MindSpore is
installed (the fixtures name the version they were written for). Facts that differ between versions are asserted
per version inside the tests (``tests/test_ground_truth_eager.py``: ``RUNS_AGAIN_AFTER_SET_GRAD``).
"""
from __future__ import annotations

from pathlib import Path

import nox

# Every MindSpore release on PyPI that ms-lint supports (``mindspore>=2.7``), oldest first.
MINDSPORE_VERSIONS = ("2.7.0", "2.7.1", "2.7.1.post1", "2.7.2", "2.8.0", "2.9.0", "2.10.0")
# The ground-truth compile tests (every tests/test_ground_truth*.py), the validator's and the API tables' tests, and
# the rule fixtures' (their inline expectations and snapshots).
TESTS = (*sorted(str(path) for path in Path("tests").glob("test_ground_truth*.py")), "tests/validate",
         "tests/test_generated_tables.py", "tests/test_api_versions.py", "tests/test_rules.py",
         "tests/test_rule_snapshots.py")

nox.options.sessions = ["ground-truth-2.10.0"]
nox.options.reuse_existing_virtualenvs = True


def _ground_truth(version: str):
    def session_function(session: nox.Session) -> None:
        session.install("numpy<2", f"mindspore=={version}")
        session.install("-e", ".[validate]", "pytest>=8")
        session.run("python", "-c", "import importlib.metadata as m, sys; installed = m.version('mindspore'); "
                    f"sys.exit(0 if installed == {version!r} else f'[validate] replaced MindSpore {version} with "
                    "{installed}')")
        session.run("python", "-m", "pytest", *TESTS, "-p", "no:cacheprovider", "-q", *session.posargs,
                    env={"GLOG_v": "3"})

    session_function.__doc__ = (f"the ground-truth, validator, API table and rule fixture tests under MindSpore "
                                f"{version} (CPU)")
    return session_function


for _version in MINDSPORE_VERSIONS:
    nox.session(name=f"ground-truth-{_version}", python="3.11")(_ground_truth(_version))
