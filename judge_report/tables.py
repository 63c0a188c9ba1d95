"""The leaderboard and the papers' tables, built from runs: one row per judge, one column per comparable setting.

Runs of one task whose settings differ (data source, items, seed, perturbations, scoring mode, ...) never share a
column: each distinct setting gets its own ``config`` number, and a note names the settings that differ.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from judge_data.definitions import PRESET_METADATA
from judge_report.runs import Run
from judge_report.suites import SuiteView, confidence_interval, suite_of

DEFAULT_PARSE_FAILURE_FLAG = 0.1
"""Cells of runs whose share of unparsable judge answers exceeds this are flagged."""


@dataclass(frozen=True)
class Cell:
    """One value of a table with what qualifies it: its interval, its run's unparsed answers, where it came from."""

    value: float
    ci: tuple[float, float] | None
    parse_failure_rate: float
    flagged: bool
    location: str
    unparsed: tuple[float, float] = (math.nan, math.nan)
    """``(answers that did not parse, answers asked for)`` in the cell's run."""
    pooled: int | None = None
    """How many values a pooled cell is the mean of (``None``: one run's metric)."""

    def text(self, digits: int = 3) -> str:
        """The value as shown: with its interval, the number of pooled values and the unparsed-answers flag."""
        shown = "n/a" if math.isnan(self.value) else f"{self.value:.{digits}f}"
        if self.ci is not None and not any(math.isnan(bound) for bound in self.ci):
            shown += f" [{self.ci[0]:.{digits}f}, {self.ci[1]:.{digits}f}]"
        if self.pooled is not None:
            shown += f" (n={self.pooled})"
        return shown + (f" ⚠ {self.flag_text()}" if self.flagged else "")

    def flag_text(self) -> str:
        """``12% unparsed (31 of 250)``: the share of the run's answers that did not parse, and the count."""
        failures, answers = self.unparsed
        count = "" if math.isnan(failures) or math.isnan(answers) else f" ({failures:g} of {answers:g})"
        return f"{self.parse_failure_rate:.0%} unparsed{count}"


@dataclass(frozen=True)
class Column:
    """A leaderboard column: one headline metric of one task under one comparable setting."""

    suite: str
    task: str
    config: int
    metric: str
    higher_is_better: bool
    several_configs: bool

    @property
    def label(self) -> str:
        """The column's header."""
        return f"{self.task}{self.config_tag} {self.metric}"

    @property
    def config_tag(self) -> str:
        """`` [config N]`` when the task has several settings that are not comparable, else nothing."""
        return f" [config {self.config}]" if self.several_configs else ""


