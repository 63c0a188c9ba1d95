"""The suite packages, listed once: everything that walks the suites (the report, the presets, the one command, the
listing, the README tables, the tests of the house) reads this list.

Each entry imports its package's definitions, report views and task registry with ordinary imports, so the test of
the house's floors sees them, and a suite that lands adds one :class:`Suite` here (and its ``inspect_ai`` entry point
in ``pyproject.toml``, which inspect reads; a test holds the two to each other).

    python -m judge_suites

rewrites the generated tables of every suite README and lm-eval's options table from the definitions (a test fails
when one is out of date).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import adherence_tasks._registry
import adherence_tasks.definition
import adherence_tasks.report
import coeval_tasks._registry
import coeval_tasks.definition
import coeval_tasks.report
import dhp_tasks._registry
import dhp_tasks.definition
import dhp_tasks.report
import fbi_tasks._registry
import fbi_tasks.definition
import fbi_tasks.report
import grader_tasks._registry
import grader_tasks.definition
import grader_tasks.report
from judge_data.definitions import SuiteDefinition
from judge_data.views import SuiteView

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Suite:
    """One suite package: its registered tasks, its definitions, what the report shows of each, and whether the
    presets run it."""

    package: str
    """The package, which is also the first part of its tasks' registered names (``dhp_tasks/summeval``)."""
    registry: ModuleType
    """The module inspect's entry point imports to register the tasks; its ``__all__`` lists them."""
    definitions: tuple[SuiteDefinition, ...]
    views: tuple[SuiteView, ...]
    """What the report shows of each definition, in the same order."""
    in_presets: bool
    """Whether the presets run it (the grader suite judges the user's own grader on the user's items: no preset)."""

    def __post_init__(self) -> None:
        if tuple(view.definition for view in self.views) != self.definitions:
            raise ValueError(f"suite {self.package}: its views do not show its definitions, one each, in order")

    @property
    def name(self) -> str:
        """The suite's name in presets and ``--suites`` (``dhp``)."""
        return self.package.removesuffix("_tasks")

    @property
    def readme(self) -> Path:
        """The suite's README."""
        return ROOT / self.package / "README.md"

    def task(self, name: str) -> Any | None:
        """The registered task function called ``name``, ``None`` when the suite has none of that name."""
        return getattr(self.registry, name) if name in self.registry.__all__ else None


SUITES = (
    Suite("dhp_tasks", dhp_tasks._registry, dhp_tasks.definition.DEFINITIONS, dhp_tasks.report.VIEWS, in_presets=True),
    Suite("fbi_tasks", fbi_tasks._registry, fbi_tasks.definition.DEFINITIONS, fbi_tasks.report.VIEWS, in_presets=True),
    Suite(
        "adherence_tasks",
        adherence_tasks._registry,
        adherence_tasks.definition.DEFINITIONS,
        adherence_tasks.report.VIEWS,
        in_presets=True,
    ),
    Suite(
        "coeval_tasks",
        coeval_tasks._registry,
        coeval_tasks.definition.DEFINITIONS,
        coeval_tasks.report.VIEWS,
        in_presets=True,
    ),
    Suite(
        "grader_tasks",
        grader_tasks._registry,
        grader_tasks.definition.DEFINITIONS,
        grader_tasks.report.VIEWS,
        in_presets=False,
    ),
)
"""Every suite package, in the order they run and report."""

PRESET_SUITES = tuple(suite.name for suite in SUITES if suite.in_presets)
"""The suites a preset covers, in the order they run (``--suites`` chooses among them)."""


def suite_package(package: str) -> Suite | None:
    """The suite whose package is called ``package``, ``None`` for any other name."""
    return next((suite for suite in SUITES if suite.package == package), None)


def task_function(registered: str) -> Any | None:
    """The task function inspect registers as ``registered`` (``dhp_tasks/summeval``), ``None`` when no suite has
    it."""
    package, _, name = registered.partition("/")
    suite = suite_package(package)
    return suite.task(name) if suite is not None else None


def definitions() -> dict[str, SuiteDefinition]:
    """Every suite definition by name."""
    return {definition.name: definition for suite in SUITES for definition in suite.definitions}


def views() -> tuple[SuiteView, ...]:
    """What the report shows of every definition, suite by suite."""
    return tuple(view for suite in SUITES for view in suite.views)
