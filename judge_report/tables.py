"""The leaderboard and the papers' tables, built from runs: one row per judge, one column per comparable setting.

Runs of one task whose settings differ (data source, items, seed, perturbations, scoring mode, ...) never share a
column: each distinct setting gets its own ``config`` number, and a note names the settings that differ.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from adherence_tasks.report import FOOTING_LEVELS, HumanFooting, human_footing
from dhp_tasks.report import dhp_rated_below
from judge_data import DataError
from judge_data.definitions import PRESET_METADATA
from judge_data.views import SuiteView
from judge_report.items import CachedReader, ItemReader, column_references, headline_statistic, read_samples
from judge_report.judges import Judge, judges_of
from judge_report.runs import Run
from judge_report.suites import VIEWS, confidence_interval, sample_size, suite_of
from scorers.directions import higher_is_better
from scorers.paired import (
    ItemStatistic,
    compare_all,
    holm,
    item_groups,
    joint_resamples,
    rank_judges,
    recentred_interval,
)
from scorers.references import HUMAN, Reference

REFERENCE_PREFIX = "reference: "
"""How a reference row is named in the tables (``reference: random judge``)."""

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
    rank: int | None = None
    """The judge's rank on this column (:data:`scorers.paired.RANK_RULE`); ``None`` where it has none."""
    note: str = ""
    """What a reference row's value is and how it was computed."""
    n: float | None = None
    """The items a rate or an agreement rests on, where its run logs them (``<metric>_n``)."""

    def text(self, digits: int = 3, compact: bool = False) -> str:
        """The value as shown: with its interval, the number of pooled values and the unparsed-answers flag
        (``compact``: the flag alone, no count, for the leaderboard)."""
        shown = self.value_text(digits)
        interval = self.interval_text(digits)
        shown += f" {interval}" if interval else ""
        if self.pooled is not None and not compact:
            shown += f" (n={self.pooled})"
        elif self.n is not None and not compact:
            shown += f" ({self.n:g} items)"
        if self.rank is not None:
            shown += f" #{self.rank}"
        if self.flagged:
            shown += " ⚠" if compact else f" ⚠ {self.flag_text()}"
        return shown

    def value_text(self, digits: int = 3) -> str:
        """The value alone, ``n/a`` where it is undefined."""
        return "n/a" if math.isnan(self.value) else f"{self.value:.{digits}f}"

    def interval_text(self, digits: int = 3) -> str:
        """``[low, high]``, or nothing where there is no interval."""
        if self.ci is None or any(math.isnan(bound) for bound in self.ci):
            return ""
        return f"[{self.ci[0]:.{digits}f}, {self.ci[1]:.{digits}f}]"

    def flag_text(self) -> str:
        """``12% unparsed (31 of 250)``: the share of the run's answers that did not parse, and the count."""
        failures, answers = self.unparsed
        count = "" if math.isnan(failures) or math.isnan(answers) else f" ({failures:g} of {answers:g})"
        return f"{self.parse_failure_rate:.0%} unparsed{count}"


@dataclass(frozen=True)
class Column:
    """A column of the leaderboard or of a suite's table: one headline metric over the runs it pools.

    A suite table's column is one task under one comparable setting (``tasks`` holds one ``(task, config)``); a
    leaderboard column is one kind of run of a suite (``kind``: FBI's paradigm, adherence's setting, ...), its
    value the mean over the tasks in ``tasks``, which every judge in the column ran.
    """

    label: str
    suite: str
    metric: str
    higher_is_better: bool
    tasks: tuple[str, ...]
    """The tasks pooled, each as ``task`` or, where the task ran under several settings, ``task [config N]``."""
    kind: str = ""

    @property
    def tasks_text(self) -> str:
        """The tasks pooled, comma-separated."""
        return ", ".join(self.tasks)


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
    sorted_by: str | None = None
    """The column the rows are ranked on, once :func:`sort_rows` has ranked them."""
    references: list[tuple[str, ...]] = field(default_factory=list)
    """Rows that are references (a random or constant judge, a human), never ranked: they stay last."""

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


@dataclass(frozen=True)
class ComparisonRow:
    """Judge ``a`` minus judge ``b`` on a leaderboard column, on the items both ran (``report.json``'s
    ``comparisons``)."""

    column: str
    a: str
    b: str
    difference: float
    ci_low: float
    ci_high: float
    p: float
    p_adjusted: float
    n_items: int
    test: str


