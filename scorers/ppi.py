"""The pass rate your eval reports, corrected for its grader's errors with a few human labels: prediction-powered
inference (Angelopoulos et al., *Prediction-powered inference*, Science 2023).

A grader's mean grade over many outputs is biased by its errors (a lenient grader passes what humans fail). Given
its grades on N outputs nobody labelled and, on n other outputs drawn from the same population, both its grade and a
human label, the classic PPI estimate of the humans' mean is ``mean_N(grade) - mean_n(grade - label)``: the grader's
mean, less its bias as the labelled outputs measure it. Its normal interval adds the two independent variances,
``var_N(grade) / N + var_n(grade - label) / n``. It is unbiased whatever the grader, and narrower than the labels'
own mean where the grader tracks the labels; a poor grader makes it wider (the rectifier's variance grows).
``docs/coverage_intervals.md`` measures its coverage at 50, 100 and 300 labels.

Plain NumPy/SciPy, on summaries: the unlabelled grades enter through their count, mean and variance only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

CONFIDENCE = 0.95

MIN_LABELLED = 2
"""Fewer labelled outputs give no variance of the grader's error, so no interval."""


@dataclass(frozen=True)
class Summary:
    """Count, mean and (unbiased, ``ddof=1``) variance of some grades."""

    n: int
    mean: float
    variance: float

    @classmethod
    def of(cls, values: Sequence[float] | np.ndarray) -> Summary:
        """The summary of the finite values (NaN: no grade, left out)."""
        finite = np.asarray(values, dtype=float)
        finite = finite[np.isfinite(finite)]
        if finite.size == 0:
            return cls(0, math.nan, math.nan)
        return cls(int(finite.size), float(finite.mean()), float(finite.var(ddof=1)) if finite.size > 1 else math.nan)


@dataclass(frozen=True)
class MeanEstimate:
    """An estimate of a mean with its normal interval, the outputs it rests on, and why it is NaN where it is."""

    value: float
    low: float
    high: float
    n: int
    reason: str | None = None


def _normal(value: float, variance: float, n: int, confidence: float, reason: str | None = None) -> MeanEstimate:
    if math.isnan(value) or math.isnan(variance):
        return MeanEstimate(value, math.nan, math.nan, n, reason)
    half = float(stats.norm.ppf(0.5 + confidence / 2)) * math.sqrt(max(variance, 0.0))
    return MeanEstimate(value, value - half, value + half, n)


def merged(first: Summary, second: Summary) -> Summary:
    """The summary of two groups of grades together (pooled sums of squares)."""
    parts = [summary for summary in (first, second) if summary.n > 0]
    n = sum(summary.n for summary in parts)
    if n == 0:
        return Summary(0, math.nan, math.nan)
    mean = sum(summary.n * summary.mean for summary in parts) / n
    squares = sum(
        (summary.n - 1) * (summary.variance if summary.n > 1 else 0.0) + summary.n * (summary.mean - mean) ** 2
        for summary in parts
    )
    return Summary(n, mean, squares / (n - 1) if n > 1 else math.nan)


def naive_pass_rate(
    unlabelled: Summary, labelled_grades: Sequence[float] | np.ndarray, confidence: float = CONFIDENCE
) -> MeanEstimate:
    """The grader's mean grade over every output, labelled or not, with its normal interval: what the eval reports,
    and an interval that holds the grader's mean, not the humans'."""
    every = merged(unlabelled, Summary.of(labelled_grades))
    if every.n == 0:
        return MeanEstimate(math.nan, math.nan, math.nan, 0, "no grade")
    return _normal(every.mean, every.variance / every.n, every.n, confidence, "one grade: no variance")


def labels_pass_rate(labels: Sequence[float] | np.ndarray, confidence: float = CONFIDENCE) -> MeanEstimate:
    """The labels' own mean with its normal interval: the humans' pass rate without the grader."""
    summary = Summary.of(labels)
    if summary.n == 0:
        return MeanEstimate(math.nan, math.nan, math.nan, 0, "no label")
    return _normal(summary.mean, summary.variance / summary.n, summary.n, confidence, "one label: no variance")


def ppi_pass_rate(
    unlabelled: Summary,
    labelled_grades: Sequence[float] | np.ndarray,
    labels: Sequence[float] | np.ndarray,
    confidence: float = CONFIDENCE,
) -> MeanEstimate:
    """The humans' pass rate estimated from the grader's grades on the unlabelled outputs, corrected by its error on
    the labelled ones (classic PPI): ``mean_N(grade) - mean_n(grade - label)``, interval ``± z sqrt(var_N(grade) / N
    + var_n(grade - label) / n)``. Labelled outputs without a grade (or a label) are left out of the correction; the
    unlabelled ones must be other outputs than the labelled. NaN with the reason where it is undefined."""
    grades = np.asarray(labelled_grades, dtype=float)
    human = np.asarray(labels, dtype=float)
    if grades.shape != human.shape:
        raise ValueError(f"{grades.size} labelled grades for {human.size} labels")
    both = np.isfinite(grades) & np.isfinite(human)
    errors = Summary.of(grades[both] - human[both])
    if unlabelled.n == 0:
        return MeanEstimate(math.nan, math.nan, math.nan, errors.n, "no unlabelled grade")
    if errors.n == 0:
        return MeanEstimate(math.nan, math.nan, math.nan, 0, "no labelled output with both a grade and a label")
    value = unlabelled.mean - errors.mean
    if errors.n < MIN_LABELLED or unlabelled.n < 2:
        return MeanEstimate(value, math.nan, math.nan, errors.n, "too few outputs for a variance")
    variance = unlabelled.variance / unlabelled.n + errors.variance / errors.n
    return _normal(value, variance, errors.n, confidence)


CORRECTED = "pass_rate_corrected"
"""Metric: the humans' pass rate of the unlabelled outputs, by :func:`ppi_pass_rate`."""

NAIVE = "pass_rate_naive"
"""Metric: the grader's own mean grade over every output (:func:`naive_pass_rate`), what the eval reports."""

LABELS_ONLY = "pass_rate_labels"
"""Metric: the labels' own mean (:func:`labels_pass_rate`), the humans' pass rate without the grader."""


def pass_rate_metrics(
    unlabelled: Summary, labelled_grades: Sequence[float] | np.ndarray, labels: Sequence[float] | np.ndarray
) -> dict[str, float]:
    """The three pass rates, each with ``_ci_low`` / ``_ci_high`` and ``_n`` (the outputs it rests on: for the
    corrected one, the labelled outputs with a grade and a label)."""
    metrics: dict[str, float] = {}
    for name, estimate in (
        (CORRECTED, ppi_pass_rate(unlabelled, labelled_grades, labels)),
        (NAIVE, naive_pass_rate(unlabelled, labelled_grades)),
        (LABELS_ONLY, labels_pass_rate(labels)),
    ):
        metrics[name] = estimate.value
        metrics[f"{name}_ci_low"] = estimate.low
        metrics[f"{name}_ci_high"] = estimate.high
        metrics[f"{name}_n"] = float(estimate.n)
    return metrics
