"""Checks that keep the house in order: things that are easy to let slip one file at a time."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from dataclasses import replace
from importlib.metadata import distribution
from pathlib import Path

import pytest

from judge_data.definitions import REQUIRED, TASK_OPTIONS, Option, SuiteDefinition, TaskOptions
from judge_data.options import OptionError
from judge_suites import SUITES, definitions

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    *(suite.package for suite in SUITES),
    "judge_data",
    "judge_meta_eval",
    "judge_report",
    "judge_suites",
    "lm_eval_tasks",
    "scorers",
    "solvers",
    "benchmarks",
    "tests",
)
FLOORS = (
    ("judge_data",),
    ("solvers.reading",),
    ("solvers",),
    ("scorers",),
    (*(suite.package for suite in SUITES), "lm_eval_tasks"),
    ("judge_suites",),
    ("judge_report", "judge_meta_eval"),
)
"""The floors of the house, ground first: a module imports only from its own floor or below. Shared data plumbing,
then reading the judge's answer, judge prompting, the statistics and scorers (which read what the solvers store),
the suites (each with its report view) and their lm-eval tasks, the one list of suites, and the report and the one
command. ``benchmarks`` and ``tests`` stand above."""
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


def _floor(module: str) -> int | None:
    """The floor of a module of this project (its longest named package), ``None`` for any other module."""
    floors = [
        (len(package), index)
        for index, packages in enumerate(FLOORS)
        for package in packages
        if module == package or module.startswith(f"{package}.")
    ]
    return max(floors)[1] if floors else None


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imports(path: Path) -> Iterator[str]:
    """The modules a file imports, wherever the import stands (in a function too): ``from a import b`` imports
    ``a.b`` when that is a module, else ``a``; relative imports are resolved."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]) if node.level else ""
            source = ".".join(part for part in (base, node.module or "") if part)
            for alias in node.names:
                yield f"{source}.{alias.name}" if _is_module(f"{source}.{alias.name}") else source


def test_no_import_runs_up_the_floors():
    """Reading the judge's answer once lived in ``scorers`` and three solvers imported it; the floors keep such an
    import from coming back unnoticed."""
    on_floors = {package.split(".")[0] for packages in FLOORS for package in packages}
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests"}
    assert on_floors == packages == set(PACKAGES) - {"benchmarks", "tests"}
    offenders = []
    imported_floors = set()
    for package in sorted(on_floors):
        for path in sorted((ROOT / package).rglob("*.py")):
            own = _floor(_module_name(path))
            for imported in _imports(path):
                floor = _floor(imported)
                if floor is not None and floor != own:
                    imported_floors.add(floor)
                if floor is not None and own is not None and floor > own:
                    offenders.append(
                        f"{path.relative_to(ROOT)} imports {imported} ({FLOORS[floor]} above {FLOORS[own]})"
                    )
    assert offenders == []
    assert imported_floors == set(range(len(FLOORS) - 1))  # every floor but the top one holds up another


def test_every_task_signature_is_its_declared_options():
    """A task's signature lists exactly the options its definition binds to it, in order, with the declared defaults:
    an option declared and not in the signature (or the other way round) fails here, and one no task takes fails at
    import. So the README's table, the docstring and lm-eval's options, all generated from the definition, hold."""
    bound: dict[str, set[str]] = {}
    for suite in SUITES:
        module, module_name = suite.registry, suite.registry.__name__
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
    compared_settings=(),
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
        replace(SMALL, tasks={"main": TaskOptions(("n",))})