@dataclass(frozen=True)
class ReferenceRow:
    """A yardstick's value on a leaderboard or suite-table column (``report.json``'s ``references``)."""

    column: str
    reference: str
    value: float
    ci_low: float
    ci_high: float
    note: str


@dataclass
class Report:
    """Everything the report writes: the leaderboard, each suite's table, the paper tables, the judges, the runs it
    reports and the notes."""

    leaderboard: Table
    suite_tables: list[Table]
    paper_tables: list[Table]
    judges: dict[str, Judge]
    """Each judge by identity (:attr:`Run.judge`), with the short name every table shows."""
    runs: list[tuple[Run, SuiteView, int]]
    """Each run reported, its suite and its config number within its task."""
    configs: dict[str, list[dict]]
    """Per task, the settings of each config (index = config number - 1)."""
    notes: list[str]
    comparisons: list[ComparisonRow] = field(default_factory=list)
    """Every pair of judges compared on a leaderboard column's shared items."""
    references: list[ReferenceRow] = field(default_factory=list)
    """The yardsticks of every leaderboard column (also rows of the leaderboard and the suite tables)."""

    def name_of(self, run: Run) -> str:
        """The short name of the run's judge."""
        return self.judges[run.judge].name


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


def _cell(run: Run, view: SuiteView, metric: str, parse_failure_flag: float) -> Cell:
    rate = view.parse_failure_rate(run)
    return Cell(
        run.metrics.get(metric, math.nan),
        confidence_interval(run, metric),
        rate,
        not math.isnan(rate) and rate > parse_failure_flag,
        run.location,
        view.unparsed(run),
        n=sample_size(run, metric),
    )


def pool_cells(
    cells: Sequence[Cell], parse_failure_flag: float, statistics: Sequence[ItemStatistic] | None = None
) -> Cell:
    """One cell for the mean of several (one cell stays as it is): NaN where any value is, the worst unparsed
    share, flagged when any of them is. Its interval resamples the items of every pooled run jointly
    (:func:`scorers.paired.joint_resamples`); without the runs' per-item ``statistics`` it has none."""
    if len(cells) == 1:
        return cells[0]
    mean = float(sum(cell.value for cell in cells) / len(cells))
    rates = [cell.parse_failure_rate for cell in cells if not math.isnan(cell.parse_failure_rate)]
    worst = max(rates, default=math.nan)
    interval = None
    if statistics is not None and not math.isnan(mean):
        low, high = recentred_interval(joint_resamples(statistics).mean(axis=1), mean)
        interval = None if math.isnan(low) else (low, high)
    return Cell(
        mean,
        interval,
        worst,
        any(cell.flagged for cell in cells),
        ", ".join(cell.location for cell in cells),
        (sum(cell.unparsed[0] for cell in cells), sum(cell.unparsed[1] for cell in cells)),
        pooled=len(cells),
    )


@dataclass
class ChosenRuns:
    """The runs a report shows: for each task, its comparable settings (``configs``, numbered from 1 in the order
    first seen), the latest run of each judge in each, and what the choice must tell the reader (``notes``)."""

    reported: list[tuple[Run, SuiteView, int]]
    configs: dict[str, list[dict]]
    notes: list[str]

    def task_label(self, task: str, config: int) -> str:
        """The task as tables name it, with its setting's number where it has several."""
        return f"{task} [config {config}]" if len(self.configs[task]) > 1 else task


def choose_runs(runs: Sequence[Run]) -> ChosenRuns:
    """Comparable runs share columns, and the latest run of a judge and setting wins (the others are named)."""
    notes: list[str] = []
    configs: dict[str, list[dict]] = {}
    chosen: dict[tuple[str, int, str], tuple[Run, SuiteView]] = {}
    for run in sorted(runs, key=lambda run: run.created):
        notes.extend(run.notes)
        view = suite_of(run)
        if view is None:
            notes.append(f"{run.location}: task {run.task} belongs to no suite the report knows; left out")
            continue
        notes.extend(note for note in view.run_notes(run) if note not in notes)
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
    return ChosenRuns(reported, configs, notes)


CellOf = Callable[[Run, SuiteView, str], Cell]
"""A run's value of one metric as a table cell (with its interval and parse-failure flag)."""


