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
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy import stats

from scorers.values import MetricFamily

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

MAX_TABLE_CELLS = 1 << 16
"""Contingency-table cells held at once when the correlations are computed from tables for many resamples: 512 KB
of counts, which stay in the processor's cache."""


@lru_cache(maxsize=4)
def resample_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """The items drawn in each bootstrap resample, shape ``(n_resamples, n)``: the draws ``scipy.stats.bootstrap``
    makes for paired samples with ``rng=np.random.default_rng(seed)``, so that the intervals are scipy's.

    Shared (read-only) by every statistic and criterion of one recomputation with the same number of items."""
    indices = np.random.default_rng(seed).integers(0, n, (n_resamples, n))
    indices.flags.writeable = False
    return indices


def _level_counts(codes: np.ndarray, indices: np.ndarray, n_levels: int) -> np.ndarray:
    """How often each level (``codes``: the level of each item) is drawn in each resample: ``(resamples, n_levels)``."""
    rows = len(indices)
    drawn = (np.arange(rows)[:, None] * n_levels + codes[indices]).ravel()
    return np.bincount(drawn, minlength=rows * n_levels).reshape(rows, n_levels)


def _resampled_ranks(values: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``scipy.stats.rankdata`` of every resample (average ranks of ties), from how often each distinct value is drawn
    instead of sorting each resample: a value's rank is the number of smaller values drawn plus half its own ties."""
    distinct, codes = np.unique(values, return_inverse=True)
    counts = _level_counts(codes, indices, len(distinct))
    return np.take_along_axis(_level_ranks(counts), codes[indices], axis=1)


def _level_ranks(counts: np.ndarray) -> np.ndarray:
    """The average rank of each level given how often each is drawn (levels ascending along the last axis)."""
    return np.cumsum(counts, axis=-1) - 0.5 * (counts - 1)


class _Tables:
    """The (judge score, human score) counts of a chunk of resamples, laid out ``(resamples, short, long)``: the side
    with fewer distinct scores along the middle axis, so that sums and running sums over the other side run along
    the contiguous last axis."""

    def __init__(self, counts: np.ndarray, judge_is_short: bool) -> None:
        self.counts = counts
        self.judge_is_short = judge_is_short
        self.short_margins, self.long_margins = counts.sum(axis=2), counts.sum(axis=1)
        self.pairs = self.long_margins.sum(axis=1)
        self.defined = (
            (self.pairs >= MIN_PAIRS)
            & (self.short_margins.max(axis=1) < self.pairs)
            & (self.long_margins.max(axis=1) < self.pairs)
        )
        """Where a correlation is defined: enough pairs, and neither side drawn all at one score."""
        self._weights: np.ndarray | None = None

    def pearson(self, short_values: np.ndarray, long_values: np.ndarray) -> np.ndarray:
        """Pearson's r of each resample's pairs, scores given per level (one row per resample, or one for all):
        centred on the resample's means, as ``scipy.stats.pearsonr`` centres; NaN where it is not defined."""
        if self._weights is None:
            self._weights = self.counts.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            short = short_values - ((self.short_margins * short_values).sum(axis=1) / self.pairs)[:, None]
            long = long_values - ((self.long_margins * long_values).sum(axis=1) / self.pairs)[:, None]
            covariance = (np.matmul(self._weights, long[..., None])[..., 0] * short).sum(axis=1)
            spread = np.sqrt((self.short_margins * short**2).sum(axis=1) * (self.long_margins * long**2).sum(axis=1))
            r = np.clip(covariance / spread, -1.0, 1.0)
        return np.where(self.defined, r, np.nan)

    def spearman(self) -> np.ndarray:
        return self.pearson(_level_ranks(self.short_margins), _level_ranks(self.long_margins))

    def kendall(self) -> np.ndarray:
        """Kendall's tau-b as ``scipy.stats.kendalltau`` computes it, from exact pair counts: each pair is counted once
        from its lower short-side score; a cell's partners above it are concordant on the long side's greater
        scores and discordant on its smaller ones."""
        counts = self.counts
        above = np.empty_like(counts)
        running = np.zeros_like(counts[:, 0])
        for level in range(counts.shape[1] - 1, -1, -1):
            above[:, level] = running
            running += counts[:, level]
        through = np.cumsum(above, axis=2)
        con_minus_dis = (counts * (through[:, :, -1:] - 2 * through + above)).sum(axis=(1, 2))
        short_untied, long_untied = _untied_pairs(self.short_margins), _untied_pairs(self.long_margins)
        judge_untied, human_untied = (short_untied, long_untied) if self.judge_is_short else (long_untied, short_untied)
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = np.minimum(1.0, np.maximum(-1.0, con_minus_dis / np.sqrt(judge_untied) / np.sqrt(human_untied)))
        return np.where((judge_untied > 0) & (human_untied > 0), tau, np.nan)


def _untied_pairs(margins: np.ndarray) -> np.ndarray:
    """Pairs of drawn items with different scores on one side: all pairs less those within one score."""
    n = margins.sum(axis=1)
    return (n * (n - 1) - (margins * (margins - 1)).sum(axis=1)) // 2


def _tabled_correlations(
    judge: np.ndarray, human: np.ndarray, indices: np.ndarray, methods: Sequence[Method]
) -> dict[Method, np.ndarray] | None:
    """Each method over the resamples, from each resample's table of (judge score, human score) counts (pairs with a
    missing score left out), as many resamples at a time as :data:`MAX_TABLE_CELLS` holds; None where one table
    alone is larger (both sides nearly continuous)."""
    finite = np.isfinite(judge) & np.isfinite(human)
    judge_levels, judge_codes = np.unique(judge[finite], return_inverse=True)
    human_levels, human_codes = np.unique(human[finite], return_inverse=True)
    cells = len(judge_levels) * len(human_levels)
    if cells == 0:
        return {method: np.full(len(indices), np.nan) for method in methods}
    if cells > MAX_TABLE_CELLS:
        return None
    judge_is_short = len(judge_levels) < len(human_levels)
    if judge_is_short:
        short_values, short_codes, long_values, long_codes = judge_levels, judge_codes, human_levels, human_codes
    else:
        short_values, short_codes, long_values, long_codes = human_levels, human_codes, judge_levels, judge_codes
    codes = np.full(judge.size, cells)  # the cell past the table: a pair with a missing score
    codes[finite] = short_codes * len(long_values) + long_codes
    missing = int(not finite.all())
    step = max(1, MAX_TABLE_CELLS // cells)
    chunks: dict[Method, list[np.ndarray]] = {method: [] for method in methods}
    for start in range(0, len(indices), step):
        drawn = _level_counts(codes, indices[start : start + step], cells + missing)[:, :cells]
        counts = np.ascontiguousarray(drawn).reshape(-1, len(short_values), len(long_values))
        tables = _Tables(counts, judge_is_short)
        for method in methods:
            if method == "pearson":
                chunks[method].append(tables.pearson(short_values, long_values))
            elif method == "spearman":
                chunks[method].append(tables.spearman())
            else:
                chunks[method].append(tables.kendall())
    return {method: np.concatenate(values) for method, values in chunks.items()}


def _gathered_correlations(
    judge: np.ndarray, human: np.ndarray, indices: np.ndarray, methods: Sequence[Method]
) -> dict[Method, np.ndarray]:
    """Each method on the drawn scores themselves, for pairs too varied for tables: Pearson by
    :func:`pearson_rows` (or :func:`pearson_of_finite_pairs` where a score is missing), Spearman on ranks from
    counts, Kendall by scipy, which sorts each resample."""
    complete = bool(np.isfinite(judge).all() and np.isfinite(human).all())
    if not complete and set(methods) != {"pearson"}:
        raise ValueError("past the table budget only Pearson takes pairs with a missing score; pass finite pairs")
    judge_drawn, human_drawn = judge[indices], human[indices]
    gathered: dict[Method, np.ndarray] = {}
    for method in methods:
        if method == "pearson" and not complete:
            gathered[method] = pearson_of_finite_pairs(judge_drawn, human_drawn)
        elif method == "pearson":
            gathered[method] = pearson_rows(judge_drawn, human_drawn)
        elif method == "spearman":
            gathered[method] = pearson_rows(_resampled_ranks(judge, indices), _resampled_ranks(human, indices))
        else:
            gathered[method] = _kendall(judge_drawn, human_drawn)
    return gathered


def pearson_rows(judge: np.ndarray, human: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair by ``scipy.stats.pearsonr``'s own steps (centre, scale by the largest deviation,
    normalise, dot), without its p-value, which takes longer than r itself over 1,000 resamples; NaN where a row is
    constant. ``human`` may be one row for every row of ``judge``."""

    def normalised(values: np.ndarray) -> np.ndarray:
        centred = values - np.mean(values, axis=-1, keepdims=True)
        largest = np.max(np.abs(centred), axis=-1, keepdims=True)
        return centred / (largest * np.linalg.norm(centred / largest, ord=2, axis=-1, keepdims=True))

    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.clip(np.vecdot(normalised(judge), normalised(human)), -1.0, 1.0)
    constant = np.all(judge == judge[..., :1], axis=-1) | np.all(human == human[..., :1], axis=-1)
    return np.where(constant, np.nan, r)


def resampled_correlations(
    judge: np.ndarray,
    human: np.ndarray,
    methods: Sequence[Method] = METHODS,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[Method, np.ndarray]:
    """The paired bootstrap distribution of each method (``scipy.stats.bootstrap(...).bootstrap_distribution`` with
    the same resamples and statistic), for all resamples at once; a pair with a missing score (NaN) counts for no
    method (past the table budget, only Pearson takes such pairs), and a resample with fewer than
    :data:`MIN_PAIRS` pairs or a constant side is NaN."""
    indices = resample_indices(judge.size, n_resamples, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tabled = _tabled_correlations(judge, human, indices, methods)
        return tabled if tabled is not None else _gathered_correlations(judge, human, indices, methods)


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


def correlations(
    judge: Sequence[float],
    human: Sequence[float],
    methods: Sequence[Method] = METHODS,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[Method, CorrelationEstimate]:
    """Each method's correlation over the finite pairs with a paired percentile bootstrap CI (scipy.stats.bootstrap's
    resamples, computed all at once for every method by :func:`resampled_correlations`).

    Resamples in which the correlation is undefined (one side constant) are left out of the interval;
    when they are more than ``MAX_UNDEFINED_RESAMPLES`` of all, the interval is NaN.
    """
    judge_scores, human_scores = paired_finite(judge, human)
    n = int(judge_scores.size)
    reason = undefined_reason(judge_scores, human_scores)
    if reason is not None:
        return {method: CorrelationEstimate(math.nan, math.nan, math.nan, n, reason) for method in methods}
    resampled = resampled_correlations(judge_scores, human_scores, methods, n_resamples, seed)
    estimates = {}
    for method in methods:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = float(STATISTICS[method](judge_scores, human_scores))
        estimates[method] = CorrelationEstimate(value, *percentile_interval(resampled[method], confidence), n)
    return estimates


def correlation(
    judge: Sequence[float],
    human: Sequence[float],
    method: Method = "pearson",
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> CorrelationEstimate:
    """One method's correlation and interval, as :func:`correlations` computes it."""
    return correlations(judge, human, (method,), confidence, n_resamples, seed)[method]


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


def pearson_of_finite_pairs(judge: np.ndarray, human: np.ndarray) -> np.ndarray:
    """Pearson's r of each row over the columns where both scores are finite, by centred sums; NaN where
    :func:`undefined_reason` finds it undefined (fewer than ``MIN_PAIRS`` pairs, or one side constant).

    Equals ``scipy.stats.pearsonr`` on each row's finite pairs to float rounding (scipy also rescales before
    summing), for rows of differing numbers of pairs at once."""
    both = np.isfinite(judge) & np.isfinite(human)
    count = both.sum(axis=-1, keepdims=True)

    def centred(values: np.ndarray) -> np.ndarray:
        kept = np.where(both, values, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(both, kept - kept.sum(axis=-1, keepdims=True) / count, 0.0)

    def varies(values: np.ndarray) -> np.ndarray:
        return np.where(both, values, np.inf).min(axis=-1) < np.where(both, values, -np.inf).max(axis=-1)

    judge_centred, human_centred = centred(judge), centred(human)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (judge_centred * human_centred).sum(axis=-1) / np.sqrt(
            (judge_centred**2).sum(axis=-1) * (human_centred**2).sum(axis=-1)
        )
    defined = (count[..., 0] >= MIN_PAIRS) & varies(judge) & varies(human)
    return np.where(defined, np.clip(r, -1.0, 1.0), np.nan)


@dataclass(frozen=True)
class Interval:
    """A bootstrap interval, and why it is NaN where it is."""

    low: float
    high: float
    reason: str | None = None
    """Why the interval is NaN, where it is."""


def resampled_mean_pearson(criteria: Sequence[CriterionScores], n_resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """The oriented mean Pearson over item-aligned ``criteria`` in each item resample (NaN where a criterion's
    correlation is undefined in it): ``scipy.stats.bootstrap``'s resamples, all at once."""
    oriented = []
    for scores in criteria:
        judge, human = np.asarray(scores.judge, dtype=float), np.asarray(scores.human, dtype=float)
        oriented.append(scores.sign * resampled_correlations(judge, human, ("pearson",), n_resamples, seed)["pearson"])
    return np.mean(oriented, axis=0)


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
    resampled = resampled_mean_pearson(defined, n_resamples, seed)
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
        for method, estimate in correlations(scores.judge, scores.human, seed=seed).items():
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


METRIC_FAMILIES = (MetricFamily("undefined", higher_is_better=False, count=True),)
"""``undefined``: criteria (or lists) whose correlation is undefined."""
