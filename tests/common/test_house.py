"""Checks that keep the house in order: things that are easy to let slip one file at a time."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "adherence_tasks",
    "coeval_tasks",
    "dhp_tasks",
    "fbi_tasks",
    "judge_data",
    "judge_meta_eval",
    "judge_report",
    "lm_eval_tasks",
    "scorers",
    "solvers",
    "benchmarks",
    "tests",
)
PRIVATE_INSPECT = re.compile(r"^\s*(from|import)\s+inspect_ai(\.\w+)*\._", re.MULTILINE)


def test_private_inspect_names_come_from_one_module():
    """An inspect upgrade that moves a private name breaks ``judge_data/inspect_private.py`` and nothing else."""
    offenders = [
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if path.name != "inspect_private.py" and PRIVATE_INSPECT.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_package_declares_its_licence_and_ships_the_text():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert 'license = "Apache-2.0"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