def suite_tables(chosen: ChosenRuns, judges: Mapping[str, Judge], cell: CellOf) -> list[Table]:
    """One table per suite: every headline of every run, a column per task (and setting) and metric."""
    tables: dict[str, Table] = {}
    for run, view, config in chosen.reported:
        table = tables.setdefault(
            view.name, Table(f"suite_{view.name}", f"{view.title}: every headline, task by task", ["judge"])
        )
        for metric in view.headlines(run):
            task = chosen.task_label(run.task, config)
            label = f"{task} {metric}"
            if label not in table.columns:
                table.column_info.append(Column(label, view.name, metric, higher_is_better(metric), (task,)))
            table.put((judges[run.judge].name,), label, cell(run, view, metric))
    for suite_view in _views(chosen.reported):
        if suite_view.name in tables:
            table = tables[suite_view.name]
            table.column_info.sort(key=lambda info: (info.tasks, suite_view.headline_rank(info.metric)))
            table.columns = [info.label for info in table.column_info]
    return [tables[view.name] for view in _views(chosen.reported) if view.name in tables]


def paper_tables(
    chosen: ChosenRuns, judges: Mapping[str, Judge], cell: CellOf, parse_failure_flag: float
) -> tuple[dict[str, Table], list[str]]:
    """The papers' own tables, filled from every run that has their cells, with the pooled rows (over a judge's
    runs) where a table has them; and what the pooling must tell the reader."""
    tables: dict[str, Table] = {}
    for run, view, config in chosen.reported:
        tag = f" [config {config}]" if len(chosen.configs[run.task]) > 1 else ""
        name = judges[run.judge].name
        for paper in view.paper_tables:
            cells = paper.cells(run)
            if not cells:
                continue
            table = tables.setdefault(
                paper.name,
                Table(
                    paper.name,
                    paper.title,
                    ["judge", paper.row_label] if paper.judge_in == "row" else [paper.row_label],
                ),
            )
            for row, column_name, metric in cells:
                if paper.judge_in == "row":
                    table.put((name, f"{row}{tag}"), column_name, cell(run, view, metric))
                else:
                    table.put((row,), f"{name} · {column_name}{tag}", cell(run, view, metric))
    notes: list[str] = []
    for view in _views(chosen.reported):
        for paper in view.paper_tables:
            if paper.pooled is None or paper.name not in tables:
                continue
            runs_of_view = [run for run, run_view, _ in chosen.reported if run_view is view]
            for judge in dict.fromkeys(run.judge for run in runs_of_view):
                entries, pool_notes = paper.pooled([run for run in runs_of_view if run.judge == judge])
                notes.extend(pool_notes)
                for row, column_name, contributions in entries:
                    tables[paper.name].put(
                        (judges[judge].name, row),
                        column_name,
                        _contributions_cell(contributions, view, parse_failure_flag),
                    )
    for table in tables.values():
        table.rows.sort()
    return tables, notes


def build_report(
    runs: Sequence[Run],
    parse_failure_flag: float = DEFAULT_PARSE_FAILURE_FLAG,
    aliases: Mapping[str, str] | None = None,
    items: ItemReader = read_samples,
) -> Report:
    """The report of these runs: comparable runs share columns, the latest run of a judge and setting wins, each
    judge under its short name (``aliases``: model name or identity to the name to show). ``items`` reads a run's
    per-item values (default: its inspect log's samples), for pooled intervals, comparisons and references."""
    chosen = choose_runs(runs)
    judges = judges_of([run for run, _, _ in chosen.reported], aliases)

    def cell(run: Run, view: SuiteView, metric: str) -> Cell:
        return _cell(run, view, metric, parse_failure_flag)

    suites = suite_tables(chosen, judges, cell)
    read = CachedReader(items)
    leaderboard, column_runs, leaderboard_notes = _leaderboard(chosen, judges, cell, parse_failure_flag, read)
    columns = LeaderboardColumns(leaderboard, column_runs, read)
    comparisons, comparison_notes = _compare_judges(columns, judges)
    references, reference_notes = add_references(
        columns, {table.name.removeprefix("suite_"): table for table in suites}
    )
    ceiling, ceiling_notes = human_ceiling_table(columns, judges)
    rated_below, rated_below_notes = rated_below_table(columns, judges)
    papers, pool_notes = paper_tables(chosen, judges, cell, parse_failure_flag)
    notes = [
        *chosen.notes,
        *leaderboard_notes,
        *comparison_notes,
        *reference_notes,
        *ceiling_notes,
        *rated_below_notes,
        *pool_notes,
    ]
    for added in (rated_below, ceiling):
        if added is not None:
            papers[added.name] = added
    return Report(
        leaderboard,
        suites,
        list(papers.values()),
        judges,
        chosen.reported,
        chosen.configs,
        notes,
        comparisons,
        references,
    )


