"""A grader against human labels: accuracy, Cohen's kappa with linear weights on the values, balanced F1 for two
classes, the annotators' leave-one-out agreement and the grader on the same footing, each with its item-bootstrap
interval.

Plain NumPy. Every judgment of an item is paired with every label of it (each epoch's grade with each annotator's
label), and a statistic is a function of the table of (grade, label) pair counts, so that item weights (an item drawn
twice weighs 2) give every resample's table at once and one draw of items serves every statistic: the bootstrap
here, the report's paired comparisons of graders there (:class:`scorers.paired.ItemStatistic`). Pearson and
Spearman for numeric labels come from :mod:`scorers.correlation`, on the grade and label means of each item.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, metric

from scorers.correlation import Method, correlations, percentile_interval
from scorers.discernment import (
    BOOTSTRAP_CONFIDENCE,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    MIN_BOOTSTRAP_ITEMS,
    draw_counts,
    resampled_items,
)
from scorers.grader import GRADE, SCORER_ERRORS
from scorers.ppi import CORRECTED, Summary, pass_rate_metrics
from scorers.values import as_float, headlines_first, unanswered

LabelScale = Literal["binary", "ordinal", "numeric"]
LABEL_SCALES: tuple[LabelScale, ...] = ("binary", "ordinal", "numeric")

MAX_LEVELS = 11
"""Labels with more distinct values than this (a 0-10 scale has 11) are numeric: correlations, no kappa."""

TableStatistic = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""A statistic of pair tables: ``(tables (resamples, K, K), levels (K,))`` to one value per resample (NaN where
undefined); rows are the first rater's values (the grader's), columns the second's (the labels)."""


def label_scale(labels: Sequence[float]) -> LabelScale:
    """``binary`` for two distinct label values, ``ordinal`` for three to :data:`MAX_LEVELS`, ``numeric`` beyond."""
    distinct = np.unique(np.asarray(labels, dtype=float))
    if distinct.size <= 2:
        return "binary"
    return "ordinal" if distinct.size <= MAX_LEVELS else "numeric"


def _padded(values: Sequence[Sequence[float]]) -> np.ndarray:
    """``(items, longest)``: each item's values, NaN-padded."""
    width = max((len(row) for row in values), default=0)
    matrix = np.full((len(values), width), np.nan)
    for item, row in enumerate(values):
        matrix[item, : len(row)] = row
    return matrix


def pair_tables(first: Sequence[Sequence[float]], second: Sequence[Sequence[float]], levels: np.ndarray) -> np.ndarray:
    """``(items, K, K)``: for each item, how often each (first value, second value) pair occurs among every value of
    ``first[i]`` paired with every value of ``second[i]`` (NaN values left out). Values must be among ``levels``."""
    tables = np.zeros((len(first), levels.size, levels.size))
    ours, theirs = _padded(first), _padded(second)
    if len(ours) != len(theirs):
        raise ValueError(f"{len(ours)} items on one side, {len(theirs)} on the other")
    items = np.arange(len(ours))
    for row in ours.T:
        for column in theirs.T:
            both = np.isfinite(row) & np.isfinite(column)
            cells = (items[both], np.searchsorted(levels, row[both]), np.searchsorted(levels, column[both]))
            np.add.at(tables, cells, 1.0)
    return tables


