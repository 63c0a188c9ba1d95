"""What the report shows of each suite, as one table: which runs belong to it, what makes two runs comparable,
its headline metrics, how often its judge's answers did not parse, and the paper tables and plots it draws.

A suite that lands later adds one :class:`SuiteView` to :data:`SUITES`; nothing else changes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from adherence_tasks.definition import ADHERENCE as ADHERENCE_DEFINITION
from coeval_tasks.definition import COEVAL_CRITERIA as COEVAL_CRITERIA_DEFINITION
from coeval_tasks.definition import COEVAL_SCORING as COEVAL_SCORING_DEFINITION
from dhp_tasks.definition import DHP as DHP_DEFINITION
from dhp_tasks.definition import DHP_GRADER as DHP_GRADER_DEFINITION
from fbi_tasks.definition import FBI as FBI_DEFINITION
from fbi_tasks.definition import FBI_GRADER as FBI_GRADER_DEFINITION
from grader_tasks.definition import GRADER_AGREEMENT as GRADER_AGREEMENT_DEFINITION
from judge_data.definitions import SuiteDefinition
from judge_report.runs import Run
from scorers.criteria_consistency import IDENTICAL_LISTS
from scorers.directions import higher_is_better
from scorers.system_agreement import few_systems_caveat

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


@dataclass(frozen=True)
class SuiteView:
    """What the report shows of one suite: its definition (headlines, comparability) and the paper's tables."""

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

    def higher_is_better(self, metric: str) -> bool:
        """Whether a larger value of ``metric`` ranks a judge higher (a headline's family shares its direction)."""
        lower = tuple(headline.metric for headline in self.definition.headlines if not headline.higher_is_better)
        return not metric.startswith(lower) and higher_is_better(metric)

    def unparsed(self, run: Run) -> tuple[float, float]:
        """``(answers that did not parse, answers asked for)`` in a run."""
        return run.metrics.get("parse_failures", math.nan), run.samples * self.answers_per_sample(run)

    def parse_failure_rate(self, run: Run) -> float:
        """The share of the run's answers that did not parse: logged by the suite, or from the counts."""
        if "parse_failure_rate" in run.metrics:
            return run.metrics["parse_failure_rate"]
        failures, answers = self.unparsed(run)
        return failures / answers if answers > 0 else math.nan


def sample_size(run: Run, metric: str) -> float | None:
    """``<base>_n<suffix>`` for ``<base><suffix>``, the items a rate or an agreement rests on, if logged."""
    base, slash, suffix = metric.partition("/")
    return run.metrics.get(f"{base}_n{slash}{suffix}")


def confidence_interval(run: Run, metric: str) -> tuple[float, float] | None:
    """``(<base>_ci_low<suffix>, <base>_ci_high<suffix>)`` for ``<base><suffix>``, the suites' naming, if logged."""
    base, slash, suffix = metric.partition("/")
    low, high = (run.metrics.get(f"{base}_ci_{side}{slash}{suffix}") for side in ("low", "high"))
    return None if low is None or high is None else (low, high)


def _present(run: Run, names: Sequence[str]) -> list[str]:
    return [name for name in names if name in run.metrics]


def _matching(run: Run, pattern: str) -> list[str]:
    expression = re.compile(pattern)
    return [name for name in run.metrics if expression.fullmatch(name)]


# DHP -----------------------------------------------------------------------------------------------------------------


def _dhp_cells(run: Run) -> list[tuple[str, str, str]]:
    perturbations = list(run.metadata.get("perturbations") or [])
    cells = [(run.task, "D_avg", "D_avg"), (run.task, "D_min", "D_min")]
    return cells + [(run.task, perturbation, f"D/{perturbation}") for perturbation in perturbations]


DHP = SuiteView(
    DHP_DEFINITION,
    title="DHP discernment (D > 1: damage noticed at the 5 % level)",
    task_prefixes=("dhp_",),
    answers_per_sample=lambda run: float(len(run.metadata.get("metrics") or [1]) * (run.setting("repeats") or 1)),
    paper_tables=(PaperTable("dhp_d_by_perturbation", "DHP: D per perturbation by dataset", _dhp_cells, "dataset"),),
)

DHP_GRADER = SuiteView(
    DHP_GRADER_DEFINITION,
    title="DHP with your grader: an inspect scorer as the judge (D > 1: damage noticed at the 5 % level)",
    task_prefixes=("dhp_grader_",),
    answers_per_sample=lambda run: 1.0,
    paper_tables=(
        PaperTable("dhp_grader_d_by_perturbation", "DHP with your grader: D per perturbation", _dhp_cells, "dataset"),
    ),
)

# FBI -----------------------------------------------------------------------------------------------------------------


def _fbi_cells(run: Run) -> list[tuple[str, str, str]]:
    categories = _matching(run, r"error_rate/[a-z_]+/[a-z_]+")
    return [(name.removeprefix("error_rate/"), run.task, name) for name in categories] + [
        ("score_invariant", run.task, name) for name in _present(run, ("si_error_rate",))
    ]


