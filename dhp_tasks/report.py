"""What the report shows of DHP and of DHP with the user's grader: D per perturbation by dataset, and ``D_avg``
item by item (the pairs it is computed from) with its random and constant judges."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dhp_tasks.definition import DHP, DHP_GRADER
from judge_data.views import ItemHeadline, PaperTable, Run, Sample, SuiteView, item_key
from scorers.discernment import LEVELS, item_bootstrap, rated_below
from scorers.paired import ItemStatistic
from scorers.references import DhpLayout, Reference, dhp_references
from scorers.values import as_float
from solvers.geval import ANSWERS_STORE_KEY


def _dhp_cells(run: Run) -> list[tuple[str, str, str]]:
    perturbations = list(run.metadata.get("perturbations") or [])
    cells = [(run.task, "D_avg", "D_avg"), (run.task, "D_min", "D_min")]
    return cells + [(run.task, perturbation, f"D/{perturbation}") for perturbation in perturbations]


@dataclass(frozen=True)
class DhpItems:
    """A DHP run's original-minus-perturbed differences, ``(perturbation, metric, item)``, NaN where no pair."""

    items: tuple[str, ...]
    perturbations: tuple[str, ...]
    levels: tuple[str, ...]
    metrics: tuple[str, ...]
    differences: np.ndarray
    paired: np.ndarray
    """``(perturbation, item)``: whether the task holds the perturbed copy, judged or not."""


def dhp_items(run: Run, samples: Sequence[Sample]) -> DhpItems:
    """The pairs the suite's D is computed from, by item (dataset and item id)."""
    metrics = tuple(run.metadata.get("metrics") or ())
    originals: dict[str, Mapping[str, Any]] = {}
    perturbed: dict[str, dict[str, Mapping[str, Any]]] = {}
    levels: dict[str, str] = {}
    for sample in samples:
        item, variant = str(sample.metadata.get("item_id")), str(sample.metadata.get("perturbation"))
        if variant == "original":
            originals[item] = sample.value
        elif sample.metadata.get("level") in LEVELS:
            perturbed.setdefault(variant, {})[item] = sample.value
            levels[variant] = str(sample.metadata["level"])
    names = tuple(sorted(perturbed, key=lambda name: (LEVELS.index(levels[name]), name)))
    items = sorted(originals)
    differences = np.full((len(names), len(metrics), len(items)), np.nan)
    paired = np.zeros((len(names), len(items)), dtype=bool)
    for k, name in enumerate(names):
        for i, item in enumerate(items):
            if item in perturbed[name]:
                paired[k, i] = True
                for j, metric in enumerate(metrics):
                    differences[k, j, i] = as_float(originals[item].get(metric)) - as_float(
                        perturbed[name][item].get(metric)
                    )
    keys = tuple(item_key(run, item, "dhp") for item in items)
    return DhpItems(keys, names, tuple(levels[name] for name in names), metrics, differences, paired)


def dhp_statistic(data: DhpItems, combine: str, metric: str = "D_avg") -> Callable[[np.ndarray], np.ndarray]:
    """``D_avg`` (or another discernment score) on item weights, through the suite's own :func:`item_bootstrap`:
    each weight row becomes the draws it stands for, padded with an item without pairs."""
    padded = np.concatenate([data.differences, np.full((*data.differences.shape[:2], 1), np.nan)], axis=2)
    empty = data.differences.shape[-1]
    metric_weights = np.ones((len(data.perturbations), len(data.metrics)))

    def compute(weights: np.ndarray) -> np.ndarray:
        counts = np.rint(weights).astype(int)
        width = max(int(counts.sum(axis=1).max()), 1)
        draws = np.full((len(counts), width), empty)
        for row, row_counts in enumerate(counts):
            drawn = np.repeat(np.arange(empty), row_counts)
            draws[row, : drawn.size] = drawn
        return item_bootstrap(padded, data.perturbations, data.levels, metric_weights, combine, draws)[metric]  # type: ignore[arg-type]

    return compute


def dhp_d_avg(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
    """``D_avg``: recomputed from the pairs on every draw of items, as the suite's own bootstrap does."""
    data = dhp_items(run, samples)
    answered = np.isfinite(data.differences).any(axis=(0, 1))
    return ItemStatistic(data.items, dhp_statistic(data, str(run.setting("combine") or "hmp")), answered=answered)


def dhp_rated_below(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
    """The probability that a damaged copy is rated below its original (:func:`scorers.discernment.rated_below`),
    the effect size the report shows beside ``D_avg``."""
    data = dhp_items(run, samples)
    answered = np.isfinite(data.differences).any(axis=(0, 1))

    def compute(weights: np.ndarray) -> np.ndarray:
        return rated_below(data.differences, data.levels, weights)

    return ItemStatistic(data.items, compute, answered=answered)


def d_avg_references(scale: Callable[[Sequence[Sample]], tuple[int, int]]) -> Callable[..., list[Reference]]:
    """``D_avg``'s random and constant judges, rating on the scale ``scale`` reads from a run's samples."""

    def references(runs: Sequence[Run], samples: Sequence[Sequence[Sample]]) -> list[Reference]:
        return _d_avg_references(runs, samples, [scale(task) for task in samples])

    return references


def _d_avg_references(
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


DHP_VIEW = SuiteView(
    DHP,
    title="DHP discernment (D > 1: damage noticed at the 5 % level)",
    task_prefixes=("dhp_",),
    answers_per_sample=lambda run: float(len(run.metadata.get("metrics") or [1]) * (run.setting("repeats") or 1)),
    paper_tables=(PaperTable("dhp_d_by_perturbation", "DHP: D per perturbation by dataset", _dhp_cells, "dataset"),),
    item_headlines={"D_avg": ItemHeadline(dhp_d_avg, d_avg_references(dhp_scale))},
)


DHP_GRADER_VIEW = SuiteView(
    DHP_GRADER,
    title="DHP with your grader: an inspect scorer as the judge (D > 1: damage noticed at the 5 % level)",
    task_prefixes=("dhp_grader_",),
    answers_per_sample=lambda run: 1.0,
    paper_tables=(
        PaperTable("dhp_grader_d_by_perturbation", "DHP with your grader: D per perturbation", _dhp_cells, "dataset"),
    ),
    item_headlines={"D_avg": ItemHeadline(dhp_d_avg, d_avg_references(grade_scale))},
)

VIEWS = (DHP_VIEW, DHP_GRADER_VIEW)
"""What the report shows of each of the suite's definitions."""