def weighted_tables(tables: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``(resamples, K, K)``: the items' pair tables added up under each row of item weights ``(resamples, items)``."""
    k = tables.shape[-1]
    return (weights @ tables.reshape(len(tables), k * k)).reshape(len(weights), k, k)


def _shares(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    totals = tables.sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        return tables / totals[:, None, None], totals


def agreement_weights(levels: np.ndarray) -> np.ndarray:
    """Linear agreement weights on the values, ``1 - |v_i - v_j| / (max - min)``: 1 on the diagonal, 0 between the
    extremes. With two levels they are Cohen's unweighted kappa's; on equally spaced levels, the usual linear
    weights ``1 - |i - j| / (K - 1)``."""
    if levels.size < 2:
        return np.ones((levels.size, levels.size))
    return 1.0 - np.abs(levels[:, None] - levels[None, :]) / (levels[-1] - levels[0])


def kappa(tables: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Cohen's kappa with linear weights on the values: ``(p_o - p_e) / (1 - p_e)``, observed and chance agreement
    weighted by :func:`agreement_weights`; NaN where chance agreement is 1 (both sides one value) or no pair."""
    shares, totals = _shares(tables)
    weights = agreement_weights(levels)
    observed = (shares * weights).sum(axis=(1, 2))
    chance = np.einsum("ri,ij,rj->r", shares.sum(axis=2), weights, shares.sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (observed - chance) / (1.0 - chance)
    return np.where((totals > 0) & (1.0 - chance > 1e-12), value, np.nan)


def accuracy(tables: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """The share of pairs whose two values are equal; NaN without pairs."""
    shares, totals = _shares(tables)
    return np.where(totals > 0, np.trace(shares, axis1=1, axis2=2), np.nan)


def balanced_f1(tables: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """The mean of the F1 of the higher label value (pass) and of the lower (fail), as HealthBench's meta-evaluation
    scores a grader against physicians: a grade is a pass where it equals the higher value. NaN where either F1 is
    0/0 (neither side ever gives that class)."""
    high = levels.size - 1
    true_pass = tables[:, high, high]
    graded_pass, labelled_pass = tables[:, high, :].sum(axis=1), tables[:, :, high].sum(axis=1)
    totals = tables.sum(axis=(1, 2))
    true_fail = totals - graded_pass - labelled_pass + true_pass
    with np.errstate(divide="ignore", invalid="ignore"):
        f1_pass = 2 * true_pass / (graded_pass + labelled_pass)
        f1_fail = 2 * true_fail / ((totals - graded_pass) + (totals - labelled_pass))
    return (f1_pass + f1_fail) / 2


STATISTICS: dict[str, TableStatistic] = {"kappa": kappa, "accuracy": accuracy, "balanced_f1": balanced_f1}
"""The table statistics by metric name; ``balanced_f1`` only for binary labels."""


def statistics_for(scale: LabelScale) -> tuple[str, ...]:
    """The table statistics a label scale gets: all three for binary labels, kappa and accuracy for ordinal ones,
    none for numeric ones (they get correlations)."""
    return {"binary": ("kappa", "accuracy", "balanced_f1"), "ordinal": ("kappa", "accuracy"), "numeric": ()}[scale]


@dataclass(frozen=True)
class LabelledItems:
    """Each item's grades (one per epoch; NaN where the grader gave none) and the annotators' labels."""

    grades: tuple[tuple[float, ...], ...]
    labels: np.ndarray
    """``(annotators, items)``, NaN where an annotator gave no label."""
    annotators: tuple[str, ...]

    @property
    def levels(self) -> np.ndarray:
        """Every value a grade or a label takes, ascending."""
        values = [value for grades in self.grades for value in grades] + list(self.labels[np.isfinite(self.labels)])
        return np.unique(np.asarray([value for value in values if math.isfinite(value)], dtype=float))

    def grader_tables(self, levels: np.ndarray) -> np.ndarray:
        """``(items, K, K)``: each epoch's grade paired with each label of the item."""
        return pair_tables(self.grades, [tuple(column) for column in self.labels.T], levels)

    def mean_grades(self) -> np.ndarray:
        """Each item's mean grade over its epochs (NaN where it has none)."""
        return np.array([_nan_mean(grades) for grades in self.grades])

    def mean_labels(self) -> np.ndarray:
        """Each item's mean label over its annotators."""
        return np.array([_nan_mean(column) for column in self.labels.T])


def _nan_mean(values: Sequence[float] | np.ndarray) -> float:
    finite = [float(value) for value in values if math.isfinite(value)]
    return float(np.mean(finite)) if finite else math.nan


@dataclass(frozen=True)
class LeaveOneOut:
    """Per annotator, the pair tables of that annotator against the other annotators' labels and of the grader
    against the same labels on the same items: ``(annotators, items, K, K)`` each."""

    annotator: np.ndarray
    grader: np.ndarray


def leave_one_out_tables(items: LabelledItems, levels: np.ndarray) -> LeaveOneOut:
    """For each annotator a: a's labels paired with every other annotator's label of the same item, and the
    grader's grades paired with those same other labels, on the items a labelled: the grader scored on the footing
    of one more annotator against the rest."""
    n_annotators, n_items = items.labels.shape
    human = np.zeros((n_annotators, n_items, levels.size, levels.size))
    grader = np.zeros_like(human)
    for index in range(n_annotators):
        own = items.labels[index]
        others = np.delete(items.labels, index, axis=0)
        labelled = np.isfinite(own)
        other_columns = [tuple(column) if labelled[i] else () for i, column in enumerate(others.T)]
        human[index] = pair_tables([(value,) for value in own], other_columns, levels)
        grader[index] = pair_tables(items.grades, other_columns, levels)
    return LeaveOneOut(human, grader)


def leave_one_out_statistic(
    tables: np.ndarray, levels: np.ndarray, statistic: TableStatistic
) -> Callable[[np.ndarray], np.ndarray]:
    """The mean over annotators of ``statistic`` on their leave-one-out tables (``(annotators, items, K, K)``), as a
    function of item weights. The annotators averaged are those whose statistic is defined on every item; a weight
    row on which one of them is undefined is NaN, so every resample averages the same annotators."""
    ones = np.ones((1, tables.shape[1]))
    defined = [table for table in tables if np.isfinite(statistic(weighted_tables(table, ones), levels)[0])]

    def compute(weights: np.ndarray) -> np.ndarray:
        if not defined:
            return np.full(len(weights), np.nan)
        return np.mean([statistic(weighted_tables(table, weights), levels) for table in defined], axis=0)

    return compute


def table_statistic(
    tables: np.ndarray, levels: np.ndarray, statistic: TableStatistic
) -> Callable[[np.ndarray], np.ndarray]:
    """``statistic`` on the items' pair tables ``(items, K, K)`` as a function of item weights."""
    return lambda weights: statistic(weighted_tables(tables, weights), levels)


@dataclass(frozen=True)
class Estimate:
    """A statistic, its item-bootstrap interval and why it is NaN where it is."""

    value: float
    low: float
    high: float
    reason: str | None = None


def item_resamples(n_items: int, n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """``(n_resamples, n_items)``: how often each item is drawn in each resample (items drawn with replacement by
    :func:`scorers.discernment.resampled_items`), shared by every statistic of one report."""
    return draw_counts(resampled_items(n_items, n_resamples, seed), n_items)


def bootstrap(
    compute: Callable[[np.ndarray], np.ndarray], counts: np.ndarray, confidence: float = BOOTSTRAP_CONFIDENCE
) -> Estimate:
    """A statistic of item weights on all items (all weights 1) and its percentile interval over the item
    resamples ``counts`` (:func:`item_resamples`), by :func:`estimate`."""
    return estimate(compute(np.vstack([np.ones((1, counts.shape[1])), counts])), confidence)


def estimate(values: np.ndarray, confidence: float = BOOTSTRAP_CONFIDENCE) -> Estimate:
    """The statistic on all items (``values[0]``) and the percentile interval of its item resamples
    (``values[1:]``). NaN bounds with the reason where the statistic is undefined, there are fewer than two
    resamples, or more than 1 % of the resamples are undefined."""
    value = float(values[0])
    if math.isnan(value):
        return Estimate(value, math.nan, math.nan, "undefined on these items")
    resampled = values[1:]
    if resampled.size < 2:
        return Estimate(value, math.nan, math.nan, f"{resampled.size} resample(s); an interval needs two")
    low, high = percentile_interval(resampled, confidence)
    if math.isnan(low):
        share = float(np.mean(~np.isfinite(resampled)))
        return Estimate(value, low, high, f"undefined in {share:.0%} of the item resamples")
    return Estimate(value, low, high)


def _mean_of_defined(values: Sequence[np.ndarray]) -> np.ndarray:
    """The mean over annotators of a statistic (one row of ``[all items, resamples...]`` each), over those defined on
    all items: a resample where one of them is undefined is NaN, so every resample averages the same annotators."""
    defined = [row for row in values if np.isfinite(row[0])]
    return np.mean(defined, axis=0) if defined else np.full(len(values[0]) if values else 1, np.nan)


def _named(metrics: dict[str, float], name: str, estimate: Estimate) -> None:
    base, slash, suffix = name.partition("/")
    metrics[name] = estimate.value
    metrics[f"{base}_ci_low{slash}{suffix}"] = estimate.low
    metrics[f"{base}_ci_high{slash}{suffix}"] = estimate.high


HUMANS = "humans"
"""Suffix of the annotators' leave-one-out agreement (``kappa/humans``)."""

SAME_FOOTING = "grader_same_footing"
"""Suffix of the grader's agreement with the labels each annotator is compared with (``kappa/grader_same_footing``)."""

FOOTING_DIFFERENCE = "grader_minus_humans"
"""Suffix of the grader's same-footing agreement minus the annotators' (``kappa/grader_minus_humans``): an interval
that holds 0 says the grader is within human disagreement."""


def label_agreement_report(
    items: LabelledItems,
    scale: LabelScale,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, float]:
    """Every statistic of the scale with its item-bootstrap interval (``<name>_ci_low`` / ``_ci_high``): the
    grader against all labels; with two or more annotators also the annotators' leave-one-out agreement
    (``<name>/humans``), the grader on the same footing (``<name>/grader_same_footing``) and their difference.
    Items without a grade or a label enter no statistic."""
    metrics: dict[str, float] = {}
    n_items = len(items.grades)
    names = statistics_for(scale)
    if not names or n_items == 0:
        return metrics
    levels = items.levels
    weights = np.vstack([np.ones((1, n_items)), item_resamples(n_items, n_resamples, seed)])
    if n_items < MIN_BOOTSTRAP_ITEMS:
        weights = weights[:1]
    tables = weighted_tables(items.grader_tables(levels), weights)
    for name in names:
        _named(metrics, name, estimate(STATISTICS[name](tables, levels)))
    if len(items.annotators) < 2:
        return metrics
    loo = leave_one_out_tables(items, levels)
    annotator_tables = [weighted_tables(table, weights) for table in loo.annotator]
    grader_tables = [weighted_tables(table, weights) for table in loo.grader]
    for name in names:
        humans = _mean_of_defined([STATISTICS[name](table, levels) for table in annotator_tables])
        grader = _mean_of_defined([STATISTICS[name](table, levels) for table in grader_tables])
        _named(metrics, f"{name}/{HUMANS}", estimate(humans))
        _named(metrics, f"{name}/{SAME_FOOTING}", estimate(grader))
        _named(metrics, f"{name}/{FOOTING_DIFFERENCE}", estimate(grader - humans))
    return metrics


def majority_class_values(labels: np.ndarray, levels: np.ndarray) -> dict[str, float]:
    """What a grader that always gives the most frequent label gets on these labels (pairs pooled as for the
    grader, one grade per item): kappa 0 (exact: a constant grader agrees only by chance; NaN where the labels
    are one value), accuracy the majority's share, balanced F1 where there are two levels."""
    finite = labels[np.isfinite(labels)]
    if finite.size == 0:
        return {name: math.nan for name in STATISTICS}
    values, counts = np.unique(finite, return_counts=True)
    majority = values[np.argmax(counts)]
    column = np.searchsorted(levels, finite)
    table = np.zeros((1, levels.size, levels.size))
    np.add.at(table[0], (np.full(column.size, np.searchsorted(levels, majority)), column), 1.0)
    return {name: float(statistic(table, levels)[0]) for name, statistic in STATISTICS.items()}


LABELS_KEY = "labels"
"""Sample metadata: ``{annotator: label}``, each label as a number."""


def labelled_items(judgments: Iterable[tuple[str, Mapping[str, Any], Any]]) -> tuple[tuple[str, ...], LabelledItems]:
    """The items' ids and :class:`LabelledItems` from ``(sample id, sample metadata, score value)`` of every sample
    and epoch scored so far (an item's epochs in the order given; values that are not score dicts left out)."""
    grades: dict[str, list[float]] = {}
    annotations: dict[str, Mapping[str, float]] = {}
    for sample_id, metadata, value in judgments:
        if not isinstance(value, Mapping):
            continue
        grades.setdefault(sample_id, []).append(as_float(value.get(GRADE)))
        annotations[sample_id] = metadata.get(LABELS_KEY) or {}
    annotators = tuple(sorted({name for labels in annotations.values() for name in labels}))
    ids = tuple(grades)
    labels = np.array(
        [[float(annotations[item].get(name, math.nan)) for item in ids] for name in annotators], dtype=float
    ).reshape(len(annotators), len(ids))
    return ids, LabelledItems(tuple(tuple(grades[item]) for item in ids), labels, annotators)


HEADLINES = ("kappa", "pearson", "accuracy", "balanced_f1", "spearman", CORRECTED, "kappa_n", "parse_failures")
"""Shown first in inspect's results table."""

CORRELATIONS: tuple[Method, ...] = ("pearson", "spearman")
"""The correlations of the item means, for ordinal and numeric labels."""


@metric(scores="unreduced")
def label_agreement(
    scale: str,
    unlabelled_n: int = 0,
    unlabelled_mean: float | None = None,
    unlabelled_variance: float | None = None,
) -> Metric:
    """The grader against the labels (:func:`label_agreement_report`; Pearson and Spearman of the item means for
    ordinal and numeric labels), ``<statistic>_n`` (items with a grade and a label), ``pairs``, ungraded submissions
    (``parse_failures``, ``scorer_errors``; ``unanswered``: recorded grades without a row), and with the unlabelled
    outputs' grades (count, mean, variance) the corrected pass rate (:func:`scorers.ppi.pass_rate_metrics`).

    Takes inspect's unreduced scores: each epoch's grade is one judgment, paired with every label of its item."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        judgments = [(str(s.sample_id), s.sample_metadata or {}, s.score.value) for s in scores]
        _, items = labelled_items(judgments)
        metrics = label_agreement_report(items, cast(LabelScale, scale))
        grades, labels = items.mean_grades(), items.mean_labels()
        if scale != "binary":
            for method, estimate in correlations(grades.tolist(), labels.tolist(), CORRELATIONS).items():
                _named(metrics, method, Estimate(estimate.value, estimate.low, estimate.high))
        both = float((np.isfinite(grades) & np.isfinite(labels)).sum())
        for name in (*statistics_for(cast(LabelScale, scale)), *(() if scale == "binary" else CORRELATIONS)):
            metrics[f"{name}_n"] = both
        metrics["pairs"] = float(items.grader_tables(items.levels).sum()) if items.grades else 0.0
        if unlabelled_n > 0 and unlabelled_mean is not None:
            variance = math.nan if unlabelled_variance is None else unlabelled_variance
            unlabelled = Summary(unlabelled_n, unlabelled_mean, variance)
            metrics.update(pass_rate_metrics(unlabelled, grades, labels))
        values = [value for _, _, value in judgments if isinstance(value, Mapping)]
        for key in ("parse_failures", SCORER_ERRORS):
            counted = [as_float(value.get(key)) for value in values]
            metrics[key] = float(sum(count for count in counted if not math.isnan(count)))
        metrics.update(unanswered(values))
        return headlines_first(metrics, HEADLINES)

    return compute
