"""The runtime validator: compile the Cells and jit functions that carry findings with the installed MindSpore,
on the chosen device and syntax level, and give every finding a verdict.

Layers, each depending only on the ones before it:

- ``expectations``: per code, what MindSpore does with the hazard (the one table the verdicts come from);
- ``project``: files, project roots, module import paths, ``[tool.ms-lint.validate]`` configuration;
- ``run_target``: what a run compiles for (``ms-lint check``'s target, with the device this machine has);
- ``roots``: which units reach a finding outside any (the model's answer, asked in this one place);
- ``own_examples``: the project's own examples of a Cell (docstrings, tests, scripts), found by reading;
- ``planning``: findings -> jobs (one per Cell class or jit function), with their cache keys;
- ``worker``: the worker process and its protocol (imports MindSpore once, runs many jobs in isolation);
- ``jobs``: one job through the stages ``importing`` (with ``standins`` for missing packages), ``instances`` (with
  ``capturing`` for the project's own examples, and ``building``), ``compiling``, ``probes`` and ``retrying`` (with
  ``fixing``), each filling in the job's typed ``outcome.Outcome``;
- ``pool``: worker processes with timeouts, memory limits and restarts;
- ``verdicts``: a job's outcome + the findings -> one verdict per finding, by kind of evidence;
- ``cache``: outcomes stored under ``.ms_lint_cache/`` and the incremental run log;
- ``runner`` / ``report``: the whole run, and its text/JSON output.

Nothing in this package imports MindSpore except the worker process.
"""
