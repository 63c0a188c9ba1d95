"""What a report shows of a suite, declared by the suite: the shape of a finished run and of its scored samples,
the paper tables a suite lays out, and each leaderboard headline's per-item form and references.

Each suite declares its views in ``<suite>_tasks/report.py``; ``judge_report`` holds the machinery that reads logs,
pools, compares and renders, and finds a run's view through the list of suites (:mod:`judge_suites`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge_data.definitions import SuiteDefinition


@dataclass(frozen=True)
class Run:
    """One task run by one judge: what was run, with which options, and every metric it logged."""

    location: str
    harness: str
    task: str
    task_version: str
    model: str
    model_args: Mapping[str, Any]
    metadata: Mapping[str, Any]
    task_args: Mapping[str, Any]
    metrics: Mapping[str, float]
    samples: int
    created: str
    limit: Any = None
    epochs: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    grader: str | None = None
    """The grader under test of a ``grader`` task: its inspect scorer and a hash of the scorer's arguments."""
    recorded: Mapping[str, Any] | None = None
    """Where a run's judge is recorded judgments (``-T judgments=``): the file, its hash, the judge and prompt label."""
    registry_name: str | None = None
    """The task as inspect's command line names it (``adherence_tasks/hanna``); ``None`` for lm-eval."""

    @property
    def judge(self) -> str:
        """The judge's identity: model name and model arguments (inspect's ``-M``, lm-eval's ``--model_args``),
        after the grader (scorer and arguments' hash) where the judge under test is an inspect scorer."""
        model = judge_name(self.model, self.model_args)
        return f"{self.grader} on {model}" if self.grader else model

    def setting(self, name: str) -> Any:
        """A run setting as logged: the task metadata first, then the task arguments."""
        if name in self.metadata:
            return self.metadata[name]
        return self.task_args.get(name)


def judge_name(model: str, model_args: Mapping[str, Any]) -> str:
    """A model name with its model arguments, sorted: ``model (a=1, b=2)``."""
    if not model_args:
        return model
    arguments = ", ".join(f"{name}={value}" for name, value in sorted(model_args.items()))
    return f"{model} ({arguments})"


@dataclass(frozen=True)
class Sample:
    """One scored sample: its id, metadata and score value (numbers averaged over epochs, as inspect's reducer
    does)."""

    id: str
    metadata: Mapping[str, Any]
    value: Mapping[str, Any]
    store: Mapping[str, Any]
    epochs: tuple[Mapping[str, Any], ...] = ()
    """Each epoch's score value, where a headline pairs judgments rather than averaging them (a grader's labels)."""


def item_key(run: Run, sample_id: str, suite: str) -> str:
    """An item's key, the same in every run that judged it: FBI ids are the same item under every paradigm and
    strategy; other suites' ids are unique within a dataset only."""
    if suite == "fbi":
        return f"fbi:{sample_id}"
    dataset = run.setting("dataset") or run.task
    return f"{suite}:{dataset}:{sample_id}"


@dataclass(frozen=True)
class ItemHeadline:
    """A leaderboard headline item by item: the statistic of item weights pooled intervals and paired comparisons
    of judges need (a :class:`scorers.paired.ItemStatistic`), and the yardsticks beside it (a list of
    :class:`scorers.references.Reference`)."""

    statistic: Callable[[Run, Sequence[Sample]], Any]
    references: Callable[[Sequence[Run], Sequence[Sequence[Sample]]], list[Any]] | None = None
    references_read_items: bool = True
    """Whether the references need the runs' samples (CoEval's list references are fixed numbers)."""


def matching_metrics(run: Run, pattern: str) -> list[str]:
    """The run's metrics whose whole name matches ``pattern``."""
    expression = re.compile(pattern)
    return [name for name in run.metrics if expression.fullmatch(name)]


def present_metrics(run: Run, names: Sequence[str]) -> list[str]:
    """Those of ``names`` the run logged, in that order."""
    return [name for name in names if name in run.metrics]


Contribution = tuple[Run, str, float]
"""One value pooled into a cell: the run, the metric and the sign it enters with."""