FBI = SuiteView(
    FBI_DEFINITION,
    title="FBI blind spots (error rate: lower is better)",
    task_prefixes=("fbi_",),
    answers_per_sample=lambda run: 1.0 if run.setting("paradigm") == "reference" else 2.0,
    kind_on=("paradigm",),
    paper_tables=(
        PaperTable("fbi_failure_rate_by_category", "FBI: failure rate per category", _fbi_cells, "category", "column"),
    ),
    hub_dataset=lambda run: "ai4bharat/FBI",
)

FBI_GRADER = SuiteView(
    FBI_GRADER_DEFINITION,
    title="FBI with your grader: an inspect scorer as the judge (error rate: lower is better)",
    task_prefixes=("fbi_grader",),
    answers_per_sample=lambda run: 2.0,
    paper_tables=(
        PaperTable(
            "fbi_grader_failure_rate_by_category",
            "FBI with your grader: failure rate per category",
            _fbi_cells,
            "category",
            "column",
        ),
    ),
)

# Instruction adherence -----------------------------------------------------------------------------------------------


def _adherence_dataset(run: Run) -> str:
    setting = run.setting("setting")
    return run.task.removeprefix("adherence_").removesuffix(f"_{setting}")


def _adherence_setting_cells(run: Run) -> list[tuple[str, str, str]]:
    return [(_adherence_dataset(run), str(run.setting("setting")), "pearson")] if "pearson" in run.metrics else []


def _adherence_criterion_cells(run: Run) -> list[tuple[str, str, str]]:
    criteria = run.metadata.get("criteria") or {}
    return [
        (f"{_adherence_dataset(run)}/{name}", str(run.setting("setting")), f"pearson/{name}")
        for name in criteria
        if f"pearson/{name}" in run.metrics
    ]


def _adherence_group_cells(run: Run) -> list[tuple[str, str, str]]:
    """Each dataset's own group means, one row per dataset and group."""
    return [
        (f"{_adherence_dataset(run)}/{name.removeprefix('pearson/group/')}", str(run.setting("setting")), name)
        for name in _matching(run, r"pearson/group/.+")
    ]


POOLED_GROUP_ROW = "all datasets"


def _adherence_group_pool(runs: Sequence[Run]) -> tuple[list[tuple[str, str, list[Contribution]]], list[str]]:
    """The paper's per-group figure: per setting, the mean of ``sign * pearson`` over all of a group's criteria in
    every dataset the judge was run on (each criterion once; the cell says how many). A dataset run twice under one
    setting (two configs) would count twice, so that group mean is left out, with a note."""
    by_setting: dict[str, list[Run]] = {}
    for run in runs:
        by_setting.setdefault(str(run.setting("setting")), []).append(run)
    cells, notes = [], []
    for setting, setting_runs in by_setting.items():
        datasets = [_adherence_dataset(run) for run in setting_runs]
        repeated = sorted({dataset for dataset in datasets if datasets.count(dataset) > 1})
        if repeated:
            notes.append(
                f"adherence groups, setting {setting}: {setting_runs[0].judge} has several non-comparable runs of "
                f"{', '.join(repeated)}; the mean over all datasets is left out for this setting"
            )
            continue
        groups: dict[str, list[Contribution]] = {}
        for run in setting_runs:
            for name, info in (run.metadata.get("criteria") or {}).items():
                metric = f"pearson/{name}"
                if info.get("group") and not math.isnan(run.metrics.get(metric, math.nan)):
                    groups.setdefault(info["group"], []).append((run, metric, float(info.get("expected_sign", 1))))
        cells += [(f"{POOLED_GROUP_ROW}/{group}", setting, values) for group, values in sorted(groups.items())]
    return cells, notes


def _few_systems_notes(run: Run) -> list[str]:
    """A caveat on a run's ``system_tau`` where it ranks fewer than ``FEW_SYSTEMS`` systems."""
    caveat = few_systems_caveat(int(run.metrics.get("n_systems", 0) or 0))
    if caveat is None or math.isnan(run.metrics.get("system_tau", math.nan)):
        return []
    return [f"{run.task}: system_tau is coarse {caveat}"]


ADHERENCE = SuiteView(
    ADHERENCE_DEFINITION,
    title="Instruction adherence (Pearson with the humans, oriented: higher is better)",
    task_prefixes=("adherence_",),
    answers_per_sample=lambda run: float(len(run.metadata.get("questions") or {}) * (run.setting("repeats") or 1)),
    kind_on=("setting",),
    run_notes=_few_systems_notes,
    paper_tables=(
        PaperTable(
            "adherence_table1",
            "Adherence Table 1/2: Pearson per dataset and setting",
            _adherence_setting_cells,
            "dataset",
        ),
        PaperTable(
            "adherence_table3",
            "Adherence Table 3: Pearson per criterion and setting",
            _adherence_criterion_cells,
            "criterion",
        ),
        PaperTable(
            "adherence_groups",
            "Adherence: Pearson per taxonomy group and setting (mean over its criteria; all datasets, then each)",
            _adherence_group_cells,
            "group",
            pooled=_adherence_group_pool,
        ),
    ),
)

