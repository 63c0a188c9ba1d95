"""Agreement of judge scores with human scores: Pearson, Spearman and Kendall with bootstrap CIs.

Plain NumPy/SciPy, shared by the adherence and CoEval suites and by both harnesses (Murugadoss et al.,
AAAI 2025, report Pearson per criterion, averaged per dataset and per criteria group). A correlation
that is not defined (too few pairs, or one side constant) is NaN with the reason; it is never 0.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

Method = Literal["pearson", "spearman", "kendall"]
METHODS: tuple[Method, ...] = ("pearson", "spearman", "kendall")

CONSTANT_JUDGE = "the judge gave every item the same score"

MAX_UNDEFINED_RESAMPLES = 0.01
"""Above this share of bootstrap resamples without a defined correlation, the interval is NaN: percentiles of
the defined resamples alone would describe a different population (typically one without the few items that
make a nearly constant judge vary) and need not even contain the estimate."""

MIN_PAIRS = 3
"""Fewer pairs than this give no meaningful correlation (two points always lie on a line)."""


def _pearson(judge: np.ndarray, human: np.ndarray, axis: int = -1) -> np.ndarray:
    return stats.pearsonr(judge, human, axis=axis).statistic


def _spearman(judge: np.ndarray, human: np.ndarray, axis: int = -1) -> np.ndarray:
    """Spearman's rho as the Pearson correlation of average ranks (scipy's definition), batched over ``axis``."""
    return _pearson(stats.rankdata(judge, axis=axis), stats.rankdata(human, axis=axis), axis=axis)


def _kendall(judge: np.ndarray, human: np.ndarray, axis: int = -1) -> np.ndarray:
    return stats.kendalltau(judge, human, axis=axis).statistic


STATISTICS = {"pearson": _pearson, "spearman": _spearman, "kendall": _kendall}


@dataclass(frozen=True)
class CorrelationEstimate:
    """A correlation, its percentile bootstrap interval and the number of pairs; ``reason`` says why it is NaN."""

    value: float
    low: float
    high: float
    n: int
    reason: str | None = None


def paired_finite(
    judge: Sequence[float] | np.ndarray, human: Sequence[float] | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs where both scores are finite numbers (a judge's unparsable answer is NaN and drops out)."""
    judge_scores = np.asarray(judge, dtype=float)
    human_scores = np.asarray(human, dtype=float)
    if judge_scores.shape != human_scores.shape:
        raise ValueError(f"paired scores differ in length: {judge_scores.size} judge, {human_scores.size} human")
    keep = np.isfinite(judge_scores) & np.isfinite(human_scores)
    return judge_scores[keep], human_scores[keep]


def undefined_reason(judge: np.ndarray, human: np.ndarray) -> str | None:
    """Why no correlation is defined for these pairs, or None when it is."""
    if judge.size < MIN_PAIRS:
        return f"{judge.size} pair(s) with both scores; at least {MIN_PAIRS} are needed"
    if np.all(judge == judge[0]):
        return f"{CONSTANT_JUDGE} ({judge[0]:g})"
    if np.all(human == human[0]):
        return f"the human scores are all {human[0]:g}"
    return None


