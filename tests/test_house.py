"""Checks that keep the house in order: things that are easy to let slip one file at a time."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from judge_data.definitions import REQUIRED, TASK_OPTIONS, Option, SuiteDefinition, TaskOptions, definitions
from judge_data.options import OptionError

ROOT = Path(__file__).resolve().parents[1]
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


SUITE_REGISTRIES = ("dhp_tasks._registry", "fbi_tasks._registry", "adherence_tasks._registry", "coeval_tasks._registry")
"""The modules that register every suite task with inspect."""


def test_every_task_signature_is_its_declared_options():
    """A task's signature lists exactly the options its definition binds to it, in order, with the declared defaults:
    an option declared and not in the signature (or the other way round) fails here, and one no task takes fails at
    import. So the README's table, the docstring and lm-eval's options, all generated from the definition, hold."""
    bound: dict[str, set[str]] = {}
    for module_name in SUITE_REGISTRIES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            function = inspect.unwrap(getattr(module, name))
            suite, task = getattr(function, TASK_OPTIONS, (None, None))
            assert suite is not None, f"{module_name}.{name} does not take its options from a definition"
            parameters = [(p.name, p.default) for p in inspect.signature(function).parameters.values()]
            assert parameters == list(definitions()[suite].task_defaults(task).items()), f"{module_name}.{name}"
            bound.setdefault(suite, set()).add(task)
    assert {name: set(definition.tasks) for name, definition in definitions().items()} == bound


SMALL = SuiteDefinition(
    name="small",
    title="",
    paper="",
    version=1,
    changelog={1: ""},
    options=(
        Option("n", 10, "items", minimum=1),
        Option("mode", "a", "mode", choices=("a", "b"), refused={"c": "no c"}),
    ),
    headlines=(),
    comparable_on=(),
    tasks={"main": TaskOptions(("n", "mode")), "own": TaskOptions(("mode", "n"), defaults={"n": REQUIRED})},
)


def test_a_task_gets_its_options_checked_once_over_its_defaults():
    assert SMALL.arguments("main", {"mode": "b", "other": 1}) == {"n": 10, "mode": "b"}
    assert list(SMALL.task_defaults("own").items()) == [("mode", "a"), ("n", REQUIRED)]
    with pytest.raises(OptionError, match="n must be at least 1, got 0"):
        SMALL.arguments("main", {"n": 0})
    with pytest.raises(OptionError, match=r"unknown mode 'd'; choose from \['a', 'b'\]"):
        SMALL.arguments("main", {"mode": "d"})
    with pytest.raises(OptionError, match="^no c$"):
        SMALL.arguments("main", {"mode": "c"})
    with pytest.raises(OptionError, match="needs n"):
        SMALL.arguments("own", {})


def test_an_option_no_task_takes_is_refused():
    with pytest.raises(ValueError, match=r"options \['mode'\] are declared but no task takes them"):
        SuiteDefinition(
            name="small",
            title="",
            paper="",
            version=1,
            changelog={1: ""},
            options=SMALL.options,
            headlines=(),
            comparable_on=(),
            tasks={"main": TaskOptions(("n",))},
        )
