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


def paired_finite(judge: Sequence[float], human: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
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
    low, high = _percentile_interval(resampled, confidence)
    return CorrelationEstimate(value, low, high, int(judge_scores.size))


def _percentile_interval(resampled: np.ndarray, confidence: float) -> tuple[float, float]:
    """The percentile interval of the bootstrap statistics, NaN when too many resamples were undefined."""
    defined = resampled[np.isfinite(resampled)]
    if defined.size < 2 or defined.size < (1 - MAX_UNDEFINED_RESAMPLES) * resampled.size:
        return math.nan, math.nan
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(defined, [tail, 100 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class CriterionScores:
    """Judge and human scores of one criterion, item by item, and which way the correlation should point.

    ``sign`` is +1 when a judge that agrees with the humans correlates positively, -1 when it should
    correlate negatively (a quality score compared with a criterion where lower is better).
    """

    criterion: str
    group: str
    judge: Sequence[float]
    human: Sequence[float]
    sign: int = 1


def _oriented_mean(arrays: Sequence[np.ndarray], signs: Sequence[int]) -> float:
    """Mean of ``sign * pearson`` over the criteria whose correlation is defined on these (judge, human) arrays."""
    values = []
    for index, sign in enumerate(signs):
        judge, human = paired_finite(arrays[2 * index], arrays[2 * index + 1])
        if undefined_reason(judge, human) is None:
            values.append(sign * float(_pearson(judge, human)))
    return float(np.mean(values)) if values else math.nan


def mean_pearson_interval(
    criteria: Sequence[CriterionScores], confidence: float = 0.95, n_resamples: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the oriented mean Pearson, resampling *items* jointly across criteria.

    The criteria must be item-aligned (the same items in the same order, NaN where a score is missing),
    so that a resample keeps each item's scores together as the correlations between criteria require.
    """
    lengths = {len(scores.judge) for scores in criteria} | {len(scores.human) for scores in criteria}
    if len(lengths) != 1:
        raise ValueError(f"criteria are not item-aligned: lengths {sorted(lengths)}")
    if not criteria or lengths.pop() < MIN_PAIRS:
        return math.nan, math.nan
    arrays = [np.asarray(values, dtype=float) for scores in criteria for values in (scores.judge, scores.human)]
    signs = [scores.sign for scores in criteria]
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
    return _percentile_interval(resampled, confidence)


def agreement_report(criteria: Sequence[CriterionScores], seed: int = 0, aligned: bool = False) -> dict[str, float]:
    """Flat metrics: each criterion's correlations with CIs and pair counts, and the oriented means.

    ``pearson`` (the dataset's headline) and ``pearson/group/<group>`` average ``sign * r`` over the
    criteria whose Pearson is defined, so that higher always means closer to the humans;
    ``undefined`` counts the criteria left out of those means. With ``aligned`` criteria (the same
    items in the same order), ``pearson`` also gets an item-bootstrap interval.
    """
    details: dict[str, float] = {}
    oriented: dict[str, list[float]] = {}
    for scores in criteria:
        oriented.setdefault(scores.group, [])
        for method in METHODS:
            estimate = correlation(scores.judge, scores.human, method, seed=seed)
            details[f"{method}/{scores.criterion}"] = estimate.value
            details[f"{method}_ci_low/{scores.criterion}"] = estimate.low
            details[f"{method}_ci_high/{scores.criterion}"] = estimate.high
            if method == "pearson":
                details[f"n/{scores.criterion}"] = float(estimate.n)
                if not math.isnan(estimate.value):
                    oriented[scores.group].append(scores.sign * estimate.value)
    every = [value for values in oriented.values() for value in values]
    n_criteria = sum(1 for name in details if name.startswith("n/"))
    headline = {"pearson": float(np.mean(every)) if every else math.nan}
    if aligned:
        headline["pearson_ci_low"], headline["pearson_ci_high"] = mean_pearson_interval(criteria, seed=seed)
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
