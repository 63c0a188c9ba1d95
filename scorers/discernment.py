"""DHP statistics: paired Wilcoxon tests, harmonic-mean p-value combination, discernment scores and their
item-bootstrap intervals.

Plain NumPy/SciPy functions with no harness imports, so that the inspect-ai metric and the lm-eval
aggregation compute exactly the same numbers (Wang et al., DHP, Section 4.3).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy import special, stats

from scorers.correlation import MAX_UNDEFINED_RESAMPLES, Interval, percentile_interval
from scorers.values import MetricFamily

SIGNIFICANCE = 0.05
"""D = log_0.05(p): a discernment of 1 is a p-value of exactly 0.05."""

P_FLOOR = float(np.finfo(float).tiny)
"""p-values of 0 are floored here so that D stays finite."""

MAX_DISCERNMENT = math.log(P_FLOOR) / math.log(SIGNIFICANCE)
"""D of the floored p-value (about 236), the largest D; no interval bound goes above it, nor below 0."""

LEVELS = ("character", "word", "sentence")

Combination = Literal["hmp", "paper", "wilson"]

BOOTSTRAP_RESAMPLES = 1000
"""Item resamples behind every interval (the ``bootstrap_resamples`` option; 0 leaves the bounds NaN)."""

BOOTSTRAP_SEED = 0
"""Seed of the numpy Generator that draws the item resamples."""

BOOTSTRAP_CONFIDENCE = 0.95
"""Level of the intervals."""

MIN_BOOTSTRAP_ITEMS = 2
"""With fewer items that have a pair, every resample is the data itself: no interval."""

EXACT_MAX_PAIRS = 50
"""scipy.stats.wilcoxon's ``method="auto"`` uses the exact null distribution up to this many pairs when no
|difference| is tied and none is zero ..."""

PERMUTATION_MAX_PAIRS = 13
"""... and, with ties or zeros, the permutation test over all 2^n sign flips up to this many pairs (exact, as
2^13 is below its 9,999 resamples); the normal approximation otherwise."""

_LANDAU_LOCATION = 1.0 - float(np.euler_gamma) + math.log(math.pi / 2)
"""Wilson (2019): 1/HMP of L null p-values is Landau with location log(L) + 0.874 and scale pi/2."""


def wilcoxon_greater(original: Sequence[float], perturbed: Sequence[float]) -> float:
    """One-sided Wilcoxon signed-rank p-value for "originals score higher than perturbed texts".

    scipy.stats.wilcoxon's p-value with its defaults (as the paper used them), computed by
    :func:`wilcoxon_greater_resampled` on the data itself: scipy enumerates every sign flip of a small sample with
    ties (up to 2^13 of them, a second a call), which stalls a run whose metrics inspect recomputes while it
    goes. With no pairs there is no evidence either way and the p-value is NaN; pairs whose differences are all
    zero are evidence of no discernment, p = 1.
    """
    original_scores = np.asarray(original, dtype=float)
    perturbed_scores = np.asarray(perturbed, dtype=float)
    if original_scores.shape != perturbed_scores.shape:
        raise ValueError(
            f"paired scores differ in length: {original_scores.size} originals, {perturbed_scores.size} perturbed"
        )
    differences = (original_scores - perturbed_scores).ravel()
    return float(wilcoxon_greater_resampled(differences, np.ones((1, differences.size)))[0])


def _check_weights(weights: Mapping[str, float]) -> None:
    if any(weight < 0 for weight in weights.values()):
        raise ValueError(f"expert weights must not be negative: {dict(weights)}")


def combine_p_values(
    p_values: Mapping[str, float],
    weights: Mapping[str, float] | None = None,
    method: Combination = "hmp",
) -> float:
    """Combine per-metric p-values into one.

    ``hmp`` (default): the weighted harmonic mean p-value ``sum(w)/sum(w_j/p_j)``, weights normalised
    to sum to 1 (equal weights when none are given). With expert weights this is exactly DHP's
    ``p_EW = 1/sum(EW_j/p_j)``; without, it is the harmonic mean, so M metrics that all have p = 1
    give p = 1. ``paper``: DHP's unweighted formula as printed, ``1/sum(1/p_j)``, which is M times
    smaller than the harmonic mean (M metrics at p = 1 give 1/M); weighted, it equals ``hmp``.
    ``wilson``: Wilson's (2019) asymptotically exact p-value for the weighted harmonic mean.

    NaN p-values (metrics without pairs) are left out, with their weights; the result is NaN when no
    p-value is left, or when the weights put everything on the metrics left out.
    """
    if method not in ("hmp", "paper", "wilson"):
        raise ValueError(f"unknown p-value combination {method!r}; use 'hmp', 'paper' or 'wilson'")
    names = [name for name, p in p_values.items() if not math.isnan(p)]
    if not names:
        return math.nan
    weight_row = None
    if weights is not None:
        _check_weights(weights)
        if sum(weights.get(name, 0.0) for name in names) == 0:
            if any(weights.values()):
                return math.nan
            raise ValueError(f"expert weights sum to zero over metrics {sorted(names)}")
        missing = sorted(set(names) - set(weights))
        if missing:
            raise ValueError(f"expert weights have no entry for metric(s) {missing}")
        weight_row = np.array([weights[name] for name in names], dtype=float)
    return float(_combine_rows(np.array([p_values[name] for name in names], dtype=float), weight_row, method))


def _combine_rows(p_values: np.ndarray, weights: np.ndarray | None, method: Combination) -> np.ndarray:
    """:func:`combine_p_values` over the last axis of ``p_values`` (metrics; NaN: left out), for any number of
    rows at once; ``weights`` (validated, broadcast against ``p_values``) are left out with their p-values, and a row
    whose weights on the p-values it has sum to zero is NaN."""
    present = ~np.isnan(p_values)
    n_present = present.sum(axis=-1)
    floored = np.where(present, np.maximum(p_values, P_FLOOR), 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if method == "paper" and weights is None:
            combined = np.minimum(1.0, 1.0 / np.where(present, 1.0 / floored, 0.0).sum(axis=-1))
        else:
            kept = np.where(present, 1.0 if weights is None else weights, 0.0)
            total = kept.sum(axis=-1)
            inverse_hmp = (kept / total[..., None] / floored).sum(axis=-1)
            if method == "wilson":
                landau_x = (inverse_hmp - np.log(n_present) - _LANDAU_LOCATION) / (math.pi / 2)
                combined = np.minimum(1.0, stats.landau.sf(landau_x))
            else:
                combined = np.minimum(1.0, 1.0 / inverse_hmp)
            combined = np.where(total > 0, combined, np.nan)
    return np.where(n_present > 0, combined, np.nan)


def discernment(p_value: float) -> float:
    """D = log_0.05(p), with p floored at the smallest positive float; 0 for p = 1, NaN for an undefined p."""
    return float(_discernment_rows(np.asarray(p_value, dtype=float)))


def _discernment_rows(p_values: np.ndarray) -> np.ndarray:
    """:func:`discernment` of every element (adding 0.0 makes p = 1 give 0, not -0)."""
    return np.log(np.clip(p_values, P_FLOOR, 1.0)) / np.log(SIGNIFICANCE) + 0.0


def level_balanced_mean(values: Mapping[str, float], levels: Mapping[str, str]) -> float:
    """Average giving each perturbation level (C, W, S) the same total weight, split equally inside a level.

    Only defined (non-NaN) values count; a level without any drops out. NaN when nothing is defined.
    """
    row = np.array([list(values.values())], dtype=float)
    return float(_level_balanced_rows(row, [levels[name] for name in values])[0])


def _level_balanced_rows(values: np.ndarray, levels: Sequence[str]) -> np.ndarray:
    """:func:`level_balanced_mean` of each row of ``values`` (one column per perturbation, of level ``levels[k]``)."""
    level_means = []
    for level in dict.fromkeys(levels):
        columns = values[:, [k for k, of in enumerate(levels) if of == level]]
        defined = ~np.isnan(columns)
        count = defined.sum(axis=1)
        with np.errstate(invalid="ignore"):
            level_means.append(np.where(count > 0, np.where(defined, columns, 0.0).sum(axis=1) / count, np.nan))
    if not level_means:
        return np.full(len(values), np.nan)
    means = np.stack(level_means, axis=1)
    defined = ~np.isnan(means)
    count = defined.sum(axis=1)
    with np.errstate(invalid="ignore"):
        return np.where(count > 0, np.where(defined, means, 0.0).sum(axis=1) / count, np.nan)


def rated_below(differences: np.ndarray, levels: Sequence[str], weights: np.ndarray) -> np.ndarray:
    """The probability that a perturbed copy is rated below its original, ties counting half, on each row of item
    weights: per perturbation and metric the weighted share of the items with a pair (``differences[k, j, i]``,
    original minus perturbed, NaN: no pair), averaged over the metrics and then over the perturbations with each
    level weighing the same, as ``D_avg`` is. An effect size beside D: 0.5 for a judge blind to the damage, 1 for
    one that always rates the damaged copy lower, and, unlike D, it does not grow with the number of items."""
    n_perturbations, n_metrics, n_items = differences.shape
    paired = np.isfinite(differences).reshape(-1, n_items)
    below = np.where(
        paired, (differences.reshape(-1, n_items) > 0) + 0.5 * (differences.reshape(-1, n_items) == 0), 0.0
    )
    counts, shares = weights @ paired.T.astype(float), weights @ below.T
    with np.errstate(invalid="ignore", divide="ignore"):
        per_pair = np.where(counts > 0, shares / np.maximum(counts, 1e-300), np.nan).reshape(
            -1, n_perturbations, n_metrics
        )
    defined = np.isfinite(per_pair)
    per_metric = defined.sum(axis=2)
    with np.errstate(invalid="ignore"):
        per_perturbation = np.where(per_metric > 0, np.where(defined, per_pair, 0.0).sum(axis=2) / per_metric, np.nan)
    return _level_balanced_rows(per_perturbation, levels)


def interval_names(metric: str) -> tuple[str, str]:
    """The names of a metric's bounds, ``<base>_ci_low<suffix>`` and ``<base>_ci_high<suffix>`` (``D/typos``:
    ``D_ci_low/typos``; ``D_avg``: ``D_avg_ci_low``), the suites' naming, which judge-report reads."""
    base, slash, suffix = metric.partition("/")
    return f"{base}_ci_low{slash}{suffix}", f"{base}_ci_high{slash}{suffix}"


