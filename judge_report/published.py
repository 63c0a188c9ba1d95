"""Published values beside measured ones: what a paper printed for a judge, a prompt and a metric, read from a small
JSON file (``judge-report --published FILE``) and shown next to the same judge's measured value, never ranked.

A file names its source once and lists the values::

    {"source": "where the values were printed and how they were taken from it",
     "cite": "Chhun et al., TACL 2024",
     "recipe": "how the source computed them",
     "task": "adherence_tasks/hanna",
     "settings": {"exclude_systems": ["Human"]},
     "scale": 100, "absolute": true,
     "values": [{"judge": "Beluga-13B", "prompt": "1", "metric": "system_tau/relevance", "value": 49}]}

``task`` is the task as inspect names it (or as the report names a run's task); ``settings`` the run settings
(task metadata or arguments) the values were computed under, and only runs with the same settings are compared;
``metric`` the name the suite logs. The source printed ``round(scale * value)`` (of ``|value|`` where ``absolute``),
so a value is read as ``printed / scale``, and each measured value is also shown as the source would have printed
it. A value's judge is a run's recorded judge and prompt label (the judge and prompt its judgments file gives), or,
for a value without a prompt, a live judge's model or report name. Files the package ships
(``judge_report/published/``) are named by their stem.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from judge_data import DataError
from judge_report.judges import recorded_name
from judge_report.runs import Run
from judge_report.suites import confidence_interval
from judge_report.tables import REFERENCE_PREFIX, Cell, Report, Table

PUBLISHED_TABLE = "published"

MEASURED, AS_PRINTED, PUBLISHED = "measured", "measured as printed", "published"
"""The columns of the table of published values."""

FILE_KEYS = ("source", "cite", "recipe", "task", "settings", "scale", "absolute", "values")
VALUE_KEYS = ("judge", "prompt", "metric", "value")


@dataclass(frozen=True)
class PublishedValue:
    """One printed value: the judge, its prompt label (``None``: the judge has no prompt variants), the metric as
    the suite logs it, and the number as printed."""

    judge: str
    prompt: str | None
    metric: str
    printed: float


@dataclass(frozen=True)
class Published:
    """A file of published values: its source and what the values were computed on."""

    location: str
    source: str
    cite: str
    recipe: str
    task: str
    values: tuple[PublishedValue, ...]
    settings: Mapping[str, Any] = field(default_factory=dict)
    scale: float = 1.0
    absolute: bool = False

    def value(self, entry: PublishedValue) -> float:
        """A printed value on the metric's own scale."""
        return entry.printed / self.scale

    def as_printed(self, measured: float) -> float:
        """A measured value as the source would have printed it, on the metric's scale: rounded to its precision
        (half to even) after taking the absolute value where the source printed absolute values."""
        if math.isnan(measured):
            return math.nan
        shown = abs(measured) if self.absolute else measured
        return round(shown * self.scale) / self.scale

    def describes(self, run: Run) -> bool:
        """Whether the run is of the file's task under its settings."""
        if not _same_task(self.task, run):
            return False
        return all(_same_setting(run.setting(name), wanted) for name, wanted in self.settings.items())


def _same_task(named: str, run: Run) -> bool:
    """Whether ``named`` (``adherence_tasks/hanna``) is the run's task: its registered name, or the report's name of
    it; a task run from a source tree instead of the installed package is registered without its package
    (``hanna``)."""
    registered = run.registry_name or ""
    return named in (registered, run.task) or ("/" not in registered and named.rpartition("/")[2] == registered)


def _same_setting(logged: Any, wanted: Any) -> bool:
    """A logged setting against a file's: a comma-separated text and a list of the same names are the same."""
    if isinstance(logged, list) and isinstance(wanted, str):
        wanted = [part.strip() for part in wanted.split(",")]
    return json.dumps(logged, sort_keys=True, default=str) == json.dumps(wanted, sort_keys=True, default=str)


def shipped() -> dict[str, Path]:
    """The published-values files the package ships, by name."""
    folder = resources.files("judge_report") / "published"
    return {
        entry.name.removesuffix(".json"): Path(str(entry)) for entry in folder.iterdir() if entry.name.endswith(".json")
    }


def read_published(name_or_path: str) -> Published:
    """A published-values file by path, or one the package ships by name; every field checked, an error naming the
    file, the value and the field."""
    path = Path(name_or_path).expanduser()
    if not path.is_file():
        files = shipped()
        if name_or_path not in files:
            raise DataError(
                f"--published {name_or_path}: no such file, and the package ships none of that name; its files: "
                f"{sorted(files)}"
            )
        path = files[name_or_path]
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise DataError(f"{path}: cannot read the published values ({error.strerror or error})") from error
    except json.JSONDecodeError as error:
        raise DataError(f"{path}: not valid JSON ({error.msg}, line {error.lineno})") from error
    if not isinstance(document, dict):
        raise DataError(f"{path}: expected a JSON object with the fields {list(FILE_KEYS)}")
    unknown = sorted(set(document) - set(FILE_KEYS))
    missing = [key for key in ("source", "cite", "task", "values") if key not in document]
    if unknown or missing:
        raise DataError(f"{path}: unknown field(s) {unknown}, missing field(s) {missing}")
    for key in ("source", "cite", "task"):
        if not isinstance(document[key], str) or not document[key].strip():
            raise DataError(f"{path}: field {key!r} must be a non-empty text")
    settings = document.get("settings") or {}
    scale = document.get("scale", 1)
    if not isinstance(settings, dict):
        raise DataError(f"{path}: field 'settings' must map run settings to their values")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0:
        raise DataError(f"{path}: field 'scale' must be a positive number, got {scale!r}")
    if not isinstance(document["values"], list) or not document["values"]:
        raise DataError(f"{path}: field 'values' must be a non-empty list")
    values = tuple(_value(entry, f"{path}, values[{index}]") for index, entry in enumerate(document["values"]))
    keys = [(value.judge, value.prompt, value.metric) for value in values]
    repeated = sorted({key for key in keys if keys.count(key) > 1}, key=str)
    if repeated:
        raise DataError(f"{path}: the same judge, prompt and metric twice: {repeated[:3]}")
    return Published(
        str(path),
        document["source"].strip(),
        document["cite"].strip(),
        str(document.get("recipe") or "").strip(),
        document["task"].strip(),
        values,
        settings,
        float(scale),
        bool(document.get("absolute", False)),
    )


