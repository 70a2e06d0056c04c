"""The findings a module's own job decides by importing the module: a hazard that raises wherever its line runs
(a name this MindSpore lacks, a keyword a callee rejects), on a line importing the module runs (a module-level
import, a decorator, a class attribute).

``confirmed``: importing raised at the finding's line with the finding's kind of error (answered by a stand-in so
that the import went on, or the import's own error). ``not reproduced``: the import ran the line and nothing raised
there. ``inconclusive``: the import did not run the line (a branch, a ``try``, an earlier error), saying why.
"""
from __future__ import annotations

from ms_lint.findings import Finding
from ms_lint.validate.expectations import expectation_for, missing_name, removed_name
from ms_lint.validate.locations import same_file
from ms_lint.validate.outcome import Outcome
from ms_lint.validate.project import display_path
from ms_lint.validate.verdicts.base import CONFIRMED, INCONCLUSIVE, NOT_REPRODUCED, Verdict


def imported(job, outcome: Outcome, finding: Finding, device: str, level: str) -> Verdict:
    """The verdict of ``finding`` (a line importing ``job``'s module runs) from the import's ``outcome``."""
    module = job.location.module

    def make(verdict: str, message: str, **extra) -> Verdict:
        return Verdict(finding, verdict, message, device, level, job.target, **extra)

    expectation = expectation_for(finding.code)
    failures = list(outcome.import_failures or [])
    error = outcome.error or {}
    frames = error.get("traceback") or []
    if error.get("stage") == "import" and frames and isinstance(frames[-1], (list, tuple)):
        failures.append({"path": frames[-1][0], "line": frames[-1][1], "type": error.get("type") or "",
                         "first_line": error.get("first_line") or "", "message": error.get("message") or "",
                         "stand_in": None})
    for failure in failures:
        if failure["line"] != finding.line or not same_file(failure["path"], finding.path):
            continue
        if not expectation.error_matches(failure["type"], failure["message"]):
            return make(INCONCLUSIVE, f"importing {module} raised {failure['first_line']} at this line, which is "
                        f"not the error the finding predicts")
        went_on = f"; the import went on with a stand-in for {failure['stand_in']}" if failure["stand_in"] else ""
        return make(CONFIRMED, f"{failure['first_line']} (raised at this line while importing {module}{went_on})",
                    compiler_message=failure["first_line"], compiler_location=f"{finding.path}:{finding.line}")
    if outcome.status in ("timeout", "crashed", "out_of_memory"):
        return make(INCONCLUSIVE, f"importing {module} did not finish ({outcome.status})")
    ran = finding.line in (outcome.import_lines or ())
    stood_for = _stand_in_for(finding, outcome)
    if ran and stood_for is not None:
        first = next((failure for failure in outcome.import_failures or () if failure["stand_in"] == stood_for),
                     None)
        where = f" at {display_path(first['path'])}:{first['line']}" if first else ""
        return make(CONFIRMED, f"importing {module} ran this line, which reads {stood_for}: this MindSpore lacks it "
                    f"(importing raised {first['first_line'] if first else 'an error'} for it{where}, and a "
                    f"stand-in stood for it from there on)", compiler_message=first["first_line"] if first else None)
    if ran:
        if error:
            return make(INCONCLUSIVE, f"importing {module} ran this line, then raised {error.get('first_line')}")
        return make(NOT_REPRODUCED, f"importing {module} ran this line without error")
    if error:
        return make(INCONCLUSIVE, f"importing {module} raised {error.get('first_line')} before this line ran")
    return make(INCONCLUSIVE, f"importing {module} did not run this line (a branch or a try around it skipped it)")


def _stand_in_for(finding: Finding, outcome: Outcome) -> str | None:
    """The stand-in the import gave for the name the finding says is missing (the name itself, or the missing
    module it lies in), or None: a line that ran against a stand-in read what this MindSpore (or numpy) lacks."""
    name = missing_name(finding) or removed_name(finding)
    if not name:
        return None
    return next((stand_in for stand_in in outcome.stand_ins or ()
                 if name == stand_in or name.startswith(stand_in + ".")), None)
