"""What defines a suite, declared once: its task version, its options, its headline metrics and what makes two of
its runs comparable.

Each suite package holds one :class:`SuiteDefinition` (``<suite>_tasks/definition.py``). Its inspect tasks take
their option defaults from it and check their options with it before any data is read; lm-eval's task files and
hooks take the same defaults from it; ``judge-report`` takes the headlines and the comparability settings from it;
and the options table in the suite's README is generated from it (``python -m judge_suites``, which lists
the suites, rewrites the tables; a test fails when one is out of date).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from judge_data.options import OptionError

ALL = "all"
"""The README's word for an option whose default, ``None``, means every item, criterion or category."""

REQUIRED: Any = inspect.Parameter.empty
"""A task's own default for an option it cannot do without (``custom``'s ``data_dir``): its signature has none."""

TASK_OPTIONS = "__suite_task_options__"
"""The attribute :meth:`SuiteDefinition.takes` sets on a task function: ``(definition name, task options name)``."""

LOGGED_AS_SOURCE = "where the data came from is compared as the logged `source`"
"""An option that chooses the data: the task logs where it came from as ``source``, compared instead."""

LOGGED_AS_N_ITEMS = "how many items are judged is compared as the logged `n_items`"
"""An option that bounds the items: the task logs how many it judged as ``n_items``, compared instead."""

HOW_THE_JUDGE_IS_SAMPLED = "how the judge is sampled: this suite keeps it with the judge, not the column"
"""A sampling setting a suite has kept with the judge rather than the column: DHP's ``repeats`` and the
``temperature`` of DHP, FBI and adherence. The suites differ here (adherence compares ``repeats``, CoEval
``temperature``); making them agree would move runs between columns, so it waits for a task version."""

NAMES_THE_GRADER = "it names the grader under test, which the report sets beside the others"
"""A grader task's scorer and its arguments: they are the judge under test."""

TaskFunction = TypeVar("TaskFunction", bound=Callable[..., Any])


@dataclass(frozen=True)
class Option:
    """One task option (``-T name=value``): its default, what it means, and what values it takes.

    Every option is recorded in a run's log with its value, defaults included: inspect's ``task_args`` (the test
    support checks it for every run the tests make) and, for lm-eval, the task's metadata for those
    :attr:`TaskOptions.lm_eval` names. The report reads a setting from the task metadata, then from ``task_args``, so
    no option is copied into the metadata to be compared or seen; the metadata holds what a task derived from its
    options (``source``, ``n_items``, the chosen perturbations)."""

    name: str
    default: Any
    doc: str
    choices: tuple[Any, ...] = ()
    """The values it takes, where they are a fixed few (the README lists them; any other is an error)."""
    minimum: float | None = None
    """The least value of a count (``n``, ``repeats``); ``None`` (the default meaning "all") is always allowed."""
    maximum: float | None = None
    """The greatest value, where there is one (a probability's 1)."""
    shown_default: str | None = None
    """How the README shows the default, where the value alone would not say it (``None`` meaning "all")."""
    refused: Mapping[Any, str] = field(default_factory=dict)
    """Values refused with a message of their own (a value that moved to another option)."""
    label: str | None = None
    """What an unknown value is called in the error, where the option's name alone would not say it."""
    not_compared: str = ""
    """Why two runs that differ in this option may share a report column, where they may (it names the judge under
    test, or a logged setting such as ``n_items`` stands for it). Empty, the default: they may not, so an option
    added without a thought keeps runs apart rather than mixing numbers that are not comparable."""

    def check(self, value: Any) -> None:
        """Refuse a value outside :attr:`choices` or :attr:`minimum`-:attr:`maximum`, naming the option and what it
        takes."""
        for refused, message in self.refused.items():
            if value == refused:
                raise OptionError(message)
        if self.choices and value not in self.choices:
            raise OptionError(f"unknown {self.label or self.name} {value!r}; choose from {list(self.choices)}")
        below = self.minimum is not None and value is not None and value < self.minimum
        above = self.maximum is not None and value is not None and value > self.maximum
        if below or above:
            raise OptionError(f"{self.name} must be {self.range_text}, got {value}")

    @property
    def range_text(self) -> str:
        """The values a number may take, as the error says them."""
        if self.minimum is not None and self.maximum is not None:
            return f"from {self.minimum:g} to {self.maximum:g}"
        if self.minimum is not None:
            return f"at least {self.minimum:g}"
        return f"at most {self.maximum:g}"

    @property
    def default_text(self) -> str:
        """The default as the README shows it."""
        if self.shown_default is not None:
            return self.shown_default
        return "none" if self.default is None else f"`{self.default}`"