def _contributions_cell(contributions: Sequence[tuple[Run, str, float]], view: SuiteView, flag: float) -> Cell:
    """The mean of ``sign * metric`` over the contributions; flagged when any of its runs is."""
    values = [sign * run.metrics[metric] for run, metric, sign in contributions]
    runs = list({run.location: run for run, _, _ in contributions}.values())
    rates = [rate for rate in (view.parse_failure_rate(run) for run in runs) if not math.isnan(rate)]
    worst = max(rates, default=math.nan)
    return Cell(
        float(sum(values) / len(values)) if values else math.nan,
        None,
        worst,
        not math.isnan(worst) and worst > flag,
        ", ".join(run.location for run in runs),
        pooled=len(values),
    )


def _leaderboard(
    chosen: ChosenRuns,
    judges: Mapping[str, Judge],
    cell: Callable[[Run, SuiteView, str], Cell],
    parse_failure_flag: float,
    reader: ItemReader,
) -> tuple[Table, dict[str, dict[str, list[Run]]], list[str]]:
    """One column per suite, kind of run and leaderboard headline: each judge's mean over the suite's tasks of that
    kind. Judges that ran different tasks (or settings) of a kind get different columns, marked ``[set N]``. Also
    returns each column's runs per judge (in the order of its tasks), and the notes on how its cells were made."""
    notes: list[str] = []
    groups: dict[tuple[SuiteView, str, str], dict[str, tuple[Run, int]]] = {}
    for run, view, config in sorted(chosen.reported, key=lambda entry: entry[0].created):
        group = groups.setdefault((view, view.kind(run), run.judge), {})
        if run.task in group:
            notes.append(
                f"leaderboard: {judges[run.judge].name} ran {run.task} under several settings of one kind; the "
                f"leaderboard takes the latest ({chosen.task_label(run.task, config)}), the suite table shows each"
            )
        group[run.task] = (run, config)
    columns: dict[tuple[SuiteView, str, str], list[tuple[tuple[str, ...], dict[str, list[Run]]]]] = {}
    for (view, kind, judge), entries in groups.items():
        labelled = sorted((chosen.task_label(task, config), run) for task, (run, config) in entries.items())
        tasks = tuple(label for label, _ in labelled)
        for metric in dict.fromkeys(
            name for run, _ in entries.values() for name in view.headlines(run, leaderboard_only=True)
        ):
            sets = columns.setdefault((view, kind, metric), [])
            match = next((runs_by_judge for pooled, runs_by_judge in sets if pooled == tasks), None)
            if match is None:
                match = {}
                sets.append((tasks, match))
            match[judge] = [run for _, run in labelled]
    table = Table("leaderboard", "Leaderboard", ["judge"])
    column_runs: dict[str, dict[str, list[Run]]] = {}
    ordered = sorted(
        columns.items(), key=lambda item: (VIEWS.index(item[0][0]), item[0][1], item[0][0].headline_rank(item[0][2]))
    )
    for (view, kind, metric), sets in ordered:
        for number, (tasks, runs_by_judge) in enumerate(sets, start=1):
            label = " ".join(part for part in (view.name, kind, metric) if part)
            if len(sets) > 1:
                label += f" [set {number}]"
                notes.append(f"{label}: the mean over {', '.join(tasks)}")
            table.column_info.append(Column(label, view.name, metric, higher_is_better(metric), tasks, kind))
            column_runs[label] = runs_by_judge
            sharing: set[bool] = set()
            for judge, runs in runs_by_judge.items():
                statistics = None
                if len(runs) > 1:
                    found = [headline_statistic(run, view.name, metric, reader) for run in runs]
                    missing = [
                        f"{run.task}: {why}" for run, why in zip(runs, found, strict=True) if isinstance(why, str)
                    ]
                    if missing:
                        notes.append(f"{label}: no interval for {judges[judge].name} ({'; '.join(missing)})")
                    else:
                        statistics = [found_one for found_one in found if not isinstance(found_one, str)]
                        sharing.add(len(item_groups(statistics)) < len(statistics))
                cells = [cell(run, view, metric) for run in runs]
                table.put((judges[judge].name,), label, pool_cells(cells, parse_failure_flag, statistics))
            if sharing:
                notes.append(
                    f"{label}: its tasks judge the same items, so its interval resamples each item jointly in every "
                    "task that holds it"
                    if True in sharing
                    else f"{label}: its tasks share no items; its interval resamples each task's items on their own"
                )
    table.columns = [info.label for info in table.column_info]
    return table, column_runs, notes