def _calls_to_import_module(path: Path) -> Iterator[int]:
    """The lines of ``path`` that import a module by name at run time (``importlib.import_module``, ``__import__``)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("import_module", "__import__"):
                yield node.lineno


RUNTIME_IMPORTS = {"scorers/criteria_consistency.py": "the packaged embedder, a wheel of its own outside this project"}
"""The files that may import a module by name at run time, and why: never one of this project's (the floors' test
could not see it)."""


def test_no_module_of_this_project_is_imported_by_name():
    """The suites were once reached with ``importlib`` from the ground floor, an upward import the floors' test
    could not see; the list in ``judge_suites`` imports them as any module does."""
    found = {
        str(path.relative_to(ROOT)): lines
        for package in PACKAGES
        if package != "tests"
        for path in (ROOT / package).rglob("*.py")
        if (lines := list(_calls_to_import_module(path)))
    }
    assert set(found) == set(RUNTIME_IMPORTS), found


def test_every_suite_is_an_inspect_entry_point_and_has_its_report_view():
    """The one list of suites is what inspect registers, and each suite's own package shows every definition, with a
    per-item form and references of each leaderboard headline (the grader suite once lacked them, and its runs got
    no comparisons)."""
    from judge_report.suites import VIEWS

    entry_points = distribution("judge-meta-eval").entry_points.select(group="inspect_ai")
    registered = {point.name: point.value for point in entry_points if point.name.endswith("_tasks")}
    assert registered == {suite.package: suite.registry.__name__ for suite in SUITES}
    assert [view.definition for view in VIEWS] == list(definitions().values())
    for suite in SUITES:
        for view in suite.views:
            leaderboard = [headline.metric for headline in view.definition.headlines if headline.leaderboard]
            assert sorted(view.item_headlines) == sorted(leaderboard), view.name
            assert all(headline.references is not None for headline in view.item_headlines.values()), view.name


def test_lm_evals_hooks_cover_the_suites_with_lm_eval_tasks():
    """lm-eval's hooks are keyed by suite name (``lm_eval_tasks/utils.py``, beside the task files lm-eval loads); a
    suite whose definitions declare lm-eval options has hooks, and hooks belong to a suite of the one list."""
    from lm_eval_tasks.tasks import TASKS
    from lm_eval_tasks.utils import SUITES as HOOKS

    with_lm_eval = {
        suite.name
        for suite in SUITES
        for definition in suite.definitions
        if any(kind.lm_eval for kind in definition.tasks.values())
    }
    assert set(HOOKS) == with_lm_eval == {task.suite for task in TASKS.values()}


def test_a_view_shows_its_own_definition_and_headlines():
    """A view's per-item forms name leaderboard headlines of its definition, and a suite's views show its
    definitions one each, in order: a misnamed metric or a view left out fails when the suite is listed."""
    from judge_data.views import ItemHeadline, SuiteView
    from judge_suites import Suite

    with pytest.raises(ValueError, match=r"\['D_max'\] are no leaderboard headline"):
        SuiteView(SUITES[0].definitions[0], "t", ("x_",), lambda run: 1.0, item_headlines={"D_max": ItemHeadline(len)})
    dhp = SUITES[0]
    with pytest.raises(ValueError, match="its views do not show its definitions"):
        Suite(dhp.package, dhp.registry, dhp.definitions, dhp.views[:1], in_presets=True)


def test_an_option_several_suites_take_is_declared_once():
    """DHP's and FBI's ``temperature``, the graders' ``scorer`` and ``scorer_args`` and four suites' ``seed`` were
    once written out in each definition; two equal declarations must be one (``judge_data/shared_options.py``), so a
    change to its text or default cannot reach one suite and miss another."""
    declared: dict[str, list[tuple[str, Option]]] = {}
    for definition in definitions().values():
        for option in definition.options:
            declared.setdefault(option.name, []).append((definition.name, option))
    copies = [
        (name, first_suite, second_suite)
        for name, options in declared.items()
        for index, (first_suite, first) in enumerate(options)
        for second_suite, second in options[index + 1 :]
        if first == second and first is not second
    ]
    assert copies == []


def test_an_option_is_compared_unless_it_says_why_not():
    """Comparability is derived from the options: a new option keeps runs that differ in it apart until its
    declaration says why they may share a column (a forgotten ``comparable_on`` entry once mixed them silently)."""
    assert SMALL.comparable_on == ("n", "mode")
    relaxed = replace(
        SMALL,
        options=(Option("n", 10, "items", not_compared="logged as n_items"), SMALL.option("mode")),
        compared_settings=("task_version", "n_items"),
    )
    assert relaxed.comparable_on == ("task_version", "n_items", "mode")
    with pytest.raises(ValueError, match=r"\['mode'\] are options, compared unless they say why not"):
        replace(SMALL, compared_settings=("mode",))


def test_every_suite_compares_its_task_version_and_every_option_not_naming_the_judge():
    for definition in definitions().values():
        assert definition.comparable_on[0] == "task_version", definition.name
        for option in definition.options:
            assert (option.name in definition.comparable_on) != bool(option.not_compared), (definition.name, option)


def test_no_private_name_is_imported_from_another_module():
    """A name with a leading underscore is its module's own business: another module that needs it gets a public
    name (the answer readers once shared a dozen private tokens and marks)."""
    ours = tuple(package for package in PACKAGES if package not in ("benchmarks", "tests"))
    offenders = [
        f"{path.relative_to(ROOT)}: {node.module}.{alias.name}"
        for package in ours
        for path in (ROOT / package).rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ours
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert offenders == []


def test_metric_families_do_not_overlap():
    """A metric's direction is declared once, with the module that computes it (``METRIC_FAMILIES``; headlines no
    longer restate it): two families of one prefix would let the order of the modules decide."""
    from scorers.directions import FAMILIES

    prefixes = [family.prefix for family in FAMILIES]
    assert len(prefixes) == len(set(prefixes))