def correlation(
    judge: Sequence[float],
    human: Sequence[float],
    method: Method = "pearson",
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> CorrelationEstimate:
    """The ``method`` correlation over the finite pairs with a paired percentile bootstrap CI (scipy.stats.bootstrap).

    Resamples in which the correlation is undefined (one side constant) are left out of the interval;
    when they are more than ``MAX_UNDEFINED_RESAMPLES`` of all, the interval is NaN.
    """
    judge_scores, human_scores = paired_finite(judge, human)
    reason = undefined_reason(judge_scores, human_scores)
    if reason is not None:
        return CorrelationEstimate(math.nan, math.nan, math.nan, int(judge_scores.size), reason)
    statistic = STATISTICS[method]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(statistic(judge_scores, human_scores))
        resampled = stats.bootstrap(
            (judge_scores, human_scores),
            statistic,
            paired=True,
            vectorized=True,
            n_resamples=n_resamples,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        ).bootstrap_distribution
    low, high = percentile_interval(resampled, confidence)
    return CorrelationEstimate(value, low, high, int(judge_scores.size))


def percentile_interval(resampled: np.ndarray, confidence: float, centre: float | None = None) -> tuple[float, float]:
    """The percentile interval of the bootstrap statistics, NaN when too many resamples were undefined.

    Given a ``centre`` (DHP's D), the percentiles are moved by ``centre - m*``, ``m*`` the resamples' median:
    ``[centre - (m* - q_low), centre + (q_high - m*)]``, so that a bootstrap distribution that leans away from the
    estimate keeps its spread but not its lean (docs/coverage_intervals.md measures why DHP needs it)."""
    defined = resampled[np.isfinite(resampled)]
    if defined.size < 2 or defined.size < (1 - MAX_UNDEFINED_RESAMPLES) * resampled.size:
        return math.nan, math.nan
    tail = (1 - confidence) / 2
    low, median, high = np.quantile(defined, [tail, 0.5, 1 - tail])
    if centre is not None:
        low, high = centre - (median - low), centre + (high - median)
    return float(low), float(high)


@dataclass(frozen=True)
class CriterionScores:
    """Judge and human scores of one criterion, item by item, and which way the correlation should point.

    ``sign`` is +1 when a judge that agrees with the humans correlates positively, -1 when it should
    correlate negatively (a quality score compared with a criterion where lower is better).
    """

    criterion: str
    group: str | None
    judge: Sequence[float]
    human: Sequence[float]
    sign: int = 1


def _oriented_mean(arrays: Sequence[np.ndarray], signs: Sequence[int]) -> float:
    """Mean of ``sign * pearson`` over every criterion of these (judge, human) arrays; NaN when one is undefined, so
    that every resample averages the same criteria as the estimate."""
    values = []
    for index, sign in enumerate(signs):
        judge, human = paired_finite(arrays[2 * index], arrays[2 * index + 1])
        if undefined_reason(judge, human) is not None:
            return math.nan
        values.append(sign * float(_pearson(judge, human)))
    return float(np.mean(values)) if values else math.nan


@dataclass(frozen=True)
class Interval:
    """A bootstrap interval, and why it is NaN where it is."""

    low: float
    high: float
    reason: str | None = None
    """Why the interval is NaN, where it is."""


def mean_pearson_interval(
    criteria: Sequence[CriterionScores], confidence: float = 0.95, n_resamples: int = 1000, seed: int = 0
) -> Interval:
    """Percentile bootstrap interval of the oriented mean Pearson, resampling *items* jointly across criteria.

    The criteria must be item-aligned (the same items in the same order, NaN where a score is missing),
    so that a resample keeps each item's scores together as the correlations between criteria require.
    The mean is over the criteria whose correlation is defined on all items (those the estimate averages); a
    resample in which one of them is undefined (a nearly constant or rarely labelled criterion drawn constant) has
    no mean of the same criteria, so it is undefined, and above ``MAX_UNDEFINED_RESAMPLES`` of them the interval is
    NaN, as for one criterion. Dropping the criterion from such resamples instead mixes means of different
    criterion sets (an interval of [0.06, 0.93] around 0.20 for one nearly constant criterion).
    """
    lengths = {len(scores.judge) for scores in criteria} | {len(scores.human) for scores in criteria}
    if len(lengths) != 1:
        raise ValueError(f"criteria are not item-aligned: lengths {sorted(lengths)}")
    if not criteria or lengths.pop() < MIN_PAIRS:
        return Interval(math.nan, math.nan, f"fewer than {MIN_PAIRS} items")
    defined = [scores for scores in criteria if undefined_reason(*paired_finite(scores.judge, scores.human)) is None]
    if not defined:
        return Interval(math.nan, math.nan, "no criterion has a defined correlation")
    arrays = [np.asarray(values, dtype=float) for scores in defined for values in (scores.judge, scores.human)]
    signs = [scores.sign for scores in defined]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resampled = stats.bootstrap(
            arrays,
            lambda *sample: _oriented_mean(sample, signs),
            paired=True,
            vectorized=False,
            n_resamples=n_resamples,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        ).bootstrap_distribution
    low, high = percentile_interval(resampled, confidence)
    if math.isnan(low):
        share = float(np.mean(~np.isfinite(resampled)))
        return Interval(
            low,
            high,
            f"in {share:.0%} of the item resamples a criterion's correlation is undefined (it has too few distinct "
            f"scores among the items: {_least_varied(defined)}); the limit is {MAX_UNDEFINED_RESAMPLES:.0%}",
        )
    return Interval(low, high)


def _least_varied(criteria: Sequence[CriterionScores]) -> str:
    """The criterion whose scores vary least (fewest distinct values on one side, then the rarest value), for naming
    the cause."""

    def variety(scores: CriterionScores) -> tuple[int, int]:
        counts = [np.unique(side, return_counts=True)[1] for side in paired_finite(scores.judge, scores.human)]
        return min(len(side) for side in counts), min(int(side.min()) for side in counts)

    return min(criteria, key=variety).criterion


def agreement_report(
    criteria: Sequence[CriterionScores],
    seed: int = 0,
    aligned: bool = False,
    notes: dict[str, str] | None = None,
) -> dict[str, float]:
    """Flat metrics: each criterion's correlations with CIs and pair counts, and the oriented means.

    ``pearson`` (the dataset's headline) and ``pearson/group/<group>`` average ``sign * r`` over the
    criteria whose Pearson is defined, so that higher always means closer to the humans;
    ``undefined`` counts the criteria left out of those means. A criterion without a group (an overall
    impression) is reported alone: its correlations are there, but it enters neither mean. With ``aligned``
    criteria (the same items in the same order), ``pearson`` also gets an item-bootstrap interval
    (:func:`mean_pearson_interval`); why it is NaN, where it is, goes to ``notes["pearson_ci"]``.
    """
    details: dict[str, float] = {}
    oriented: dict[str, list[float]] = {}
    for scores in criteria:
        if scores.group is not None:
            oriented.setdefault(scores.group, [])
        for method in METHODS:
            estimate = correlation(scores.judge, scores.human, method, seed=seed)
            details[f"{method}/{scores.criterion}"] = estimate.value
            details[f"{method}_ci_low/{scores.criterion}"] = estimate.low
            details[f"{method}_ci_high/{scores.criterion}"] = estimate.high
            if method == "pearson":
                details[f"n/{scores.criterion}"] = float(estimate.n)
                if not math.isnan(estimate.value) and scores.group is not None:
                    oriented[scores.group].append(scores.sign * estimate.value)
    every = [value for values in oriented.values() for value in values]
    n_criteria = sum(1 for scores in criteria if scores.group is not None)
    headline = {"pearson": float(np.mean(every)) if every else math.nan}
    if aligned:
        interval = mean_pearson_interval([scores for scores in criteria if scores.group is not None], seed=seed)
        headline["pearson_ci_low"], headline["pearson_ci_high"] = interval.low, interval.high
        if interval.reason is not None and notes is not None and every:
            notes["pearson_ci"] = interval.reason
    for group, values in sorted(oriented.items()):
        headline[f"pearson/group/{group}"] = float(np.mean(values)) if values else math.nan
    headline["undefined"] = float(n_criteria - len(every))
    return {**headline, **details}


def undefined_reasons(criteria: Iterable[CriterionScores]) -> Mapping[str, str]:
    """Criterion -> why its correlation is NaN, for the criteria where it is."""
    reasons = {}
    for scores in criteria:
        reason = undefined_reason(*paired_finite(scores.judge, scores.human))
        if reason is not None:
            reasons[scores.criterion] = reason
    return reasons