@dataclass(frozen=True)
class LeaderboardColumns:
    """What the comparisons and the references of the leaderboard's columns read: the leaderboard, each column's
    runs by judge, and the reader of a run's per-item values."""

    table: Table
    runs: Mapping[str, Mapping[str, list[Run]]]
    """Column label -> judge -> the runs the column's cell of that judge pools."""
    reader: ItemReader


def _compare_judges(columns: LeaderboardColumns, judges: Mapping[str, Judge]) -> tuple[list[ComparisonRow], list[str]]:
    """Every pair of judges of every leaderboard column compared on the items both answered (:class:`scorers.paired.
    PairedResamples`, each judge's resamples drawn once per item set), p-values Holm-adjusted over the column's
    pairs, and each judge's rank (:data:`scorers.paired.RANK_RULE`) set on its cell; a judge without a value, or
    compared with no other, is unranked and a note says why."""
    table = columns.table
    rows: list[ComparisonRow] = []
    notes: list[str] = []
    for info in table.column_info:
        if len(columns.runs[info.label]) < 2:
            continue
        statistics, statistics_notes = _column_statistics(columns, info, judges)
        notes += statistics_notes
        found_pairs = []
        for (a, b), compared in compare_all(statistics).items():
            if compared is None:
                notes.append(f"{info.label}: {judges[a].name} and {judges[b].name} share no items; not compared")
            elif math.isnan(compared.p):
                notes.append(
                    f"{info.label}: {judges[a].name} and {judges[b].name} are not compared: they answered no item in "
                    "common, or the headline of one of them is undefined on those items or on too many of their "
                    "resamples"
                )
            else:
                found_pairs.append((a, b, compared))
        adjusted = holm([compared.p for _, _, compared in found_pairs])
        tested = {}
        for (a, b, compared), p_adjusted in zip(found_pairs, adjusted, strict=True):
            tested[(a, b)] = (compared.difference, float(p_adjusted))
            rows.append(
                ComparisonRow(
                    info.label,
                    judges[a].name,
                    judges[b].name,
                    compared.difference,
                    compared.low,
                    compared.high,
                    compared.p,
                    float(p_adjusted),
                    compared.n_items,
                    compared.test,
                )
            )
        ranks = rank_judges(tested, info.higher_is_better)
        for judge in statistics:
            key = ((judges[judge].name,), info.label)
            if judge in ranks:
                table.cells[key] = replace(table.cells[key], rank=ranks[judge])
            else:
                notes.append(f"{info.label}: {judges[judge].name} is unranked: compared with no other judge")
    return rows, notes


def _column_statistics(
    columns: LeaderboardColumns, info: Column, judges: Mapping[str, Judge]
) -> tuple[dict[str, list[ItemStatistic]], list[str]]:
    """Each judge's per-item statistics of one leaderboard column (one per task it pools), by judge; a judge without
    a value or without per-item values is left out, with a note."""
    statistics: dict[str, list[ItemStatistic]] = {}
    notes: list[str] = []
    runs_by_judge = columns.runs[info.label]
    for judge in sorted(runs_by_judge, key=lambda judge: judges[judge].name):
        name, runs = judges[judge].name, runs_by_judge[judge]
        if math.isnan(columns.table.cells[((name,), info.label)].value):
            notes.append(
                f"{info.label}: {name} has no value (no answer parsed, or the headline is undefined); "
                "not compared and unranked"
            )
            continue
        found = [headline_statistic(run, info.suite, info.metric, columns.reader) for run in runs]
        missing = [f"{run.task}: {why}" for run, why in zip(runs, found, strict=True) if isinstance(why, str)]
        if missing:
            notes.append(
                f"{info.label}: {name} is not compared with the other judges and unranked (no per-item values; "
                f"{'; '.join(missing)})"
            )
        else:
            statistics[judge] = [one for one in found if not isinstance(one, str)]
    return statistics, notes