@dataclass(frozen=True)
class PaperTable:
    """A table laid out like one in the suite's paper: rows and columns named by functions of a run's metrics.

    ``cells(run)`` gives ``(row, column, metric name)`` for every cell the run fills. With ``judge_in="row"`` each
    judge has its own rows; with ``"column"`` its own columns, so that judges sit side by side. ``pooled(runs)``,
    given one judge's runs of the suite, gives cells that pool values over several runs: ``(row, column, the
    values pooled)``, each cell the mean of its values, and notes on what it could not pool.
    """

    name: str
    title: str
    cells: Callable[[Run], list[tuple[str, str, str]]]
    row_label: str
    judge_in: str = "row"
    pooled: Callable[[Sequence[Run]], tuple[list[tuple[str, str, list[Contribution]]], list[str]]] | None = None


KIND_WHEN_NOT_DEFAULT = ("mode", "scoring", "answer_format")
"""Options that make a different kind of run, named in a leaderboard column only where they are not the default."""


@dataclass(frozen=True, eq=False)
class SuiteView:
    """What the report shows of one suite: its definition (headlines, comparability), the paper's tables and each
    leaderboard headline item by item. Each view exists once, so it compares and hashes by identity."""

    definition: SuiteDefinition
    title: str
    task_prefixes: tuple[str, ...]
    answers_per_sample: Callable[[Run], float]
    """Judge answers one sample asks for, to turn ``parse_failures`` into a rate where the suite logs no rate."""
    paper_tables: tuple[PaperTable, ...] = ()
    hub_dataset: Callable[[Run], str | None] = lambda run: None
    """The benchmark's dataset on the Hugging Face Hub, where there is one (for ``.eval_results`` exports)."""
    kind_on: tuple[str, ...] = ()
    """Settings whose values name a kind of run that gets its own leaderboard column (FBI's ``paradigm``)."""
    run_notes: Callable[[Run], list[str]] = lambda run: []
    """What the report's notes must say of a run whose numbers need a caveat (CoEval's identical lists)."""
    item_headlines: Mapping[str, ItemHeadline] = field(default_factory=dict)
    """Each leaderboard headline's per-item form, by metric."""

    def __post_init__(self) -> None:
        leaderboard = {headline.metric for headline in self.definition.headlines if headline.leaderboard}
        unknown = sorted(set(self.item_headlines) - leaderboard)
        if unknown:
            raise ValueError(f"view {self.definition.name}: {unknown} are no leaderboard headline of its definition")

    @property
    def name(self) -> str:
        """The suite's name, as its definition gives it."""
        return self.definition.name

    @property
    def comparable_on(self) -> tuple[str, ...]:
        """Run settings (task metadata, then task arguments) that must agree for two runs to share a column."""
        return self.definition.comparable_on

    def headlines(self, run: Run, leaderboard_only: bool = False) -> list[str]:
        """The run's headline metrics (only those with a leaderboard column, if asked), in the definition's order."""
        return [
            name
            for headline in self.definition.headlines
            if headline.leaderboard or not leaderboard_only
            for name in run.metrics
            if headline.matches(name)
        ]

    def headline_rank(self, metric: str) -> int:
        """The place of the metric's headline in the definition (metrics of no headline go last)."""
        ranks = (rank for rank, headline in enumerate(self.definition.headlines) if headline.matches(metric))
        return next(ranks, len(self.definition.headlines))

    def kind(self, run: Run) -> str:
        """The kind of run, as the leaderboard names it: the :attr:`kind_on` settings' values, then those of
        :data:`KIND_WHEN_NOT_DEFAULT` that differ from the definition's defaults (``pairwise logprobs``)."""
        parts = [str(run.setting(name)) for name in self.kind_on]
        defaults = self.definition.default_values
        for name in KIND_WHEN_NOT_DEFAULT:
            value = run.setting(name)
            if name in defaults and value not in (None, defaults[name]) and str(value) not in parts:
                parts.append(str(value))
        return " ".join(parts)

    def unparsed(self, run: Run) -> tuple[float, float]:
        """``(answers that did not parse, answers asked for)`` in a run."""
        return run.metrics.get("parse_failures", math.nan), run.samples * self.answers_per_sample(run)

    def parse_failure_rate(self, run: Run) -> float:
        """The share of the run's answers that did not parse: logged by the suite, or from the counts."""
        if "parse_failure_rate" in run.metrics:
            return run.metrics["parse_failure_rate"]
        failures, answers = self.unparsed(run)
        return failures / answers if answers > 0 else math.nan