@dataclass(frozen=True)
class TaskOptions:
    """The ``-T`` options one kind of task takes, in its signature's order: the definition checks them, documents
    them and hands them to the task's builder; the test of the house holds each signature to them."""

    names: tuple[str, ...]
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """Defaults the task sets itself over its option's (``REQUIRED`` where it has none); the option's doc or shown
    default names them."""
    docs: Mapping[str, str] = field(default_factory=dict)
    """What an option means for this task, where it differs from the option's doc."""
    lm_eval: tuple[str, ...] = ()
    """The options lm-eval's version of the task reads from its metadata (the rest are lm-eval's own settings or
    part of the lm-eval task's name)."""


@dataclass(frozen=True)
class Headline:
    """A metric shown first; which way is better is declared with the metric, in its scorers module
    (``METRIC_FAMILIES``, read through :mod:`scorers.directions`)."""

    metric: str
    """The metric's name, or a regular expression for a family of names (``pearson/group/.+``)."""
    leaderboard: bool = True
    """Whether ``judge-report`` gives it a leaderboard column (one per kind of run, its mean over the suite's
    tasks); every headline leads the suite's own table, task by task."""

    def matches(self, name: str) -> bool:
        """Whether ``name`` is this headline or one of its family."""
        return re.fullmatch(self.metric, name) is not None