def add_references(
    columns: LeaderboardColumns, suite_tables: Mapping[str, Table]
) -> tuple[list[ReferenceRow], list[str]]:
    """The yardsticks of every leaderboard column (from the runs of its first judge whose log holds the items), as
    reference rows of the leaderboard and, task by task, of the suite tables' columns of the same headline."""
    leaderboard, column_runs, reader = columns.table, columns.runs, columns.reader
    rows: list[ReferenceRow] = []
    notes: list[str] = []
    for info in leaderboard.column_info:
        found: list[Reference] | str = "no run of this column"
        for runs in column_runs[info.label].values():
            found = column_references(info.suite, info.metric, runs, reader)
            if not isinstance(found, str):
                break
        if isinstance(found, str):
            notes.append(f"{info.label}: no references ({found})")
            continue
        for reference in found:
            rows.append(
                ReferenceRow(
                    info.label, reference.reference, reference.value, reference.low, reference.high, reference.note
                )
            )
            _put_reference(leaderboard, info.label, reference)
        table = suite_tables.get(info.suite)
        if table is None:
            continue
        for task_column in table.column_info:
            if task_column.metric != info.metric or task_column.tasks[0] not in info.tasks:
                continue
            task_runs = [
                [run for run in runs if run.task == task_column.tasks[0].split(" [")[0]]
                for runs in column_runs[info.label].values()
            ]
            for runs in task_runs:
                per_task = column_references(info.suite, info.metric, runs, reader) if runs else "no run"
                if not isinstance(per_task, str):
                    for reference in per_task:
                        _put_reference(table, task_column.label, reference)
                    break
    return rows, notes


RATED_BELOW_TABLE = "dhp_rated_below"


def rated_below_table(columns: LeaderboardColumns, judges: Mapping[str, Judge]) -> tuple[Table | None, list[str]]:
    """Beside every DHP ``D_avg`` column, each judge's probability that a damaged copy is rated below its original
    (:func:`dhp_tasks.report.dhp_rated_below`), the mean over the column's tasks with an item-bootstrap interval
    (items of all its tasks resampled jointly); ``None`` without a DHP column. Also the notes on judges left out."""
    leaderboard, column_runs, reader = columns.table, columns.runs, columns.reader
    notes: list[str] = []
    table = Table(
        RATED_BELOW_TABLE,
        "DHP: how often a damaged copy is rated below its original (ties half; 0.5: blind to the damage), an effect "
        "size beside D_avg that does not grow with the number of items",
        ["judge"],
    )
    for info in leaderboard.column_info:
        if (info.suite, info.metric) != ("dhp", "D_avg"):
            continue
        label = info.label.replace("D_avg", "rated below original")
        for judge in sorted(column_runs[info.label], key=lambda judge: judges[judge].name):
            runs = column_runs[info.label][judge]
            read = [reader(run) for run in runs]
            missing = [f"{run.task}: {why}" for run, why in zip(runs, read, strict=True) if isinstance(why, str)]
            if missing:
                notes.append(f"{label}: none for {judges[judge].name} ({'; '.join(missing)})")
                continue
            statistics = [
                dhp_rated_below(run, task) for run, task in zip(runs, read, strict=True) if not isinstance(task, str)
            ]
            value = float(np.mean([statistic.estimate() for statistic in statistics]))
            low, high = recentred_interval(joint_resamples(statistics).mean(axis=1), value)
            interval = None if math.isnan(low) else (low, high)
            location = ", ".join(run.location for run in runs)
            table.put((judges[judge].name,), label, Cell(value, interval, math.nan, False, location))
    return (table if table.rows else None), notes


HUMAN_CEILING_TABLE = "human_ceiling"


