"""``--format sarif``: a SARIF 2.1.0 log that GitHub code scanning accepts.

Two layers of checks. ``assert_sarif_structure`` walks the log against the objects of the OASIS SARIF 2.1.0 schema
that ms-lint writes (their allowed and required properties, types, enums and minimums, as the schema defines
them), so a misspelt or misplaced property fails. ``assert_github_requirements`` checks what GitHub's "SARIF
support for code scanning" page marks required or limits: ``$schema``, ``version``, ``runs``,
``tool.driver.name`` and ``rules``, each rule's ``id``, ``shortDescription.text``, ``fullDescription.text`` (at
most 1024 characters) and ``help.text``, each result's ``message.text`` and 1 to 10 ``locations`` with a
relative ``artifactLocation.uri`` and a full ``region``.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

from ms_lint import __version__
from ms_lint.output import SARIF_SCHEMA
from ms_lint.rules import ALL_RULES

from .support import SAMPLE_FINDINGS

_PROPERTY_BAG = {"type": "object", "bag": True}

# The SARIF 2.1.0 schema's definitions for the objects ms-lint writes: allowed properties (additionalProperties is
# false for each), the required ones, and the constraints on the values ms-lint fills in.
SCHEMA = {
    "sarifLog": {
        "properties": {"$schema": "string", "version": {"enum": ["2.1.0"]}, "runs": ["run"],
                       "inlineExternalProperties": "array", "properties": _PROPERTY_BAG},
        "required": ["version", "runs"],
    },
    "run": {
        "properties": {
            "tool": "tool", "invocations": ["invocation"], "conversion": "object", "language": "string",
            "versionControlProvenance": "array", "originalUriBaseIds": {"map_of": "artifactLocation"},
            "artifacts": "array", "logicalLocations": "array", "graphs": "array", "results": ["result"],
            "automationDetails": "object", "runAggregates": "array", "baselineGuid": "string",
            "redactionTokens": "array", "defaultEncoding": "string", "defaultSourceLanguage": "string",
            "newlineSequences": "array", "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
            "externalPropertyFileReferences": "object", "threadFlowLocations": "array", "taxonomies": "array",
            "addresses": "array", "translations": "array", "policies": "array", "webRequests": "array",
            "webResponses": "array", "specialLocations": "object", "properties": _PROPERTY_BAG,
        },
        "required": ["tool"],
    },
    "tool": {"properties": {"driver": "toolComponent", "extensions": "array", "properties": _PROPERTY_BAG},
             "required": ["driver"]},
    "toolComponent": {
        "properties": {
            "guid": "string", "name": "string", "organization": "string", "product": "string",
            "productSuite": "string", "shortDescription": "multiformatMessageString",
            "fullDescription": "multiformatMessageString", "fullName": "string", "version": "string",
            "semanticVersion": "string", "dottedQuadFileVersion": "string", "releaseDateUtc": "string",
            "downloadUri": "string", "informationUri": "string", "globalMessageStrings": "object",
            "notifications": "array", "rules": ["reportingDescriptor"], "taxa": "array", "locations": "array",
            "language": "string", "contents": "array", "isComprehensive": "boolean",
            "localizedDataSemanticVersion": "string", "minimumRequiredLocalizedDataSemanticVersion": "string",
            "associatedComponent": "object", "translationMetadata": "object", "supportedTaxonomies": "array",
            "properties": _PROPERTY_BAG,
        },
        "required": ["name"],
    },
    "reportingDescriptor": {
        "properties": {
            "id": "string", "deprecatedIds": "array", "guid": "string", "deprecatedGuids": "array",
            "name": "string", "deprecatedNames": "array", "shortDescription": "multiformatMessageString",
            "fullDescription": "multiformatMessageString", "messageStrings": "object",
            "defaultConfiguration": "reportingConfiguration", "helpUri": "string",
            "help": "multiformatMessageString", "relationships": "array", "properties": _PROPERTY_BAG,
        },
        "required": ["id"],
    },
    "reportingConfiguration": {
        "properties": {"enabled": "boolean", "level": {"enum": ["none", "note", "warning", "error"]},
                       "rank": "number", "parameters": _PROPERTY_BAG, "properties": _PROPERTY_BAG},
        "required": [],
    },
    "multiformatMessageString": {
        "properties": {"text": "string", "markdown": "string", "properties": _PROPERTY_BAG},
        "required": ["text"],
    },
    "message": {
        "properties": {"text": "string", "markdown": "string", "id": "string", "arguments": "array",
                       "properties": _PROPERTY_BAG},
        "required": [],
    },
    "invocation": {
        "properties": {
            "commandLine": "string", "arguments": "array", "responseFiles": "array", "startTimeUtc": "string",
            "endTimeUtc": "string", "exitCode": "integer", "ruleConfigurationOverrides": "array",
            "notificationConfigurationOverrides": "array", "toolExecutionNotifications": ["notification"],
            "toolConfigurationNotifications": ["notification"], "exitCodeDescription": "string",
            "exitSignalName": "string", "exitSignalNumber": "integer", "processStartFailureMessage": "string",
            "executionSuccessful": "boolean", "machine": "string", "account": "string", "processId": "integer",
            "executableLocation": "artifactLocation", "workingDirectory": "artifactLocation",
            "environmentVariables": "object", "stdin": "artifactLocation", "stdout": "artifactLocation",
            "stderr": "artifactLocation", "stdoutStderr": "artifactLocation", "properties": _PROPERTY_BAG,
        },
        "required": ["executionSuccessful"],
    },
    "notification": {
        "properties": {"locations": ["location"], "message": "message",
                       "level": {"enum": ["none", "note", "warning", "error"]}, "threadId": "integer",
                       "timeUtc": "string", "exception": "object", "descriptor": "object",
                       "associatedRule": "object", "properties": _PROPERTY_BAG},
        "required": ["message"],
    },
    "result": {
        "properties": {
            "ruleId": "string", "ruleIndex": {"integer_min": -1}, "rule": "object",
            "kind": {"enum": ["notApplicable", "pass", "fail", "review", "open", "informational"]},
            "level": {"enum": ["none", "note", "warning", "error"]}, "message": "message",
            "analysisTarget": "artifactLocation", "locations": ["location"], "guid": "string",
            "correlationGuid": "string", "occurrenceCount": "integer", "partialFingerprints": "object",
            "fingerprints": "object", "stacks": "array", "codeFlows": "array", "graphs": "array",
            "graphTraversals": "array", "relatedLocations": ["location"], "suppressions": "array",
            "baselineState": {"enum": ["new", "unchanged", "updated", "absent"]}, "rank": "number",
            "attachments": "array", "hostedViewerUri": "string", "workItemUris": "array", "provenance": "object",
            "fixes": "array", "taxa": "array", "webRequest": "object", "webResponse": "object",
            "properties": _PROPERTY_BAG,
        },
        "required": ["message"],
    },
    "location": {
        "properties": {"id": {"integer_min": -1}, "physicalLocation": "physicalLocation",
                       "logicalLocations": "array", "message": "message", "annotations": ["region"],
                       "relationships": "array", "properties": _PROPERTY_BAG},
        "required": [],
    },
    "physicalLocation": {
        "properties": {"address": "object", "artifactLocation": "artifactLocation", "region": "region",
                       "contextRegion": "region", "properties": _PROPERTY_BAG},
        "required": [],
    },
    "artifactLocation": {
        "properties": {"uri": "string", "uriBaseId": "string", "index": {"integer_min": -1},
                       "description": "message", "properties": _PROPERTY_BAG},
        "required": [],
    },
    "region": {
        "properties": {
            "startLine": {"integer_min": 1}, "startColumn": {"integer_min": 1}, "endLine": {"integer_min": 1},
            "endColumn": {"integer_min": 1}, "charOffset": {"integer_min": -1}, "charLength": {"integer_min": 0},
            "byteOffset": {"integer_min": -1}, "byteLength": {"integer_min": 0}, "snippet": "object",
            "message": "message", "sourceLanguage": "string", "properties": _PROPERTY_BAG,
        },
        "required": [],
    },
}

_JSON_TYPES = {"string": str, "boolean": bool, "integer": int, "number": (int, float), "array": list,
               "object": dict}


def _check(value, spec, where: str) -> None:
    if isinstance(spec, list):
        assert isinstance(value, list), f"{where}: expected an array"
        for position, item in enumerate(value):
            _check(item, spec[0], f"{where}[{position}]")
    elif isinstance(spec, dict) and "enum" in spec:
        assert value in spec["enum"], f"{where}: {value!r} not in {spec['enum']}"
    elif isinstance(spec, dict) and "integer_min" in spec:
        assert isinstance(value, int) and not isinstance(value, bool), f"{where}: expected an integer"
        assert value >= spec["integer_min"], f"{where}: {value} below {spec['integer_min']}"
    elif isinstance(spec, dict) and "map_of" in spec:
        assert isinstance(value, dict), f"{where}: expected an object"
        for key, item in value.items():
            _check(item, spec["map_of"], f"{where}.{key}")
    elif isinstance(spec, dict) and spec.get("bag"):
        assert isinstance(value, dict), f"{where}: a property bag is an object"
        if "tags" in value:
            tags = value["tags"]
            assert isinstance(tags, list) and all(isinstance(t, str) for t in tags), f"{where}.tags"
            assert len(set(tags)) == len(tags), f"{where}.tags must be unique"
    elif spec in SCHEMA:
        assert_sarif_structure(value, spec, where)
    else:
        expected = _JSON_TYPES[spec]
        assert isinstance(value, expected) and not (spec == "integer" and isinstance(value, bool)), (
            f"{where}: expected {spec}, got {type(value).__name__}")


def assert_sarif_structure(value, definition: str = "sarifLog", where: str = "$") -> None:
    schema = SCHEMA[definition]
    assert isinstance(value, dict), f"{where}: a {definition} is an object"
    unknown = set(value) - set(schema["properties"])
    assert not unknown, f"{where}: properties not allowed on a {definition}: {sorted(unknown)}"
    missing = [name for name in schema["required"] if name not in value]
    assert not missing, f"{where}: {definition} lacks required {missing}"
    for name, item in value.items():
        _check(item, schema["properties"][name], f"{where}.{name}")


def assert_github_requirements(log: dict) -> None:
    assert log["$schema"].endswith("sarif-schema-2.1.0.json")
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"]
    rules = driver["rules"]
    assert rules, "tool.driver.rules is required"
    ids = [rule["id"] for rule in rules]
    assert len(ids) == len(set(ids))
    for rule in rules:
        assert rule["id"]
        assert len(rule.get("name", "")) <= 255
        for description in ("shortDescription", "fullDescription"):
            assert 0 < len(rule[description]["text"]) <= 1024, (rule["id"], description)
        assert rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in {"note", "warning", "error"}
    assert "results" in run
    for result in run["results"]:
        assert result["message"]["text"]
        assert result["ruleId"] in ids
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert 1 <= len(result["locations"]) <= 10
        physical = result["locations"][0]["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        assert uri and (urlparse(uri).scheme in ("", "file")), uri
        region = physical["region"]
        for key in ("startLine", "startColumn", "endLine", "endColumn"):
            assert region[key] >= 1
        assert (region["endLine"], region["endColumn"]) > (region["startLine"], region["startColumn"])


def sarif_of(ms_lint, *args) -> tuple[int, dict]:
    run = ms_lint("check", "--isolated", "--format", "sarif", *args)
    return run.status, json.loads(run.out)


def test_sarif_log_is_valid_and_accepted_by_github(project, ms_lint):
    status, log = sarif_of(ms_lint)
    assert status == 1
    assert_sarif_structure(log)
    assert_github_requirements(log)


def test_sarif_tool_and_rules_come_from_the_registry(project, ms_lint):
    _, log = sarif_of(ms_lint)
    assert log["$schema"] == SARIF_SCHEMA
    driver = log["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"], driver["semanticVersion"]) == ("ms-lint", __version__, __version__)
    assert urlparse(driver["informationUri"]).scheme == "https"
    assert [rule["id"] for rule in driver["rules"]] == [rule.code for rule in ALL_RULES]
    for descriptor, rule in zip(driver["rules"], ALL_RULES):
        assert descriptor["name"] == rule.name
        assert descriptor["help"]["markdown"] == rule.documentation()
        assert descriptor["defaultConfiguration"]["enabled"] == rule.enabled_by_default
        assert descriptor["properties"]["autofix"] == bool(rule.autofix)


def test_sarif_results_match_the_text_report(project, ms_lint):
    _, log = sarif_of(ms_lint)
    run = log["runs"][0]
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == project.resolve().as_uri() + "/"
    assert run["invocations"][0]["executionSuccessful"] is True
    assert run["columnKind"] == "unicodeCodePoints"
    found = []
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        region = location["region"]
        assert region["startLine"] == region["endLine"]
        found.append((location["artifactLocation"]["uri"], region["startLine"], region["startColumn"],
                      result["ruleId"]))
        assert result["level"] == "error"
        assert result["properties"]["data"], "each result carries the facts of its message"
    assert found == SAMPLE_FINDINGS
    first = run["results"][0]
    assert first["properties"]["data"]["callee"] == "numpy.sin"


def test_sarif_region_spans_the_reported_expression(project, ms_lint):
    _, log = sarif_of(ms_lint, "pkg/head.py")
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    line = Path("pkg/head.py").read_text().splitlines()[region["startLine"] - 1]
    assert line[region["startColumn"] - 1:region["endColumn"] - 1] == "np.sin(self.dense(x))"


def test_sarif_columns_count_characters_not_bytes(project, ms_lint):
    model = project / "pkg" / "model.py"
    model.write_text(model.read_text().replace("        y = np.sin(x)", '        é = "ü"; y = np.sin(x)'))
    _, log = sarif_of(ms_lint, "pkg/model.py")
    text = ms_lint("check", "--isolated", "pkg/model.py")
    (ms101,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "MS101"]
    region = ms101["locations"][0]["physicalLocation"]["region"]
    line = model.read_text().splitlines()[region["startLine"] - 1]
    assert line[region["startColumn"] - 1:].startswith("np.sin(x)")
    (text_column,) = [column for _, _, column, code in text.findings() if code == "MS101"]
    assert text_column == len(line[: region["startColumn"] - 1].encode()) + 1


def test_sarif_uri_is_percent_encoded_relative_path(project, ms_lint):
    (project / "my models").mkdir()
    shutil.copy(project / "pkg" / "model.py", project / "my models" / "net 1.py")
    _, log = sarif_of(ms_lint, "my models")
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"my%20models/net%201.py"}
    assert unquote(uris.pop()) == "my models/net 1.py"


def test_sarif_file_outside_the_working_directory_gets_an_absolute_file_uri(project, ms_lint, tmp_path):
    outside = tmp_path / "elsewhere.py"
    shutil.copy(project / "pkg" / "model.py", outside)
    _, log = sarif_of(ms_lint, str(outside))
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": outside.resolve().as_uri()}
    assert_sarif_structure(log)


def test_sarif_without_findings_is_still_a_complete_log(project, ms_lint):
    status, log = sarif_of(ms_lint, "pkg/clean.py")
    assert status == 0
    assert log["runs"][0]["results"] == []
    assert_sarif_structure(log)
    assert_github_requirements(log)


def test_sarif_records_files_that_could_not_be_read(project, ms_lint):
    (project / "pkg" / "gone.py").symlink_to(project / "nowhere.py")
    run = ms_lint("check", "--isolated", "--format", "sarif")
    assert run.status == 2
    log = json.loads(run.out)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "gone.py" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    assert_sarif_structure(log)
