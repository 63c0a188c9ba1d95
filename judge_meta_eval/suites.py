"""The suite packages, listed once: everything that walks the suites (the presets, the one command, the listing,
the README tables, the tests of the house) reads this list.

Each entry imports its package's definitions and task registry with ordinary imports, so the test of the house's
floors sees them, and a suite that lands adds one :class:`Suite` here (and its ``inspect_ai`` entry point in
``pyproject.toml``, which inspect reads; a test holds the two to each other).

    python -m judge_meta_eval.suites

rewrites the generated tables of every suite README and lm-eval's options table from the definitions (a test fails
when one is out of date).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import adherence_tasks._registry
import adherence_tasks.definition
import coeval_tasks._registry
import coeval_tasks.definition
import dhp_tasks._registry
import dhp_tasks.definition
import fbi_tasks._registry
import fbi_tasks.definition
import grader_tasks._registry
import grader_tasks.definition
from judge_data.definitions import SuiteDefinition, readme_with_tables

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Suite:
    """One suite package: its registered tasks, its definitions, and whether the presets run it."""

    package: str
    """The package, which is also the first part of its tasks' registered names (``dhp_tasks/summeval``)."""
    registry: ModuleType
    """The module inspect's entry point imports to register the tasks; its ``__all__`` lists them."""
    definitions: tuple[SuiteDefinition, ...]
    in_presets: bool
    """Whether the presets run it (the grader suite judges the user's own grader on the user's items: no preset)."""

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
    Suite("dhp_tasks", dhp_tasks._registry, dhp_tasks.definition.DEFINITIONS, in_presets=True),
    Suite("fbi_tasks", fbi_tasks._registry, fbi_tasks.definition.DEFINITIONS, in_presets=True),
    Suite("adherence_tasks", adherence_tasks._registry, adherence_tasks.definition.DEFINITIONS, in_presets=True),
    Suite("coeval_tasks", coeval_tasks._registry, coeval_tasks.definition.DEFINITIONS, in_presets=True),
    Suite("grader_tasks", grader_tasks._registry, grader_tasks.definition.DEFINITIONS, in_presets=False),
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


def generated_blocks() -> dict[Path, dict[str, Callable[[], str]]]:
    """For each suite README, the generated blocks it holds: ``<definition>_options`` and
    ``<definition>_versions``; for lm-eval's, ``lm_eval_options``."""
    blocks: dict[Path, dict[str, Callable[[], str]]] = {}
    for suite in SUITES:
        for definition in suite.definitions:
            path = ROOT / suite.package / definition.readme
            blocks.setdefault(path, {})
            blocks[path][f"{definition.name}_options"] = definition.options_table
            blocks[path][f"{definition.name}_versions"] = definition.changelog_table
    blocks[ROOT / "lm_eval_tasks" / "README.md"] = {"lm_eval_options": lm_eval_options_table}
    return blocks


def lm_eval_options_table() -> str:
    """lm-eval's README table of the options each kind of task reads from its metadata, from the definitions."""
    rows = ["| definition | tasks | options (default) |", "|---|---|---|"]
    for definition in definitions().values():
        rows += definition.lm_eval_rows()
    return "\n".join(rows)


def main() -> None:
    """Rewrite the generated tables of every suite README (and lm-eval's options table) from the definitions."""
    for path, blocks in generated_blocks().items():
        text = path.read_text(encoding="utf-8")
        path.write_text(readme_with_tables(text, blocks), encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
