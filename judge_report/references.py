"""The yardsticks beside every leaderboard headline, from the data a run's log holds (its items, texts, human
scores), never from a model: see :mod:`scorers.references` for how each is computed."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from judge_report.items import (
    ItemReader,
    RatedUnits,
    Sample,
    alpha_statistic,
    coeval_units,
    dhp_items,
    grader_labels,
)
from judge_report.runs import Run
from scorers.agreement import weighted_interval_alpha
from scorers.labels import bootstrap, item_resamples, kappa, leave_one_out_statistic, leave_one_out_tables
from scorers.paired import ItemStatistic, joint_resamples, recentred_interval
from scorers.references import (
    CONSTANT,
    HUMAN,
    RANDOM,
    SIMULATIONS,
    DhpLayout,
    Reference,
    dhp_references,
    fbi_error_rate_references,
    label_references,
    leave_one_out,
    pearson_agreement,
    pearson_references,
    system_tau_agreement,
)
from scorers.values import as_float
from solvers.geval import ANSWERS_STORE_KEY

if TYPE_CHECKING:
    from judge_data.human import HumanItem

ONLY_MEANS = "no human ceiling: the data holds only the annotators' mean score per item"


def _fbi(runs: Sequence[Run], samples: Sequence[Sequence[Sample]]) -> list[Reference]:
    paradigm = str(runs[0].setting("paradigm"))
    perturbed = [[s for s in task if "ability" in s.metadata and not s.metadata.get("invariant")] for task in samples]
    longer = [
        [
            float(len(str(s.metadata.get("perturbed", ""))) >= len(str(s.metadata.get("gold", ""))))
            for s in task
            if "gold" in s.metadata
        ]
        for task in perturbed
    ]
    return fbi_error_rate_references(
        paradigm, [run.setting("scale") for run in runs], [len(task) for task in perturbed], longer
    )


def _dhp(
    runs: Sequence[Run], samples: Sequence[Sequence[Sample]], scales: Sequence[tuple[int, int]]
) -> list[Reference]:
    layouts = []
    for run, task, (low, high) in zip(runs, samples, scales, strict=True):
        data = dhp_items(run, task)
        layouts.append(
            DhpLayout(
                data.paired,
                data.perturbations,
                data.levels,
                len(data.metrics),
                low,
                high,
                int(run.setting("repeats") or 1),
            )
        )
    return dhp_references(layouts, str(runs[0].setting("combine") or "hmp"))


def grade_scale(samples: Sequence[Sample]) -> tuple[int, int]:
    """The whole-number range of a grader's grades in a run (0 to 1 for pass/fail), for a random grader to draw
    from."""
    grades = [as_float(s.value.get("grade")) for s in samples]
    finite = [grade for grade in grades if math.isfinite(grade)]
    return (math.floor(min(finite)), max(math.ceil(max(finite)), math.floor(min(finite)) + 1)) if finite else (0, 1)


def dhp_scale(samples: Sequence[Sample]) -> tuple[int, int]:
    """The rating scale a DHP run's prompts asked for, as its solver stored it (G-Eval's 1-5 otherwise)."""
    for sample in samples:
        stored = sample.store.get(ANSWERS_STORE_KEY) or {}
        if "low" in stored and "high" in stored:
            return int(stored["low"]), int(stored["high"])
    return 1, 5


def _adherence(runs: Sequence[Run], samples: Sequence[Sequence[Sample]]) -> list[Reference]:
    humans, scales = [], []
    for run, task in zip(runs, samples, strict=True):
        for name, info in (run.metadata.get("criteria") or {}).items():
            if not info.get("group"):
                continue
            human = np.array([as_float((s.metadata.get("human") or {}).get(name)) for s in task])
            low, high = info.get("range") or (1, 5)
            humans.append(human[np.isfinite(human)])
            scales.append((float(low), float(high), info.get("scale") == "binary"))
    references = pearson_references(humans, scales)
    footings = [human_footing(run, task) for run, task in zip(runs, samples, strict=True)]
    reasons = [footing for footing in footings if isinstance(footing, str)]
    if reasons:
        references.append(Reference(HUMAN, math.nan, math.nan, math.nan, reasons[0]))
    else:
        values = [footing.annotators["responses"] for footing in footings if not isinstance(footing, str)]
        references.append(
            Reference(
                HUMAN,
                float(np.mean(values)),
                math.nan,
                math.nan,
                "each annotator's Pearson with the mean of the others, per criterion over the run's items, averaged "
                "over annotators and then criteria (the annotators' scores read from the run's data_dir); a judge "
                "is scored against the mean of all annotators, a less noisy target, so compare it with the judges' "
                "values against the same leave-one-out means (the human ceiling table)",
            )
        )
    return references


FOOTING_LEVELS = ("responses", "systems")
"""The levels the human ceiling is compared at: agreement over responses (Pearson, as the headline) and over the
systems that wrote them (Kendall's tau-b of system means, as ``system_tau``)."""


@dataclass(frozen=True)
class HumanFooting:
    """One adherence run's agreement with leave-one-annotator-out means (:func:`scorers.references.leave_one_out`),
    per level of :data:`FOOTING_LEVELS`: the annotators' own and the judge's, each the mean over the criteria the
    headline averages (the judge's oriented by their signs); NaN where a level is undefined."""

    annotators: dict[str, float]
    judge: dict[str, float]


@lru_cache(maxsize=16)
def _annotated_items(folder: str) -> dict[str, HumanItem]:
    """A data folder's items by id (read once per report, whatever the number of judges)."""
    from judge_data.human import load_criteria, load_items

    criteria, _ = load_criteria(folder)
    return {item.id: item for item in load_items(folder, criteria)}


def human_footing(run: Run, samples: Sequence[Sample]) -> HumanFooting | str:
    """The annotators' and the judge's agreement with the same leave-one-annotator-out means, at the level of
    responses and of systems (where the samples name at least three), from the per-annotator scores in the run's
    data folder; or why there are none."""
    folder = run.setting("data_dir")
    if not folder or not (Path(str(folder)) / "items.jsonl").is_file():
        return "no human ceiling: the run names no data folder with items.jsonl to read the annotators' scores from"
    by_id = _annotated_items(str(folder))
    systems = [None if s.metadata.get("system") is None else str(s.metadata["system"]) for s in samples]
    agreements = {"responses": pearson_agreement, "systems": system_tau_agreement(systems)}
    annotators: dict[str, list[float]] = {level: [] for level in FOOTING_LEVELS}
    judge: dict[str, list[float]] = {level: [] for level in FOOTING_LEVELS}
    for name, info in (run.metadata.get("criteria") or {}).items():
        if not info.get("group"):
            continue
        rows = [list((by_id[s.id].annotator_scores or {}).get(name) or []) if s.id in by_id else [] for s in samples]
        width = max((len(row) for row in rows), default=0)
        if width < 2:
            return ONLY_MEANS
        matrix = np.array(
            [[math.nan if v is None else float(v) for v in row] + [math.nan] * (width - len(row)) for row in rows]
        ).T
        scores = np.array([as_float(s.value.get(name)) for s in samples])
        for level in FOOTING_LEVELS:
            found = leave_one_out(matrix, agreements[level], [scores])
            annotators[level].append(found.annotators)
            judge[level].append(int(info.get("expected_sign", 1)) * found.judges[0])
    return HumanFooting(
        {level: _mean_or_nan(values) for level, values in annotators.items()},
        {level: _mean_or_nan(values) for level, values in judge.items()},
    )


def _mean_or_nan(values: Sequence[float]) -> float:
    """The mean, NaN where any value is (a criterion undefined leaves the mean over the criteria undefined)."""
    return float(np.mean(values)) if values and not any(math.isnan(value) for value in values) else math.nan


def _coeval_lists(metric: str) -> list[Reference]:
    return [
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


def _coeval_alpha(runs: Sequence[Run], samples: Sequence[Sequence[Sample]]) -> list[Reference]:
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


def _grader_kappa(runs: Sequence[Run], samples: Sequence[Sequence[Sample]]) -> list[Reference]:
    labelled = [grader_labels(run, task)[1] for run, task in zip(runs, samples, strict=True)]
    by_task = [label_references(items.labels, [len(grades) for grades in items.grades]) for items in labelled]
    references = [
        Reference(
            first.reference,
            float(np.mean([task[index].value for task in by_task])),
            float(np.mean([task[index].low for task in by_task])),
            float(np.mean([task[index].high for task in by_task])),
            first.note,
        )
        for index, first in enumerate(by_task[0])
    ]
    if any(len(items.annotators) < 2 for items in labelled):
        references.append(Reference(HUMAN, math.nan, math.nan, math.nan, "no human ceiling: one annotator per output"))
        return references
    ceilings = []
    for items in labelled:
        levels = items.levels
        humans = leave_one_out_statistic(leave_one_out_tables(items, levels).annotator, levels, kappa)
        ceilings.append(bootstrap(humans, item_resamples(len(items.grades))))
    references.append(
        Reference(
            HUMAN,
            float(np.mean([ceiling.value for ceiling in ceilings])),
            float(np.mean([ceiling.low for ceiling in ceilings])),
            float(np.mean([ceiling.high for ceiling in ceilings])),
            "kappa/humans: each annotator's kappa with the other annotators' labels (pairs pooled), averaged over "
            "annotators, item-bootstrap interval; a grader's kappa/grader_same_footing (its kappa with the same "
            "labels on the same items) is the number to set beside it",
        )
    )
    return references


def _grader_pearson(runs: Sequence[Run], samples: Sequence[Sequence[Sample]]) -> list[Reference]:
    labelled = [grader_labels(run, task)[1] for run, task in zip(runs, samples, strict=True)]
    humans = [items.mean_labels()[np.isfinite(items.mean_labels())] for items in labelled]
    scales = [(float(np.min(human)), float(np.max(human)), False) for human in humans]
    references = pearson_references(humans, scales)
    ceilings = [
        leave_one_out(items.labels, pearson_agreement).annotators for items in labelled if len(items.annotators) >= 2
    ]
    if len(ceilings) == len(labelled):
        references.append(
            Reference(
                HUMAN,
                float(np.mean(ceilings)),
                math.nan,
                math.nan,
                "each annotator's Pearson with the mean of the others, averaged over annotators",
            )
        )
    return references


def column_references(suite: str, metric: str, runs: Sequence[Run], reader: ItemReader) -> list[Reference] | str:
    """The yardsticks of one headline over these runs (one per task of a column, of one judge), or why there are
    none."""
    if (suite, metric) in {("coeval_criteria", "cc"), ("coeval_criteria", "icc")}:
        return _coeval_lists(metric)
    read = [reader(run) for run in runs]
    missing = [why for why in read if isinstance(why, str)]
    if missing:
        return missing[0]
    samples = [task for task in read if not isinstance(task, str)]
    if (suite, metric) in {("fbi", "error_rate"), ("fbi_grader", "error_rate")}:
        return _fbi(runs, samples)
    if (suite, metric) == ("dhp", "D_avg"):
        return _dhp(runs, samples, [dhp_scale(task) for task in samples])
    if (suite, metric) == ("dhp_grader", "D_avg"):
        return _dhp(runs, samples, [grade_scale(task) for task in samples])
    if (suite, metric) == ("grader_agreement", "kappa"):
        return _grader_kappa(runs, samples)
    if (suite, metric) == ("grader_agreement", "pearson"):
        return _grader_pearson(runs, samples)
    if (suite, metric) == ("adherence", "pearson"):
        return _adherence(runs, samples)
    if (suite, metric) == ("coeval_scoring", "alpha/with_judge"):
        return _coeval_alpha(runs, samples)
    return f"the report has no references for {suite} {metric}"
