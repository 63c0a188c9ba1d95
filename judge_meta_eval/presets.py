"""Presets: named, versioned configurations of every suite, so that two judges' numbers are comparable.

A preset is data, one YAML file per preset in ``judge_meta_eval/presets/``: its name, version, what it is for, and
the tasks it runs, each with its options (``args``), the folder of its data in the shared layout (``data``, used
with ``--data-root``) and the bound on the judge's answer length (``max_tokens``). The preset's name and version go
into every log's metadata, and ``judge-report`` keeps runs of different presets or versions in different columns.
"""

from __future__ import annotations

import inspect as pyinspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from judge_data import DataError
from judge_data.definitions import PRESET_METADATA, TASK_OPTIONS
from judge_suites import PRESET_SUITES, definitions, suite_package, task_function

SUITES = PRESET_SUITES
"""The suites a preset covers, in the order they run and report."""

PRESET_KEYS = ("name", "version", "description", "budget", "tasks")
TASK_KEYS = ("task", "args", "data", "max_tokens")


@dataclass(frozen=True)
class PresetTask:
    """One task of a preset: the registered task, its options, where its data is in the shared layout."""

    task: str
    """The registered name, ``<suite>_tasks/<task>``."""
    args: Mapping[str, Any] = field(default_factory=dict)
    data: str | None = None
    """The folder of its data under ``--data-root`` (without it, the task reads its public source)."""
    max_tokens: int | None = None
    """The bound on each answer's length (tokens) the preset fixes for this task."""

    @property
    def suite(self) -> str:
        """The suite the task belongs to."""
        return self.task.split("/", 1)[0].removesuffix("_tasks")

    @property
    def scoring(self) -> str:
        """How the task obtains its ratings (``sample`` unless its options say otherwise)."""
        return str(self.args.get("scoring", "sample"))

    def label(self) -> str:
        """The task and the options that tell it apart from the preset's other runs of the same task."""
        shown = ", ".join(f"{name}={value}" for name, value in self.args.items() if name in LABEL_OPTIONS)
        return f"{self.task} ({shown})" if shown else self.task


LABEL_OPTIONS = ("scoring", "setting", "strategy", "mode", "dataset")
"""Options that name a task's variant in tables and messages."""


@dataclass(frozen=True)
class Preset:
    """A named, versioned configuration of the suites."""

    name: str
    version: int
    description: str
    budget: str
    """What a run costs, stated in requests and tokens (the dry run gives the exact numbers for a judge)."""
    tasks: tuple[PresetTask, ...]

    def metadata(self) -> dict[str, Any]:
        """What every log of the preset carries, so that runs of different presets are never compared."""
        return dict(zip(PRESET_METADATA, (self.name, self.version), strict=True))

    def for_suites(self, suites: Sequence[str]) -> tuple[PresetTask, ...]:
        """The preset's tasks of these suites, in the preset's order."""
        return tuple(task for task in self.tasks if task.suite in suites)


def preset_names() -> list[str]:
    """The presets the package ships."""
    folder = resources.files("judge_meta_eval") / "presets"
    return sorted(entry.name.removesuffix(".yaml") for entry in folder.iterdir() if entry.name.endswith(".yaml"))


def load_preset(name_or_path: str) -> Preset:
    """A shipped preset by name, or a preset file by path; a malformed file is an error naming the field."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        text, source = path.read_text(encoding="utf-8"), str(path)
    else:
        if name_or_path not in preset_names():
            raise DataError(
                f"--preset: unknown preset {name_or_path!r}; choose from {preset_names()} or give a preset file "
                "(a path ending in .yaml)"
            )
        entry = resources.files("judge_meta_eval") / "presets" / f"{name_or_path}.yaml"
        text, source = entry.read_text(encoding="utf-8"), f"preset {name_or_path}"
    return parse_preset(yaml.safe_load(text), source)


def parse_preset(document: Any, source: str) -> Preset:
    """A preset from its parsed YAML, every field checked (the tasks' options against their suite's definition)."""
    if not isinstance(document, dict):
        raise DataError(f"{source}: expected a mapping with {list(PRESET_KEYS)}")
    unknown = sorted(set(document) - set(PRESET_KEYS))
    missing = [key for key in PRESET_KEYS if key not in document]
    if unknown or missing:
        raise DataError(f"{source}: unknown fields {unknown}, missing fields {missing}")
    if not isinstance(document["version"], int) or document["version"] < 1:
        raise DataError(f"{source}: field 'version' must be a whole number from 1, got {document['version']!r}")
    if not isinstance(document["tasks"], list) or not document["tasks"]:
        raise DataError(f"{source}: field 'tasks' must be a non-empty list")
    tasks = tuple(_preset_task(entry, f"{source}, task {index}") for index, entry in enumerate(document["tasks"], 1))
    return Preset(
        str(document["name"]), document["version"], str(document["description"]), str(document["budget"]), tasks
    )


def _preset_task(entry: Any, where: str) -> PresetTask:
    if not isinstance(entry, dict) or set(entry) - set(TASK_KEYS) or "task" not in entry:
        raise DataError(f"{where}: expected a mapping with 'task' and optionally {list(TASK_KEYS[1:])}")
    suite = suite_package(str(entry["task"]).split("/", 1)[0])
    if suite is None or suite.name not in SUITES or "/" not in str(entry["task"]):
        raise DataError(f"{where}: field 'task' must be <suite>_tasks/<task>, got {entry['task']!r}")
    function = task_function(str(entry["task"]))
    if function is None:
        raise DataError(f"{where}: field 'task': {suite.package} has no task {entry['task']!r}")
    args = entry.get("args") or {}
    if not isinstance(args, dict):
        raise DataError(f"{where}: field 'args' must be a mapping of task options")
    declared = _declared_options(function)
    undeclared = sorted(set(args) - declared)
    if undeclared:
        raise DataError(f"{where}: {entry['task']} takes no option(s) {undeclared}")
    max_tokens = entry.get("max_tokens")
    if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
        raise DataError(f"{where}: field 'max_tokens' must be a whole number from 1, got {max_tokens!r}")
    return PresetTask(str(entry["task"]), dict(args), entry.get("data"), max_tokens)


def _declared_options(function: Any) -> set[str]:
    """The options a task function takes, as its definition declares them for that kind of task."""
    definition, kind = getattr(pyinspect.unwrap(function), TASK_OPTIONS)
    return set(definitions()[definition].tasks[kind].names)
