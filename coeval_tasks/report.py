"""What the report shows of CoEval: Table 1's consistency of the judge-written criteria, Tables 5-7's correlations,
Krippendorff's alpha per pair of raters, and each headline item by item with its references."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from coeval_tasks.definition import COEVAL_CRITERIA, COEVAL_SCORING
from judge_data.views import (
    ItemHeadline,
    PaperTable,
    Run,
    Sample,
    SuiteView,
    item_key,
    matching_metrics,
    present_metrics,
)
from scorers.agreement import item_weighted_alpha, weighted_interval_alpha
from scorers.criteria_consistency import IDENTICAL_LISTS
from scorers.paired import ItemStatistic, joint_resamples, recentred_interval, weighted_mean
from scorers.references import CONSTANT, HUMAN, RANDOM, SIMULATIONS, Reference
from scorers.values import as_float


def _coeval_criteria_cells(run: Run) -> list[tuple[str, str, str]]:
    dataset = str(run.setting("dataset"))
    return [(dataset, name, name) for name in present_metrics(run, ("cc", "icc", "coverage"))]


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


def mean_of(key: str) -> Callable[[Run, Sequence[Sample]], ItemStatistic]:
    """A headline that is the mean over samples of one score-value key (CoEval's ``cc`` and ``icc``)."""

    def statistic(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
        values = np.array([as_float(sample.value.get(key)) for sample in samples])
        keys = tuple(item_key(run, s.id, "coeval") for s in samples)
        return ItemStatistic(keys, weighted_mean(values), answered=np.isfinite(values))

    return statistic


@dataclass(frozen=True)
class RatedUnits:
    """CoEval's (item, criterion) units: every rater's score (raters x units, NaN where missing) and each unit's
    item."""

    raters: np.ndarray
    unit_item: np.ndarray
    items: tuple[str, ...]


def coeval_units(run: Run, samples: Sequence[Sample], with_judge: bool = True) -> RatedUnits:
    """The annotators' (and the judge's, last) scores per (item, criterion), as the suite's α pools them."""
    criteria = list(run.metadata.get("criteria") or {})
    annotators = list(dict.fromkeys(a for s in samples for a in (s.metadata.get("annotator_ids") or [])))
    columns, unit_item = [], []
    for index, sample in enumerate(samples):
        ids = list(sample.metadata.get("annotator_ids") or [])
        scores = sample.metadata.get("annotators") or {}
        for criterion in criteria:
            given = dict(zip(ids, scores.get(criterion) or [None] * len(ids), strict=True))
            column = [as_float(given.get(annotator)) for annotator in annotators]
            if with_judge:
                column.append(as_float(sample.value.get(criterion)))
            columns.append(column)
            unit_item.append(index)
    raters = np.array(columns, dtype=float).T.reshape(len(annotators) + with_judge, len(columns))
    keys = tuple(item_key(run, sample.id, "coeval") for sample in samples)
    return RatedUnits(raters, np.array(unit_item, dtype=int), keys)


def alpha_statistic(units: RatedUnits) -> Callable[[np.ndarray], np.ndarray]:
    """α of the units on item weights (each unit weighs what its item does)."""
    return item_weighted_alpha(units.raters, units.unit_item, len(units.items))


def coeval_alpha_with_judge(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
    """``alpha/with_judge``: α of the annotators and the judge over the (item, criterion) units, items resampled."""
    units = coeval_units(run, samples)
    judged = np.bincount(units.unit_item, weights=np.isfinite(units.raters[-1]), minlength=len(units.items)) > 0
    return ItemStatistic(units.items, alpha_statistic(units), answered=judged)


def lists_references(metric: str) -> Callable[[Sequence[Run], Sequence[Sequence[Sample]]], list[Reference]]:
    """``cc`` and ``icc``'s random and constant judges: neither is defined for a judge that writes lists."""
    fixed = [
        Reference(
            RANDOM,
            math.nan,
            math.nan,
            math.nan,
            "none: the judge answers with lists of criteria, which have no scale to draw from",
        ),
        Reference(
            CONSTANT,
            math.nan,
            math.nan,
            math.nan,
            f"undefined: a judge that writes the same list every time has identical sampled lists, for which the "
            f"suite reports {metric.upper()} as NaN (agreement between samples that cannot differ measures nothing)",
        ),
    ]
    return lambda runs, samples: list(fixed)


def alpha_references(runs: Sequence[Run], samples: Sequence[Sequence[Sample]]) -> list[Reference]:
    """``alpha/with_judge``'s random and constant judges (simulated on the run's units) and the annotators' own
    alpha."""
    rng = np.random.default_rng(0)
    random_values, constant_values, statistics = [], [], []
    for run, task in zip(runs, samples, strict=True):
        units = coeval_units(run, task)
        ranges = [info.get("range") or (1, 5) for info in (run.metadata.get("criteria") or {}).values()]
        low, high = int(min(r[0] for r in ranges)), int(max(r[1] for r in ranges))
        annotators = units.raters[:-1]
        ones = np.ones((1, units.unit_item.size))
        judged = np.broadcast_to(np.isfinite(units.raters[-1]), (SIMULATIONS, units.unit_item.size))
        draws = np.where(judged, rng.integers(low, high + 1, size=judged.shape), np.nan)
        random_values.append([weighted_interval_alpha(np.vstack([annotators, row]), ones)[0] for row in draws])
        middle = np.where(np.isfinite(units.raters[-1]), (low + high) // 2, np.nan)
        constant_values.append(float(weighted_interval_alpha(np.vstack([annotators, middle]), ones)[0]))
        humans_only = RatedUnits(annotators, units.unit_item, units.items)
        statistics.append(ItemStatistic(units.items, alpha_statistic(humans_only)))
    simulated = np.mean(random_values, axis=0)
    finite = simulated[np.isfinite(simulated)]
    random_low, random_high = np.quantile(finite, [0.025, 0.975]) if finite.size else (math.nan, math.nan)
    ceiling = float(np.mean([statistic.estimate() for statistic in statistics]))
    ceiling_low, ceiling_high = recentred_interval(joint_resamples(statistics).mean(axis=1), ceiling)
    return [
        Reference(
            RANDOM,
            float(np.mean(finite)) if finite.size else math.nan,
            float(random_low),
            float(random_high),
            f"seeded simulation of {SIMULATIONS} judges scoring uniformly on the criteria's scale",
        ),
        Reference(
            CONSTANT,
            float(np.mean(constant_values)),
            math.nan,
            math.nan,
            "exact on these items: a judge that always gives the scale's middle score",
        ),
        Reference(
            HUMAN,
            ceiling,
            ceiling_low,
            ceiling_high,
            "alpha/annotators: a judge that agrees with the annotators as one of them does with the rest gives "
            "alpha/with_judge equal to the annotators' own alpha (item-bootstrap interval)",
        ),
    ]


COEVAL_CRITERIA_VIEW = SuiteView(
    COEVAL_CRITERIA,
    title="CoEval criteria consistency (CC, ICC) and coverage of the curated criteria",
    task_prefixes=("coeval_criteria_",),
    answers_per_sample=lambda run: float((run.setting("samples") or 0) + 1),
    paper_tables=(
        PaperTable("coeval_table1", "CoEval Table 1: CC and ICC per dataset", _coeval_criteria_cells, "dataset"),
    ),
    run_notes=_identical_lists_notes,
    item_headlines={
        name: ItemHeadline(mean_of(name), lists_references(name), references_read_items=False) for name in ("cc", "icc")
    },
)


def _coeval_scoring_cells(run: Run) -> list[tuple[str, str, str]]:
    names = matching_metrics(run, r"(pearson|spearman)/(?!group/).+") + present_metrics(
        run, ("alpha/annotators", "alpha/with_judge")
    )
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


COEVAL_SCORING_VIEW = SuiteView(
    COEVAL_SCORING,
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
    item_headlines={"alpha/with_judge": ItemHeadline(coeval_alpha_with_judge, alpha_references)},
)

VIEWS = (COEVAL_CRITERIA_VIEW, COEVAL_SCORING_VIEW)
"""What the report shows of each of the suite's definitions."""