@dataclass
class Table:
    """A grid of cells: ``index`` names the leading label columns, ``rows`` their values, ``columns`` the rest."""

    name: str
    title: str
    index: list[str]
    rows: list[tuple[str, ...]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    cells: dict[tuple[tuple[str, ...], str], Cell] = field(default_factory=dict)
    column_info: list[Column] = field(default_factory=list)

    def put(self, row: tuple[str, ...], column: str, cell: Cell) -> None:
        """Fill one cell; a cell holds one value, and a second one for it is an error, never a silent overwrite."""
        if (row, column) in self.cells:
            raise ValueError(
                f"{self.name}: the cell ({', '.join(row)}; {column}) already holds the value of "
                f"{self.cells[(row, column)].location}; {cell.location} would replace it"
            )
        if row not in self.rows:
            self.rows.append(row)
        if column not in self.columns:
            self.columns.append(column)
        self.cells[(row, column)] = cell


@dataclass
class Report:
    """Everything the report writes: the leaderboard, the paper tables, the runs it reports and the notes."""

    leaderboard: Table
    paper_tables: list[Table]
    runs: list[tuple[Run, SuiteView, int]]
    """Each run reported, its suite and its config number within its task."""
    configs: dict[str, list[dict]]
    """Per task, the settings of each config (index = config number - 1)."""
    notes: list[str]


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def comparability_key(run: Run, view: SuiteView) -> dict:
    """The settings two runs of a task must share to be compared in one column: the suite's, and the preset (name
    and version) a ``judge-meta-eval`` run belongs to."""
    settings = {name: run.setting(name) for name in view.comparable_on}
    if isinstance(settings.get("perturbations"), dict):
        settings["perturbations"] = sorted(settings["perturbations"])
    if isinstance(settings.get("criteria"), dict):
        settings["criteria"] = sorted(settings["criteria"])
    presets = {name: run.setting(name) for name in PRESET_METADATA if run.setting(name) is not None}
    return {**settings, **presets, "limit": run.limit, "epochs": run.epochs}


def build_report(runs: Sequence[Run], parse_failure_flag: float = DEFAULT_PARSE_FAILURE_FLAG) -> Report:
    """The report of these runs: comparable runs share columns, the latest run of a judge and setting wins."""
    notes: list[str] = []
    configs: dict[str, list[dict]] = {}
    chosen: dict[tuple[str, int, str], tuple[Run, SuiteView]] = {}
    for run in sorted(runs, key=lambda run: run.created):
        notes.extend(run.notes)
        view = suite_of(run)
        if view is None:
            notes.append(f"{run.location}: task {run.task} belongs to no suite the report knows; left out")
            continue
        key = comparability_key(run, view)
        task_configs = configs.setdefault(run.task, [])
        if key not in task_configs:
            task_configs.append(key)
        slot = (run.task, task_configs.index(key) + 1, run.judge)
        if slot in chosen:
            notes.append(
                f"{run.task}: {run.judge} has several comparable runs; the latest ({run.location}) is reported, "
                f"not {chosen[slot][0].location}"
            )
        chosen[slot] = (run, view)
    for task, task_configs in configs.items():
        if len(task_configs) > 1:
            differing = sorted(
                name for name in task_configs[0] if len({_canonical(config.get(name)) for config in task_configs}) > 1
            )
            notes.append(
                f"{task}: {len(task_configs)} settings that are not comparable (they differ in "
                f"{', '.join(differing)}); each has its own columns, marked [config N]"
            )
    reported = [(run, view, config) for (_, config, _), (run, view) in chosen.items()]

    def cell(run: Run, view: SuiteView, metric: str) -> Cell:
        rate = view.parse_failure_rate(run)
        return Cell(
            run.metrics.get(metric, math.nan),
            confidence_interval(run, metric),
            rate,
            not math.isnan(rate) and rate > parse_failure_flag,
            run.location,
            view.unparsed(run),
        )

    def pooled_cell(contributions: Sequence[tuple[Run, str, float]], view: SuiteView) -> Cell:
        """The mean of ``sign * metric`` over the contributions; flagged when any of its runs is."""
        values = [sign * run.metrics[metric] for run, metric, sign in contributions]
        runs = list({run.location: run for run, _, _ in contributions}.values())
        rates = [rate for rate in (view.parse_failure_rate(run) for run in runs) if not math.isnan(rate)]
        worst = max(rates, default=math.nan)
        return Cell(
            float(sum(values) / len(values)) if values else math.nan,
            None,
            worst,
            not math.isnan(worst) and worst > parse_failure_flag,
            ", ".join(run.location for run in runs),
            pooled=len(values),
        )

    leaderboard = Table("leaderboard", "Leaderboard", ["judge"])
    columns: dict[str, Column] = {}
    for run, view, config in reported:
        for metric in view.headlines(run):
            column = Column(
                view.name, run.task, config, metric, view.higher_is_better(metric), len(configs[run.task]) > 1
            )
            columns.setdefault(column.label, column)
            leaderboard.put((run.judge,), column.label, cell(run, view, metric))
    leaderboard.columns = sorted(
        leaderboard.columns, key=lambda label: _column_order(columns[label], [view for view in _views(reported)])
    )
    leaderboard.column_info = [columns[label] for label in leaderboard.columns]

    paper_tables: dict[str, Table] = {}
    for run, view, config in reported:
        tag = f" [config {config}]" if len(configs[run.task]) > 1 else ""
        for paper in view.paper_tables:
            cells = paper.cells(run)
            if not cells:
                continue
            table = paper_tables.setdefault(
                paper.name,
                Table(
                    paper.name,
                    paper.title,
                    ["judge", paper.row_label] if paper.judge_in == "row" else [paper.row_label],
                ),
            )
            for row, column_name, metric in cells:
                if paper.judge_in == "row":
                    table.put((run.judge, f"{row}{tag}"), column_name, cell(run, view, metric))
                else:
                    table.put((row,), f"{run.judge} · {column_name}{tag}", cell(run, view, metric))
    for view in _views(reported):
        for paper in view.paper_tables:
            if paper.pooled is None or paper.name not in paper_tables:
                continue
            for judge in dict.fromkeys(run.judge for run, run_view, _ in reported if run_view is view):
                entries, pool_notes = paper.pooled(
                    [run for run, run_view, _ in reported if run_view is view and run.judge == judge]
                )
                notes.extend(pool_notes)
                for row, column_name, contributions in entries:
                    paper_tables[paper.name].put((judge, row), column_name, pooled_cell(contributions, view))
    for table in paper_tables.values():
        table.rows.sort()
    return Report(leaderboard, list(paper_tables.values()), reported, configs, notes)


def _views(reported: list[tuple[Run, SuiteView, int]]) -> list[SuiteView]:
    return list(dict.fromkeys(view for _, view, _ in reported))


def _column_order(column: Column, views: list[SuiteView]) -> tuple:
    suite_rank = next(index for index, view in enumerate(views) if view.name == column.suite)
    return (suite_rank, column.task, column.config)


def sort_rows(table: Table, column: str | None = None) -> Table:
    """The table's rows ordered best first on ``column`` (default: the first), NaN last."""
    if not table.columns:
        return table
    label = column if column in table.columns else table.columns[0]
    info = next((info for info in table.column_info if info.label == label), None)
    sign = -1.0 if info is None or info.higher_is_better else 1.0

    def key(row: tuple[str, ...]) -> tuple[bool, float]:
        found = table.cells.get((row, label))
        value = math.nan if found is None else found.value
        return (math.isnan(value), sign * value if not math.isnan(value) else 0.0)

    table.rows = sorted(table.rows, key=key)
    return table
