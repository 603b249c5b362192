"""The report of ``referee scenario run``: totals and a JUnit XML file for CI systems.

One ``<testcase>`` per scenario file (``classname`` is the file's folder, ``name`` the file);
a failing file has one ``<failure>`` whose text lists every mismatch found (all of them with
``--keep-going``), each with its step, line and note; a file that is not a valid scenario has
an ``<error>``.

>>> report = Report("library")
>>> report.add("scenarios/a.yaml", error="steps: expected a list of steps")
>>> report.ok, report.counts()
(False, {'tests': 1, 'failures': 0, 'errors': 1})
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from referee.scenario.model import ScenarioResult


@dataclass
class _Case:
    path: str
    result: ScenarioResult | None
    error: str | None


@dataclass
class Report:
    """Every file's outcome in one run (``mode`` is ``library`` or ``server HOST:PORT``)."""

    mode: str
    cases: list[_Case] = field(default_factory=list)

    def add(
        self, path: str, result: ScenarioResult | None = None, error: str | None = None
    ) -> None:
        self.cases.append(_Case(path, result, error))

    @property
    def ok(self) -> bool:
        return all(case.error is None and case.result and case.result.ok for case in self.cases)

    def counts(self) -> dict[str, int]:
        failures = sum(1 for c in self.cases if c.result is not None and not c.result.ok)
        errors = sum(1 for c in self.cases if c.error is not None)
        return {"tests": len(self.cases), "failures": failures, "errors": errors}

    def junit(self) -> ET.Element:
        """The report as a JUnit ``<testsuites>`` element."""
        counts = self.counts()
        suites = ET.Element("testsuites", {k: str(v) for k, v in counts.items()})
        suite = ET.SubElement(
            suites,
            "testsuite",
            {"name": f"referee scenarios ({self.mode})", **{k: str(v) for k, v in counts.items()}},
        )
        for case in self.cases:
            folder, name = os.path.split(case.path)
            element = ET.SubElement(
                suite, "testcase", {"classname": folder.replace(os.sep, ".") or ".", "name": name}
            )
            if case.error is not None:
                ET.SubElement(element, "error", {"message": case.error}).text = case.error
            elif case.result is not None and not case.result.ok:
                failures = case.result.failures
                ET.SubElement(
                    element,
                    "failure",
                    {"message": failures[0].describe(), "type": "mismatch"},
                ).text = "\n".join(failure.describe() for failure in failures)
            if case.result is not None:
                ET.SubElement(
                    element, "system-out"
                ).text = f"{case.result.steps_run} of {case.result.steps} steps ({self.mode})"
        return suites

    def write_junit(self, path: str) -> None:
        tree = ET.ElementTree(self.junit())
        ET.indent(tree)
        tree.write(path, encoding="utf-8", xml_declaration=True)


__all__ = ["Report"]