def human_ceiling_table(columns: LeaderboardColumns, judges: Mapping[str, Judge]) -> tuple[Table | None, list[str]]:
    """Every adherence ``pearson`` column's judges and annotators against the same leave-one-annotator-out means
    (:func:`adherence_tasks.report.human_footing`), over responses and over systems, each the mean over the
    column's tasks; the annotators' own agreement is the row ``reference: human ceiling``. ``None`` where no
    column has annotators' scores to read. Also the notes on judges left out."""
    leaderboard, column_runs, reader = columns.table, columns.runs, columns.reader
    notes: list[str] = []
    table = Table(
        HUMAN_CEILING_TABLE,
        "Instruction adherence: each judge against the human ceiling on the same footing (every score against the "
        "mean of the annotators but one, averaged over the one left out)",
        ["judge"],
    )
    ceiling_row = (f"{REFERENCE_PREFIX}{HUMAN}",)
    for info in leaderboard.column_info:
        if (info.suite, info.metric) != ("adherence", "pearson"):
            continue
        found: dict[str, list[HumanFooting] | str] = {}
        for judge in sorted(column_runs[info.label], key=lambda judge: judges[judge].name):
            runs = column_runs[info.label][judge]
            read = [_footing(run, reader) for run in runs]
            reasons = [f"{run.task}: {why}" for run, why in zip(runs, read, strict=True) if isinstance(why, str)]
            found[judge] = "; ".join(reasons) if reasons else [one for one in read if not isinstance(one, str)]
        if all(isinstance(one, str) for one in found.values()):
            continue  # the data holds no annotators' scores: the leaderboard's human ceiling row says why
        for judge, per_task in found.items():
            if isinstance(per_task, str):
                notes.append(f"{info.label}: no human ceiling for {judges[judge].name} ({per_task})")
                continue
            for level in FOOTING_LEVELS:
                column = f"{info.label} · {level}"
                judged = float(np.mean([footing.judge[level] for footing in per_task]))
                location = ", ".join(run.location for run in column_runs[info.label][judge])
                table.put((judges[judge].name,), column, Cell(judged, None, math.nan, False, location))
                if (ceiling_row, column) not in table.cells:
                    own = float(np.mean([footing.annotators[level] for footing in per_task]))
                    table.put(ceiling_row, column, Cell(own, None, math.nan, False, "", note=HUMAN_CEILING_NOTE))
    if not table.rows:
        return None, notes
    table.rows = sorted(row for row in table.rows if row != ceiling_row) + [ceiling_row]
    table.references.append(ceiling_row)
    return table, notes


HUMAN_CEILING_NOTE = (
    "the annotators' own agreement with the mean of the others: a judge as good as one more annotator scores it"
)


def _footing(run: Run, reader: ItemReader) -> HumanFooting | str:
    samples = reader(run)
    return samples if isinstance(samples, str) else human_footing(run, samples)


def _put_reference(table: Table, column: str, reference: Reference) -> None:
    row = (f"{REFERENCE_PREFIX}{reference.reference}",)
    interval = None if math.isnan(reference.low) else (reference.low, reference.high)
    if (row, column) not in table.cells:
        table.put(row, column, Cell(reference.value, interval, math.nan, False, "", note=reference.note))
    if row not in table.references:
        table.references.append(row)


def _views(reported: list[tuple[Run, SuiteView, int]]) -> list[SuiteView]:
    """The suites of the reported runs, in the report's fixed order (DHP, FBI, adherence, CoEval)."""
    return sorted({view.name: view for _, view, _ in reported}.values(), key=VIEWS.index)


def choose_column(table: Table, wanted: str | None) -> str | None:
    """The column ``--sort`` names: its exact label, or the one label that contains ``wanted`` (any case)."""
    if wanted is None or not table.columns:
        return table.columns[0] if table.columns else None
    if wanted in table.columns:
        return wanted
    found = [label for label in table.columns if wanted.lower() in label.lower()]
    if len(found) != 1:
        problem = "matches no column" if not found else f"matches {len(found)} columns"
        raise DataError(f"--sort {wanted!r} {problem}; the leaderboard's columns: {table.columns}")
    return found[0]


def sort_rows(table: Table, column: str | None = None) -> Table:
    """The table's rows ordered best first on ``column`` (default: the first), NaN last."""
    label = choose_column(table, column)
    if label is None:
        return table
    info = next((info for info in table.column_info if info.label == label), None)
    sign = -1.0 if info is None or info.higher_is_better else 1.0

    def key(row: tuple[str, ...]) -> tuple[bool, float]:
        found = table.cells.get((row, label))
        value = math.nan if found is None else found.value
        return (math.isnan(value), sign * value if not math.isnan(value) else 0.0)

    references = [row for row in table.rows if row in table.references]
    table.rows = sorted((row for row in table.rows if row not in table.references), key=key) + references
    table.sorted_by = label
    return table


def order_like(table: Table, ranked: Table) -> Table:
    """The table's rows in the order of their judges (first label) in ``ranked``; judges it lacks go last."""
    rank = {row[0]: index for index, row in enumerate(ranked.rows) if row not in ranked.references}
    table.rows = sorted(table.rows, key=lambda row: (row in table.references, rank.get(row[0], len(rank))))
    return table