def resampled_items(n_items: int, n_resamples: int, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """The item bootstrap's draws, ``(n_resamples, n_items)`` item indices drawn with replacement by a numpy
    Generator seeded with ``seed``, so that the same records always give the same bounds."""
    return np.random.default_rng(seed).integers(0, n_items, size=(n_resamples, n_items))


def draw_counts(draws: np.ndarray, n_items: int) -> np.ndarray:
    """``counts[b, i]``: how often resample b draws item i, from the resamples' item indices ``draws``."""
    counts = np.zeros((len(draws), n_items))
    np.add.at(counts, (np.arange(len(draws))[:, None], draws), 1.0)
    return counts


def wilcoxon_greater_resampled(differences: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """:func:`wilcoxon_greater` of every resample at once, equal to scipy's p-value on each.

    ``differences[i]`` is item i's original-minus-perturbed score (NaN: no pair) and ``counts[b, i]`` how often
    resample b draws item i. A resample's ranks, tie groups and signed-rank sum follow from how many of its
    pairs fall on each distinct |difference|, so no resample is expanded or sorted. scipy's ``method="auto"``
    is decided per resample, as scipy decides it for one sample: its exact distribution (no tied |difference|,
    no zero, at most :data:`EXACT_MAX_PAIRS` pairs) and its permutation test over every sign flip (ties or
    zeros, at most :data:`PERMUTATION_MAX_PAIRS` pairs) are both the share of sign flips that reach the
    observed sum, which :func:`_sign_flip_counts` counts exactly; other resamples get scipy's normal
    approximation with its tie correction and without continuity correction.
    """
    paired = ~np.isnan(differences)
    nonzero = np.flatnonzero(paired & (differences != 0))
    magnitudes, group = np.unique(np.abs(differences[nonzero]), return_inverse=True)
    positive = differences[nonzero] > 0
    drawn = np.asarray(counts, dtype=float)
    tied = _group_counts(drawn[:, nonzero], group, magnitudes.size)
    tied_positive = _group_counts(drawn[:, nonzero[positive]], group[positive], magnitudes.size)
    n_pairs = drawn[:, paired].sum(axis=1)
    n = tied.sum(axis=1)
    ranks = np.cumsum(tied, axis=1) - tied + (tied + 1) / 2
    rank_sum = (tied_positive * ranks).sum(axis=1)

    mean = n * (n + 1.0) * 0.25
    variance = n * (n + 1.0) * (2.0 * n + 1.0)
    standard_error = np.sqrt((variance - (tied**3 - tied).sum(axis=1) / 2) / 24)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_values = special.ndtr(-(rank_sum - mean) / standard_error)
    untied = (tied <= 1).all(axis=1) & (n == n_pairs)
    counted = (n > 0) & ((n_pairs <= PERMUTATION_MAX_PAIRS) | ((n_pairs <= EXACT_MAX_PAIRS) & untied))
    if counted.any():
        p_values[counted] = _sign_flip_counts(tied[counted], 2 * rank_sum[counted]) / 2.0 ** n[counted]
    p_values[n == 0] = 1.0
    p_values[np.isnan(p_values)] = 1.0
    p_values[n_pairs == 0] = np.nan
    return p_values


def _group_counts(drawn: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """``(resamples, n_groups)``: per resample, how many of its draws fall in each group (``group[i]``: item i's),
    summed by ``np.bincount`` in whole numbers: a matrix product would be the same sum, but multithreaded BLAS
    stalls on small products when the cores are busy."""
    rows = np.arange(len(drawn))[:, None] * n_groups + group[None, :]
    return np.bincount(rows.ravel(), weights=drawn.ravel(), minlength=len(drawn) * n_groups).reshape(
        len(drawn), n_groups
    )


def _sign_flip_counts(tied: np.ndarray, threshold: np.ndarray) -> np.ndarray:
    """Per row, how many of the 2^n sign patterns of its n nonzero differences give a doubled signed-rank sum of at
    least ``threshold``; ``tied[r, v]`` differences of row r share the v-th smallest |difference|.

    The count depends only on the row's n and where its tie groups end, so it is read from a table of every tie
    pattern of n differences (:func:`_tie_pattern_tails`, built once per n up to :data:`PERMUTATION_MAX_PAIRS`);
    a row of more differences is counted only without ties (scipy's exact distribution), a single pattern. A
    pattern is coded by its group ends: bit k set when a group ends after the (k+1)-th smallest difference."""
    n = tied.sum(axis=1).astype(int)
    group_ends = np.cumsum(tied, axis=1).astype(int)
    inner_ends = (tied > 0) & (group_ends < n[:, None])
    codes = np.where(inner_ends, np.left_shift(1, np.maximum(group_ends - 1, 0)), 0).sum(axis=1)
    sums = np.rint(threshold).astype(int)
    reached = np.empty(len(tied))
    for size in np.unique(n):
        rows = n == size
        if size <= PERMUTATION_MAX_PAIRS:
            reached[rows] = _tie_pattern_tails(int(size))[codes[rows], sums[rows]]
        else:
            reached[rows] = _untied_tail(int(size))[sums[rows]]
    return reached


@functools.lru_cache(maxsize=None)
def _tie_pattern_tails(n: int) -> np.ndarray:
    """``tails[code, s]``: for n differences in the tie pattern ``code`` (see :func:`_sign_flip_counts`), how many
    sign patterns give a doubled signed-rank sum of at least s. Every one of the 2^(n-1) patterns at once: at most
    4,096 rows of 184 sums (n = 13)."""
    codes = np.arange(2 ** (n - 1))
    position = np.arange(n)
    ends = np.ones((codes.size, n), dtype=bool)
    ends[:, :-1] = (codes[:, None] >> position[:-1]) & 1
    last = np.minimum.accumulate(np.where(ends, position, n)[:, ::-1], axis=1)[:, ::-1]
    first = np.maximum.accumulate(np.where(ends, position + 1, 0), axis=1)
    first = np.concatenate([np.zeros((codes.size, 1), dtype=int), first[:, :-1]], axis=1)
    return _rank_sum_tails(first + last + 2)


@functools.lru_cache(maxsize=None)
def _untied_tail(n: int) -> np.ndarray:
    """``tail[s]``: how many sign patterns of n untied differences (doubled ranks 2, 4, ..., 2n) reach s."""
    return _rank_sum_tails(2 * np.arange(1, n + 1)[None, :])[0]


def _rank_sum_tails(doubled_ranks: np.ndarray) -> np.ndarray:
    """Per row of doubled ranks (whole numbers: average ranks are halves), how many sign patterns give a doubled
    signed-rank sum of at least s, for s = 0 .. the sum of all ranks. The null distribution is built by convolving
    one difference at a time, in whole numbers, which float64 holds exactly (at most 2^50 patterns)."""
    rows = np.arange(len(doubled_ranks))
    sums = np.arange(int(doubled_ranks.sum(axis=1).max()) + 1)
    ways = np.zeros((len(doubled_ranks), sums.size))
    ways[:, 0] = 1.0
    for rank in doubled_ranks.T:
        source = sums[None, :] - rank[:, None]
        shifted = ways[rows[:, None], np.maximum(source, 0)]
        ways = ways + np.where(source >= 0, shifted, 0.0)
    tails = np.cumsum(ways[:, ::-1], axis=1)[:, ::-1]
    tails.flags.writeable = False
    return tails


@dataclass(frozen=True)
class ScoreRecord:
    """One judged text: which item, which variant (``original`` or a perturbation id), its mean scores."""

    item_id: str
    perturbation: str
    level: str | None
    scores: Mapping[str, float]


@dataclass
class PerturbationResult:
    """One perturbation's tests. ``p_values`` is NaN for a metric without pairs; such metrics are left out of
    ``p`` and ``p_ew``, which are NaN (and so are ``D`` and ``D_ew``) when no metric has pairs."""

    perturbation: str
    level: str
    p_values: dict[str, float]
    n_pairs: dict[str, int]
    p: float
    p_ew: float
    D: float
    D_ew: float

    @property
    def n_metrics_without_pairs(self) -> int:
        """How many metrics had no pair for this perturbation (left out of the combination)."""
        return sum(1 for count in self.n_pairs.values() if count == 0)


@dataclass
class DiscernmentReport:
    """Per-perturbation results, their summaries over the perturbations whose D is defined, and an item-bootstrap
    interval for every D."""

    perturbations: dict[str, PerturbationResult] = field(default_factory=dict)
    D_avg: float = math.nan
    D_min: float = math.nan
    D_avg_EW: float = math.nan
    D_min_EW: float = math.nan
    intervals: dict[str, Interval] = field(default_factory=dict)
    """The median-centred percentile interval of every discernment score, by its metric name (``D_avg``,
    ``D/typos``, ...)."""
    resampled: dict[str, np.ndarray] = field(default_factory=dict)
    """Every discernment score recomputed on each item resample, by its metric name (empty without a bootstrap)."""

    @property
    def n_undefined(self) -> int:
        """Perturbations whose D is NaN: no metric had a complete pair."""
        return sum(1 for result in self.perturbations.values() if math.isnan(result.D))

    @property
    def n_undefined_EW(self) -> int:
        """Perturbations whose expert-weighted D is NaN: no pairs on the metrics that carry weight."""
        return sum(1 for result in self.perturbations.values() if math.isnan(result.D_ew))

    def discernment_scores(self) -> dict[str, float]:
        """Every discernment score by its metric name: the summaries, then D and expert-weighted D per perturbation."""
        scores = {"D_avg": self.D_avg, "D_min": self.D_min, "D_avg_EW": self.D_avg_EW, "D_min_EW": self.D_min_EW}
        for name, result in self.perturbations.items():
            scores[f"D/{name}"] = result.D
            scores[f"D_EW/{name}"] = result.D_ew
        return scores

    def undefined_intervals(self) -> dict[str, list[str]]:
        """Why the bootstrap left intervals NaN although their score is defined (too many resamples without a pair),
        each reason with the metrics it concerns. Too few items is left out: it is plain from the data, and it is
        how every run in progress starts."""
        scores = self.discernment_scores()
        reasons: dict[str, list[str]] = {}
        for name, interval in self.intervals.items():
            if interval.reason is not None and name in self.resampled and not math.isnan(scores[name]):
                reasons.setdefault(interval.reason, []).append(name)
        return reasons

    def as_metrics(self) -> dict[str, float]:
        """Flat name -> value mapping, the form both harnesses log."""
        scores = self.discernment_scores()
        flat: dict[str, float] = {name: scores[name] for name in ("D_avg", "D_min", "D_avg_EW", "D_min_EW")}
        flat["n_undefined"] = float(self.n_undefined)
        flat["n_undefined_EW"] = float(self.n_undefined_EW)
        flat.update(scores)
        for name, interval in self.intervals.items():
            low, high = interval_names(name)
            flat[low], flat[high] = interval.low, interval.high
        for name, result in self.perturbations.items():
            flat[f"n_metrics_without_pairs/{name}"] = float(result.n_metrics_without_pairs)
            for metric, p_value in result.p_values.items():
                flat[f"p/{name}/{metric}"] = p_value
                flat[f"n_pairs/{name}/{metric}"] = float(result.n_pairs[metric])
        return flat


def _finite(value: float | None) -> bool:
    return value is not None and not math.isnan(value)


def _defined_min(values: Iterable[float]) -> float:
    defined = [value for value in values if not math.isnan(value)]
    return min(defined) if defined else math.nan


Pairs = dict[tuple[str, str], dict[str, tuple[float, float]]]
"""Per (perturbation, metric), each item's (original's score, perturbed copy's score), both present and finite."""


def paired_scores(records: Iterable[ScoreRecord], metrics: Sequence[str]) -> tuple[list[str], dict[str, str], Pairs]:
    """The perturbations (by level, then name), the level of each, and each perturbed copy's scores beside its
    original's where both are present and finite."""
    originals: dict[str, Mapping[str, float]] = {}
    perturbed: dict[str, dict[str, Mapping[str, float]]] = {}
    levels: dict[str, str] = {}
    for record in records:
        if record.perturbation == "original":
            originals[record.item_id] = record.scores
        else:
            if record.level not in LEVELS:
                raise ValueError(
                    f"record {record.item_id}/{record.perturbation}: level must be one of {LEVELS}, "
                    f"got {record.level!r}"
                )
            perturbed.setdefault(record.perturbation, {})[record.item_id] = record.scores
            levels[record.perturbation] = record.level
    names = sorted(perturbed, key=lambda n: (LEVELS.index(levels[n]), n))
    pairs = {
        (name, metric): {
            item: (originals[item][metric], scores[metric])
            for item, scores in perturbed[name].items()
            if item in originals and _finite(originals[item].get(metric)) and _finite(scores.get(metric))
        }
        for name in names
        for metric in metrics
    }
    return names, levels, pairs


def discernment_report(
    records: Iterable[ScoreRecord],
    metrics: Sequence[str],
    expert_weights: Mapping[str, Mapping[str, float]] | None = None,
    combine: Combination = "hmp",
    bootstrap_resamples: int = BOOTSTRAP_RESAMPLES,
    bootstrap_seed: int = BOOTSTRAP_SEED,
) -> DiscernmentReport:
    """Pair each perturbed text with its original and compute the full DHP report.

    Records may be incomplete (a run in progress, a perturbation not applicable to an item): a pair
    counts for a metric only when both its scores are present and finite. A metric without pairs has
    no p-value (NaN) and is left out of the combination; a perturbation without pairs on any metric
    has no D (NaN), and ``D_avg``/``D_min`` summarise the defined values only. ``expert_weights`` maps
    a perturbation id to metric weights; a perturbation without an entry splits its weight equally.

    Every D gets a :data:`BOOTSTRAP_CONFIDENCE` interval from ``bootstrap_resamples`` item resamples drawn with
    ``bootstrap_seed`` (:func:`item_bootstrap`): the percentiles of the resampled D moved so that their median falls
    on D (``percentile_interval`` with ``centre``).
    """
    names, levels, pairs = paired_scores(records, metrics)
    weights = {name: (expert_weights or {}).get(name) or {metric: 1.0 for metric in metrics} for name in names}
    report = DiscernmentReport()
    for name in names:
        p_values: dict[str, float] = {}
        n_pairs: dict[str, int] = {}
        for metric in metrics:
            paired = pairs[name, metric].values()
            n_pairs[metric] = len(paired)
            p_values[metric] = wilcoxon_greater([o for o, _ in paired], [p for _, p in paired])
        p = combine_p_values(p_values, None, combine)
        p_ew = combine_p_values(p_values, weights[name], combine)
        report.perturbations[name] = PerturbationResult(
            perturbation=name,
            level=levels[name],
            p_values=p_values,
            n_pairs=n_pairs,
            p=p,
            p_ew=p_ew,
            D=discernment(p),
            D_ew=discernment(p_ew),
        )

    level_of = {name: result.level for name, result in report.perturbations.items()}
    d = {name: result.D for name, result in report.perturbations.items()}
    d_ew = {name: result.D_ew for name, result in report.perturbations.items()}
    report.D_avg = level_balanced_mean(d, level_of)
    report.D_min = _defined_min(d.values())
    report.D_avg_EW = level_balanced_mean(d_ew, level_of)
    report.D_min_EW = _defined_min(d_ew.values())

    items, differences = _paired_differences(pairs, names, metrics)
    if len(items) >= MIN_BOOTSTRAP_ITEMS and bootstrap_resamples >= 2:
        weight_rows = np.array([[weights[name].get(metric, 0.0) for metric in metrics] for name in names])
        draws = resampled_items(len(items), bootstrap_resamples, bootstrap_seed)
        report.resampled = item_bootstrap(differences, names, [levels[n] for n in names], weight_rows, combine, draws)
    report.intervals = {
        name: bootstrap_interval(report.resampled.get(name), score, len(items), bootstrap_resamples)
        for name, score in report.discernment_scores().items()
    }
    return report


def _paired_differences(
    pairs: Mapping[tuple[str, str], Mapping[str, tuple[float, float]]], names: Sequence[str], metrics: Sequence[str]
) -> tuple[list[str], np.ndarray]:
    """The items with at least one pair, sorted by id (so that both harnesses draw the same resamples whatever
    order their samples come in), and each pair's original-minus-perturbed score, ``(perturbation, metric,
    item)``, NaN where an item has no pair."""
    items = sorted({item for paired in pairs.values() for item in paired})
    column = {item: i for i, item in enumerate(items)}
    differences = np.full((len(names), len(metrics), len(items)), np.nan)
    for k, name in enumerate(names):
        for j, metric in enumerate(metrics):
            for item, (original, perturbed) in pairs[name, metric].items():
                differences[k, j, column[item]] = original - perturbed
    return items, differences


def item_bootstrap(
    differences: np.ndarray,
    perturbations: Sequence[str],
    levels: Sequence[str],
    weights: np.ndarray,
    combine: Combination,
    draws: np.ndarray,
) -> dict[str, np.ndarray]:
    """Every discernment score recomputed on each item resample, by its metric name.

    ``differences[k, j, i]``: item i's original-minus-perturbed score for perturbation k and metric j (NaN: no
    pair); ``weights[k, j]``: the expert weight of metric j for perturbation k; ``draws[b]``: the items resample b
    draws (:func:`resampled_items`). An item is drawn with all its perturbations and metrics, so the pairing
    stays; each resample's p-values, combinations, D, ``D_avg`` and ``D_min`` are computed as for the data.
    """
    counts = draw_counts(draws, differences.shape[-1])
    p_values = np.stack(
        [
            np.stack([wilcoxon_greater_resampled(row, counts) for row in metric_rows], axis=-1)
            for metric_rows in differences
        ],
        axis=1,
    )
    resampled: dict[str, np.ndarray] = {}
    for suffix, metric_weights in (("", None), ("_EW", weights)):
        d = _discernment_rows(_combine_rows(p_values, metric_weights, combine))
        resampled[f"D_avg{suffix}"] = _level_balanced_rows(d, levels)
        resampled[f"D_min{suffix}"] = np.fmin.reduce(d, axis=1)
        resampled.update({f"D{suffix}/{name}": d[:, k] for k, name in enumerate(perturbations)})
    return resampled


def bootstrap_interval(resampled: np.ndarray | None, score: float, n_items: int, n_resamples: int) -> Interval:
    """The percentile interval of a score's bootstrap distribution moved onto the score (resampled D leans upwards:
    see ``dhp_tasks/README.md``) and kept within D's range, or NaN bounds with the reason."""
    if n_resamples < 2:
        return Interval(math.nan, math.nan, f"{n_resamples} bootstrap resample(s); an interval needs at least 2")
    if n_items < MIN_BOOTSTRAP_ITEMS:
        return Interval(
            math.nan, math.nan, f"{n_items} item(s) with a pair; the item bootstrap needs {MIN_BOOTSTRAP_ITEMS}"
        )
    if math.isnan(score) or resampled is None:
        return Interval(math.nan, math.nan, "the score itself is undefined")
    low, high = percentile_interval(resampled, BOOTSTRAP_CONFIDENCE, centre=score)
    if math.isnan(low):
        share = float(np.mean(np.isnan(resampled)))
        return Interval(
            low,
            high,
            f"{share:.1%} of the item resamples draw no item with a pair for it (at most "
            f"{MAX_UNDEFINED_RESAMPLES:.0%} may)",
        )
    return Interval(max(low, 0.0), min(high, MAX_DISCERNMENT))


METRIC_FAMILIES = (MetricFamily("n_undefined", higher_is_better=False, count=True),)
"""``n_undefined`` and ``n_undefined_EW``: perturbations whose D is undefined."""