def _value(entry: Any, where: str) -> PublishedValue:
    if not isinstance(entry, dict) or set(entry) - set(VALUE_KEYS):
        raise DataError(f"{where}: expected an object with the fields {list(VALUE_KEYS)} (prompt optional)")
    for key in ("judge", "metric"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise DataError(f"{where}: field {key!r} must be a non-empty text")
    prompt, printed = entry.get("prompt"), entry.get("value")
    if prompt is not None and (not isinstance(prompt, str) or not prompt.strip()):
        raise DataError(f"{where}: field 'prompt' must be a non-empty text or absent")
    if isinstance(printed, bool) or not isinstance(printed, (int, float)) or not math.isfinite(printed):
        raise DataError(f"{where}: field 'value' must be a number, got {printed!r}")
    return PublishedValue(entry["judge"].strip(), prompt.strip() if prompt else None, entry["metric"].strip(), printed)


def recorded_as(run: Run) -> tuple[str | None, str | None]:
    """The recorded judge and prompt label a run read, ``(None, None)`` for a live judge."""
    if run.recorded is None:
        return None, None
    prompt = run.recorded.get("prompt")
    return str(run.recorded.get("judge")), None if prompt is None else str(prompt)


def judged_by(run: Run, entry: PublishedValue, shown_as: str) -> bool:
    """Whether the run's judge is the value's: its recorded judge and prompt label, or, for a value without a
    prompt, the run's model or the name the report shows it under."""
    judge, prompt = recorded_as(run)
    if entry.prompt is not None or prompt is not None:
        return judge == entry.judge and prompt == entry.prompt
    return entry.judge in (judge, run.model, shown_as)


def published_label(published: Published, entry: PublishedValue) -> str:
    """The name of a published value's reference row: its judge as the report names it, and the source."""
    return f"{REFERENCE_PREFIX}{recorded_name(entry.judge, entry.prompt)} as published ({published.cite})"


def add_published(report: Report, files: Sequence[Published]) -> None:
    """Show each file's values beside the measured ones: a table of published against measured values (a row per
    value, judge, task and source), and the values whose metric is a column of the leaderboard or a suite table as
    reference rows of that column, next to the cell of the run they were matched to. Never ranked; notes say what
    matched nothing."""
    table = Table(
        PUBLISHED_TABLE, "Published values beside measured ones (not ranked)", ["judge", "task", "metric", "source"]
    )
    for published in files:
        described = [(run, config) for run, _, config in report.runs if published.describes(run)]
        unmatched: list[str] = []
        note = f"{published.cite}: {published.source}" + (f"; {published.recipe}" if published.recipe else "")
        for entry in published.values:
            value = published.value(entry)
            printed = Cell(value, None, math.nan, False, published.location, note=note)
            matched = [(run, config) for run, config in described if judged_by(run, entry, report.name_of(run))]
            if not matched:
                judge = recorded_name(entry.judge, entry.prompt)
                unmatched.append(f"{judge} {entry.metric}")
                table.put((judge, published.task, entry.metric, published.cite), PUBLISHED, printed)
                continue
            for run, config in matched:
                measured = run.metrics.get(entry.metric, math.nan)
                task = f"{run.task} [config {config}]" if len(report.configs[run.task]) > 1 else run.task
                row = (report.name_of(run), task, entry.metric, published.cite)
                table.put(
                    row, MEASURED, Cell(measured, confidence_interval(run, entry.metric), math.nan, False, run.location)
                )
                table.put(row, AS_PRINTED, Cell(published.as_printed(measured), None, math.nan, False, run.location))
                table.put(row, PUBLISHED, printed)
                for shown in (report.leaderboard, *report.suite_tables):
                    _beside(
                        shown, run, report.name_of(run), entry.metric, published_label(published, entry), value, note
                    )
        where = f"{published.task}" + (f" with {dict(published.settings)}" if published.settings else "")
        missing = f"; no such run for {', '.join(unmatched[:5])}{' ...' if len(unmatched) > 5 else ''}"
        report.notes.append(
            f"published values of {published.cite} ({published.location}): {len(published.values) - len(unmatched)} "
            f"of {len(published.values)} shown beside the measured values of runs of {where}"
            + (missing if unmatched else "")
        )
    if table.rows:
        report.paper_tables.append(table)


def _beside(table: Table, run: Run, judge: str, metric: str, label: str, value: float, note: str) -> None:
    """A reference row with the published value in each column of ``table`` that shows the run's value of
    ``metric``."""
    for info in table.column_info:
        cell = table.cells.get(((judge,), info.label))
        if info.metric != metric or cell is None or run.location not in cell.location.split(", "):
            continue
        row = (label,)
        if (row, info.label) not in table.cells:
            table.put(row, info.label, Cell(value, None, math.nan, False, "", note=note))
        if row not in table.references:
            table.references.append(row)