# CoEval --------------------------------------------------------------------------------------------------------------


def _coeval_criteria_cells(run: Run) -> list[tuple[str, str, str]]:
    dataset = str(run.setting("dataset"))
    return [(dataset, name, name) for name in _present(run, ("cc", "icc", "coverage"))]


def _identical_lists_notes(run: Run) -> list[str]:
    """The flag for a run whose sampled criteria lists came back identical: its CC and ICC measure nothing."""
    identical = run.metrics.get("identical_lists", 0.0)
    if not identical > 0:
        return []
    return [
        f"{run.location}: {IDENTICAL_LISTS} ({run.judge}): in {identical:g} of {run.samples} task descriptions the "
        f"sampled criteria lists are one text repeated although temperature {run.setting('temperature')} was asked "
        "for, so cc and icc are undefined there (n/a where every one is)"
    ]


COEVAL_CRITERIA = SuiteView(
    COEVAL_CRITERIA_DEFINITION,
    title="CoEval criteria consistency (CC, ICC) and coverage of the curated criteria",
    task_prefixes=("coeval_criteria_",),
    answers_per_sample=lambda run: float((run.setting("samples") or 0) + 1),
    paper_tables=(
        PaperTable("coeval_table1", "CoEval Table 1: CC and ICC per dataset", _coeval_criteria_cells, "dataset"),
    ),
    run_notes=_identical_lists_notes,
)


def _coeval_scoring_cells(run: Run) -> list[tuple[str, str, str]]:
    names = _matching(run, r"(pearson|spearman)/(?!group/).+") + _present(run, ("alpha/annotators", "alpha/with_judge"))
    return [(run.task, name, name) for name in names]


RATER_AND_TASK = " · "
"""Joins the first rater and the task in a row of the pair tables; the task comes last, where the report appends
its config tag, so the rater is what precedes the last separator."""


def _coeval_pair_cells(suffix: str) -> Callable[[Run], list[tuple[str, str, str]]]:
    """Cells of α per pair of raters (``alpha/pair/<first>/<second><suffix>``): row ``<first> · <task>``,
    column the second rater, so each judge's rows of one task form the paper's agreement matrix."""
    pair = re.compile(rf"alpha/pair/([^/]+)/([^/]+){re.escape(suffix)}")

    def cells(run: Run) -> list[tuple[str, str, str]]:
        named = [(pair.fullmatch(name), name) for name in run.metrics]
        return [(f"{found[1]}{RATER_AND_TASK}{run.task}", found[2], name) for found, name in named if found]

    return cells


COEVAL_SCORING = SuiteView(
    COEVAL_SCORING_DEFINITION,
    title="CoEval criterion scoring (correlation with the annotators, Krippendorff's alpha)",
    task_prefixes=("coeval_",),
    answers_per_sample=lambda run: float(len(run.metadata.get("criteria") or [1]) * (run.setting("repeats") or 1)),
    paper_tables=(
        PaperTable("coeval_tables5_7", "CoEval Tables 5-7: correlations per criterion", _coeval_scoring_cells, "task"),
        PaperTable(
            "coeval_alpha_pairs",
            "CoEval Figures 5-7: Krippendorff's alpha per pair of raters (item × criterion units)",
            _coeval_pair_cells(""),
            "first rater · task",
        ),
        PaperTable(
            "coeval_alpha_pairs_overall",
            "CoEval: Krippendorff's alpha per pair of raters on the overall score",
            _coeval_pair_cells("/overall"),
            "first rater · task",
        ),
    ),
)

# Your grader against your labels -------------------------------------------------------------------------------------

GRADER_AGREEMENT = SuiteView(
    GRADER_AGREEMENT_DEFINITION,
    title="Your grader against your labels (kappa, Pearson: higher is better)",
    task_prefixes=("grader_agreement",),
    answers_per_sample=lambda run: 1.0,
)

SUITES: tuple[SuiteView, ...] = (
    DHP,
    DHP_GRADER,
    FBI,
    FBI_GRADER,
    ADHERENCE,
    COEVAL_CRITERIA,
    COEVAL_SCORING,
    GRADER_AGREEMENT,
)


def suite_of(run: Run) -> SuiteView | None:
    """The view whose task prefix matches the run's task best (the longest prefix wins)."""
    matches = [(len(prefix), view) for view in SUITES for prefix in view.task_prefixes if run.task.startswith(prefix)]
    return max(matches, key=lambda match: match[0])[1] if matches else None
