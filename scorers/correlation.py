"""Agreement of judge scores with human scores: Pearson, Spearman and Kendall with Fisher-z jackknife intervals.

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
    """A correlation, its interval (:func:`fisher_interval`) and the number of pairs; ``reason`` says why it is NaN."""

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
    judge: Sequence[float], human: Sequence[float], method: Method = "pearson", confidence: float = 0.95
) -> CorrelationEstimate:
    """The ``method`` correlation over the finite pairs with Fisher's z interval and a jackknife standard error
    (:func:`fisher_interval`); the interval is NaN when leaving out one pair makes the correlation undefined (one
    side constant, or fewer than :data:`MIN_PAIRS` pairs left)."""
    judge_scores, human_scores = paired_finite(judge, human)
    reason = undefined_reason(judge_scores, human_scores)
    if reason is not None:
        return CorrelationEstimate(math.nan, math.nan, math.nan, int(judge_scores.size), reason)
    statistic = STATISTICS[method]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(statistic(judge_scores, human_scores))
        if judge_scores.size <= MIN_PAIRS:
            return CorrelationEstimate(value, math.nan, math.nan, int(judge_scores.size))
        left_out = np.concatenate(
            [
                statistic(judge_part, human_part, axis=-1)
                for judge_part, human_part in zip(_left_out(judge_scores), _left_out(human_scores), strict=True)
            ]
        )
    low, high = fisher_interval(value, left_out, confidence)
    return CorrelationEstimate(value, low, high, int(judge_scores.size))


JACKKNIFE_BLOCK = 256
"""Leave-one-out samples built at once (a block of n-1 values each), which bounds the memory for long datasets."""

MAX_CORRELATION = 1 - 1e-12
"""Correlations of exactly ±1, whose Fisher z is infinite, count as this close to ±1."""


def _left_out(values: np.ndarray) -> Iterable[np.ndarray]:
    """The jackknife samples of ``values`` (last axis: items) in blocks: row i of the stacked blocks leaves out item
    i, ``(..., n, n - 1)``."""
    n = values.shape[-1]
    for start in range(0, n, JACKKNIFE_BLOCK):
        rows = np.arange(start, min(start + JACKKNIFE_BLOCK, n))
        kept = np.arange(n - 1)[None, :] + (np.arange(n - 1)[None, :] >= rows[:, None])
        yield values[..., kept]


def fisher_interval(estimate: float, left_out: np.ndarray, confidence: float) -> tuple[float, float]:
    """Fisher's z interval of a correlation, ``tanh(atanh(r) ± z·se)``, with ``se`` the jackknife standard error of
    ``atanh`` over the leave-one-out values (Efron and Tibshirani, 1993, ch. 11); NaN when one of those values is
    undefined. On the z scale a correlation's sampling distribution is close to normal with a spread that hardly
    depends on r, so the interval keeps its level for strong correlations, where the percentile bootstrap it replaces
    fell short (docs/coverage_intervals.md); it needs no resampling, so it has no seed."""
    n = left_out.size
    if n < 2 or not np.all(np.isfinite(left_out)):
        return math.nan, math.nan
    z_values = np.arctanh(np.clip(left_out, -MAX_CORRELATION, MAX_CORRELATION))
    error = math.sqrt((n - 1) / n * float(np.sum((z_values - z_values.mean()) ** 2)))
    centre = math.atanh(min(max(estimate, -MAX_CORRELATION), MAX_CORRELATION))
    spread = float(stats.norm.ppf(0.5 + confidence / 2)) * error
    return math.tanh(centre - spread), math.tanh(centre + spread)


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
    """An interval, and why it is NaN where it is."""

    low: float
    high: float
    reason: str | None = None
    """Why the interval is NaN, where it is."""


def mean_pearson_interval(criteria: Sequence[CriterionScores], confidence: float = 0.95) -> Interval:
    """Fisher's z interval of the oriented mean Pearson (:func:`fisher_interval`), leaving out one *item* at a time
    from every criterion at once.

    The criteria must be item-aligned (the same items in the same order, NaN where a score is missing), so that
    leaving out an item removes its scores from every criterion, as the correlations between criteria require.
    The mean is over the criteria whose correlation is defined on all items (those the estimate averages); when
    leaving out one item makes one of them undefined (a criterion whose scores vary on that item alone), the mean of
    the same criteria has no jackknife value there and the interval is NaN, with the reason.
    """
    lengths = {len(scores.judge) for scores in criteria} | {len(scores.human) for scores in criteria}
    if len(lengths) != 1:
        raise ValueError(f"criteria are not item-aligned: lengths {sorted(lengths)}")
    if not criteria or lengths.pop() < MIN_PAIRS:
        return Interval(math.nan, math.nan, f"fewer than {MIN_PAIRS} items")
    defined = [scores for scores in criteria if undefined_reason(*paired_finite(scores.judge, scores.human)) is None]
    if not defined:
        return Interval(math.nan, math.nan, "no criterion has a defined correlation")
    judge = np.array([np.asarray(scores.judge, dtype=float) for scores in defined])
    human = np.array([np.asarray(scores.human, dtype=float) for scores in defined])
    signs = np.array([scores.sign for scores in defined], dtype=float)
    estimate = _oriented_mean([values for pair in zip(judge, human, strict=True) for values in pair], list(signs))
    left_out = np.concatenate(
        [
            (signs[:, None] * _masked_pearson(judge_part, human_part)).mean(axis=0)
            for judge_part, human_part in zip(_left_out(judge), _left_out(human), strict=True)
        ]
    )
    low, high = fisher_interval(estimate, left_out, confidence)
    if math.isnan(low):
        share = float(np.mean(~np.isfinite(left_out)))
        return Interval(
            low,
            high,
            f"leaving out one item makes a criterion's correlation undefined in {share:.0%} of the jackknife samples "
            f"(it has too few distinct scores among the items: {_least_varied(defined)})",
        )
    return Interval(low, high)


def _masked_pearson(judge: np.ndarray, human: np.ndarray) -> np.ndarray:
    """Pearson's r over the last axis, on the pairs where both scores are finite; NaN where fewer than
    :data:`MIN_PAIRS` pairs are left or one side is constant (as :func:`undefined_reason` rules)."""
    finite = np.isfinite(judge) & np.isfinite(human)
    count = finite.sum(axis=-1)
    x, y = np.where(finite, judge, 0.0), np.where(finite, human, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_centred = np.where(finite, x - x.sum(axis=-1, keepdims=True) / count[..., None], 0.0)
        y_centred = np.where(finite, y - y.sum(axis=-1, keepdims=True) / count[..., None], 0.0)
        x_spread, y_spread = (x_centred**2).sum(axis=-1), (y_centred**2).sum(axis=-1)
        r = (x_centred * y_centred).sum(axis=-1) / np.sqrt(x_spread * y_spread)
    return np.where((count >= MIN_PAIRS) & (x_spread > 0) & (y_spread > 0), np.clip(r, -1.0, 1.0), np.nan)


def _least_varied(criteria: Sequence[CriterionScores]) -> str:
    """The criterion whose scores vary least (fewest distinct values on one side, then the rarest value), for naming
    the cause."""

    def variety(scores: CriterionScores) -> tuple[int, int]:
        counts = [np.unique(side, return_counts=True)[1] for side in paired_finite(scores.judge, scores.human)]
        return min(len(side) for side in counts), min(int(side.min()) for side in counts)

    return min(criteria, key=variety).criterion


def agreement_report(
    criteria: Sequence[CriterionScores],
    aligned: bool = False,
    notes: dict[str, str] | None = None,
) -> dict[str, float]:
    """Flat metrics: each criterion's correlations with CIs and pair counts, and the oriented means.

    ``pearson`` (the dataset's headline) and ``pearson/group/<group>`` average ``sign * r`` over the
    criteria whose Pearson is defined, so that higher always means closer to the humans;
    ``undefined`` counts the criteria left out of those means. A criterion without a group (an overall
    impression) is reported alone: its correlations are there, but it enters neither mean. With ``aligned``
    criteria (the same items in the same order), ``pearson`` also gets an item-jackknife interval
    (:func:`mean_pearson_interval`); why it is NaN, where it is, goes to ``notes["pearson_ci"]``.
    """
    details: dict[str, float] = {}
    oriented: dict[str, list[float]] = {}
    for scores in criteria:
        if scores.group is not None:
            oriented.setdefault(scores.group, [])
        for method in METHODS:
            estimate = correlation(scores.judge, scores.human, method)
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
        interval = mean_pearson_interval([scores for scores in criteria if scores.group is not None])
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