@dataclass(frozen=True, eq=False)
class SuiteDefinition:
    """One suite: its name, paper, task version (with its changelog), options, headlines and comparability.

    Each definition exists once, so it compares and hashes by identity (its changelog is a mapping)."""

    name: str
    title: str
    paper: str
    version: int
    changelog: Mapping[int, str]
    """What each task version changed, newest last; the suite's README lists it."""
    options: tuple[Option, ...]
    headlines: tuple[Headline, ...]
    compared_settings: tuple[str, ...]
    """Logged settings that are no option (``task_version``, ``source``, ``n_items``) and must agree for two runs to
    share a column; the options are compared unless they say why not (:attr:`Option.not_compared`)."""
    tasks: Mapping[str, TaskOptions] = field(default_factory=dict)
    """Each kind of task and the options it takes; every declared option is taken by one of them."""
    readme: str = "README.md"
    _by_name: dict[str, Option] = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        names = [option.name for option in self.options]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"suite {self.name}: options {duplicates} are declared twice")
        if max(self.changelog, default=None) != self.version:
            raise ValueError(f"suite {self.name}: version {self.version} has no changelog entry")
        self._by_name.update((option.name, option) for option in self.options)
        taken = {name for task in self.tasks.values() for name in task.names}
        settings_named_as_options = sorted(set(self.compared_settings) & set(names))
        if settings_named_as_options:
            raise ValueError(
                f"suite {self.name}: {settings_named_as_options} are options, compared unless they say why not; "
                "compared_settings lists the logged settings that are no option"
            )
        unknown = sorted(taken - set(names))
        if unknown:
            raise ValueError(f"suite {self.name}: tasks take undeclared options {unknown}")
        untaken = [name for name in names if name not in taken]
        if self.tasks and untaken:
            raise ValueError(f"suite {self.name}: options {untaken} are declared but no task takes them")

    @property
    def comparable_on(self) -> tuple[str, ...]:
        """Run settings (task metadata, then task arguments) that must agree for two runs to share a column: the
        compared settings, then every option but those that say why they need not."""
        return (*self.compared_settings, *(option.name for option in self.options if not option.not_compared))

    def option(self, name: str) -> Option:
        """The option called ``name`` (a ``KeyError`` names a typo in a task signature at import time)."""
        return self._by_name[name]

    def default(self, name: str) -> Any:
        """The default of one option, for a task signature: ``n: int = DHP.default("n")``."""
        return self.option(name).default

    def defaults(self, names: Iterable[str]) -> dict[str, Any]:
        """The defaults of several options, for lm-eval's options of a task."""
        return {name: self.default(name) for name in names}

    @property
    def default_values(self) -> Mapping[str, Any]:
        """Every option's default by name, for task signatures: ``n: int = DEFAULTS["n"]``."""
        return {option.name: option.default for option in self.options}

    def check(self, **values: Any) -> None:
        """Check every given option against its declared choices and minimum; call before any data is read."""
        for name, value in values.items():
            self.option(name).check(value)

    def task_defaults(self, task: str) -> dict[str, Any]:
        """The options of one kind of task with its defaults, in its signature's order: ``DEFAULTS["n"]``."""
        spec = self.tasks[task]
        return {name: spec.defaults.get(name, self.default(name)) for name in spec.names}

    def lm_eval_defaults(self, task: str) -> dict[str, Any]:
        """The options lm-eval's version of a kind of task reads from its metadata, with their defaults."""
        defaults = self.task_defaults(task)
        return {name: None if defaults[name] is REQUIRED else defaults[name] for name in self.tasks[task].lm_eval}

    def arguments(self, task: str, given: Mapping[str, Any]) -> dict[str, Any]:
        """The options of one kind of task, checked once, for its builder: the values ``given`` (a task function's
        ``locals()``, or lm-eval's choices) over the task's defaults, each checked against its declaration."""
        values = {name: given.get(name, default) for name, default in self.task_defaults(task).items()}
        missing = [name for name, value in values.items() if value is REQUIRED]
        if missing:
            raise OptionError(f"{self.name} {task} needs {', '.join(missing)}")
        self.check(**values)
        return values

    def takes(self, task: str, **fields: str) -> Callable[[TaskFunction], TaskFunction]:
        """Decorate a task function (under ``@task``) that takes one kind of task's options: its docstring, a one-line
        summary (``fields`` fill its ``{name}`` fields), gets an ``Args`` entry per option from the declarations."""

        def document(function: TaskFunction) -> TaskFunction:
            spec = self.tasks[task]
            summary = " ".join((function.__doc__ or "").split()).format(**fields)
            function.__doc__ = self.docstring(summary, spec.names, spec.docs)
            setattr(function, TASK_OPTIONS, (self.name, task))
            return function

        return document

    def docstring(self, summary: str, names: Sequence[str], extra: Mapping[str, str] | None = None) -> str:
        """A task's docstring: ``summary`` and an ``Args`` entry per option (``extra`` overrides a doc)."""
        lines = [summary, "", "Args:"]
        for name in names:
            doc = (extra or {}).get(name) or self.option(name).doc
            lines.append(f"    {name}: {doc}")
        return "\n".join(lines) + "\n"

    def options_table(self) -> str:
        """The README's options table: name, default, allowed values and meaning of every option."""
        rows = ["| option | default | values | meaning |", "|---|---|---|---|"]
        for option in self.options:
            values = ", ".join(f"`{choice}`" for choice in option.choices) if option.choices else ""
            doc = option.doc.replace("|", "\\|").replace("\n", " ")
            rows.append(f"| `{option.name}` | {option.default_text} | {values} | {doc} |")
        return "\n".join(rows)

    def lm_eval_rows(self) -> list[str]:
        """Rows of lm-eval's options table: per kind of task, the options lm-eval's version reads, with defaults."""
        rows = []
        for task, spec in self.tasks.items():
            if not spec.lm_eval:
                continue
            defaults = self.task_defaults(task)
            shown = []
            for name in spec.lm_eval:
                option = self.option(name)
                if defaults[name] is REQUIRED:
                    default = "required"
                elif defaults[name] == option.default and name not in spec.docs:
                    default = option.default_text
                else:
                    default = (
                        (ALL if name not in spec.docs else "none") if defaults[name] is None else f"`{defaults[name]}`"
                    )
                shown.append(f"`{name}` ({default})")
            rows.append(f"| {self.name} | {task} | {', '.join(shown)} |")
        return rows

    def changelog_table(self) -> str:
        """The README's changelog of task versions."""
        rows = ["| version | what changed |", "|---|---|"]
        rows += [f"| {version} | {text} |" for version, text in sorted(self.changelog.items())]
        return "\n".join(rows)


PRESET_METADATA = ("preset", "preset_version")
"""The log metadata keys naming the ``judge-meta-eval`` preset a run belongs to: runs of different presets (or
versions of one) are never compared, whatever their suite's settings."""

_GENERATED = re.compile(r"(<!-- generated: (\w+) -->\n)(?:.*?\n)?(<!-- end of generated \2 -->)", re.DOTALL)


def readme_with_tables(text: str, definitions_by_block: Mapping[str, Callable[[], str]]) -> str:
    """``text`` with every ``<!-- generated: NAME -->`` block replaced by what ``definitions_by_block[NAME]`` gives."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in definitions_by_block:
            raise KeyError(f"no generated block called {name!r}")
        return f"{match.group(1)}{definitions_by_block[name]()}\n{match.group(3)}"

    return _GENERATED.sub(fill, text)
