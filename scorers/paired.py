"""Statistics over items shared by several runs: pooled means whose interval resamples the items jointly, paired
comparisons of two judges on the same items, Holm's adjustment and rank groups.

Plain NumPy/SciPy. A run's headline enters as an :class:`ItemStatistic`: the keys of its items (the same FBI item,
DHP reference text, human-scored response or task description has the same key in every run that judged it) and a
function that recomputes the headline from item weights, so that one draw of items can be applied to every run that
holds them. An item drawn twice weighs 2, one not drawn 0; all-ones weights give the estimate itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from scorers.discernment import draw_counts

RESAMPLES = 2000
"""Item resamples behind every pooled interval and paired comparison."""

SEED = 0
"""Seed of the numpy Generator that draws them, so that the same runs always give the same bounds."""

CONFIDENCE = 0.95

SIGNIFICANCE = 0.05
"""Adjusted p-values below this tell two judges apart (rank groups)."""

MAX_UNDEFINED_RESAMPLES = 0.01
"""Above this share of undefined resamples (a correlation drawn constant) an interval is NaN, as in the suites."""

MCNEMAR = "exact McNemar (binomial test on the discordant items)"
BOOTSTRAP_TEST = "paired item bootstrap (two-sided, from the re-centred resamples of the difference)"


@dataclass(frozen=True)
class ItemStatistic:
    """A headline as a function of item weights: ``compute(weights)`` maps ``(resamples, len(items))`` weights to
    one value per resample (NaN where it is undefined). ``failures`` holds each item's 0/1 outcome where the
    headline is the mean of binary outcomes (FBI), for McNemar's test; NaN marks an item without one."""

    items: tuple[str, ...]
    compute: Callable[[np.ndarray], np.ndarray]
    failures: np.ndarray | None = None

    def estimate(self, shared: set[str] | None = None) -> float:
        """The statistic on all its items, or on those in ``shared`` only."""
        weights = np.ones((1, len(self.items)))
        if shared is not None:
            weights[0, [key not in shared for key in self.items]] = 0.0
        return float(self.compute(weights)[0])


def weighted_mean(values: Sequence[float] | np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The mean of the finite values under item weights (NaN values are left out, as unparsed answers are)."""
    array = np.asarray(values, dtype=float)
    finite = np.isfinite(array)
    filled = np.where(finite, array, 0.0)

    def compute(weights: np.ndarray) -> np.ndarray:
        total = weights @ finite.astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, (weights @ filled) / total, np.nan)

    return compute


def weighted_pearson(judge: np.ndarray, human: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Pearson's r of the pairs both defined, each item counted as often as it is drawn; NaN where either side is
    constant or fewer than 3 items are drawn (the suites' minimum)."""
    defined = np.isfinite(judge) & np.isfinite(human)
    w = weights * defined
    x, y = np.where(defined, judge, 0.0), np.where(defined, human, 0.0)
    total = w.sum(axis=1)
    drawn = (w > 0).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_x, mean_y = (w @ x) / total, (w @ y) / total
        dx, dy = x[None, :] - mean_x[:, None], y[None, :] - mean_y[:, None]
        sxx, syy, sxy = (w * dx * dx).sum(axis=1), (w * dy * dy).sum(axis=1), (w * dx * dy).sum(axis=1)
        tolerance = 1e-12 * np.maximum(total, 1.0)
        r = np.where((sxx > tolerance) & (syy > tolerance) & (drawn >= 3), sxy / np.sqrt(sxx * syy), np.nan)
    return np.clip(r, -1.0, 1.0)


def item_groups(statistics: Sequence[ItemStatistic]) -> list[list[int]]:
    """The statistics grouped so that two share a group when they share an item (directly or through others)."""
    groups: list[tuple[set[str], list[int]]] = []
    for index, statistic in enumerate(statistics):
        keys = set(statistic.items)
        touching = [group for group in groups if group[0] & keys]
        merged = (keys.union(*(group[0] for group in touching)), [i for g in touching for i in g[1]] + [index])
        groups = [group for group in groups if not any(group is t for t in touching)] + [merged]
    return [sorted(members) for _, members in groups]


def joint_resamples(
    statistics: Sequence[ItemStatistic],
    n_resamples: int = RESAMPLES,
    seed: int = SEED,
    shared: set[str] | None = None,
) -> np.ndarray:
    """``(n_resamples, len(statistics))``: every statistic on the same item resamples. Statistics that share items
    (directly or through others) are resampled jointly, each item drawn with everything every statistic holds of
    it; groups that share none are resampled independently, each from its own items. ``shared``: only these items
    are drawn (the rest weigh 0)."""
    rng = np.random.default_rng(seed)
    out = np.full((n_resamples, len(statistics)), np.nan)
    for members in item_groups(statistics):
        keys = sorted({key for index in members for key in statistics[index].items if shared is None or key in shared})
        if not keys:
            continue
        column = {key: position for position, key in enumerate(keys)}
        draws = rng.integers(0, len(keys), size=(n_resamples, len(keys)))
        counts = draw_counts(draws, len(keys))
        for index in members:
            statistic = statistics[index]
            weights = np.zeros((n_resamples, len(statistic.items)))
            for position, key in enumerate(statistic.items):
                if key in column:
                    weights[:, position] = counts[:, column[key]]
            out[:, index] = statistic.compute(weights)
    return out


def recentred_interval(resampled: np.ndarray, estimate: float, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile interval moved so that the resamples' median sits on the estimate, ``[T - (m* - q*_lo),
    T + (q*_hi - m*)]``: it keeps the resamples' spread and skew but not a lean of their centre away from ``T``
    (DHP's resampled D lean upwards). NaN when more than :data:`MAX_UNDEFINED_RESAMPLES` of them are undefined."""
    defined = resampled[np.isfinite(resampled)]
    if math.isnan(estimate) or defined.size < 2 or defined.size < (1 - MAX_UNDEFINED_RESAMPLES) * resampled.size:
        return math.nan, math.nan
    tail = (1 - confidence) / 2
    low, median, high = np.quantile(defined, [tail, 0.5, 1 - tail])
    return float(estimate - (median - low)), float(estimate + (high - median))


@dataclass(frozen=True)
class Comparison:
    """Judge a minus judge b on the items both ran: the difference of their (pooled) headlines, its paired
    interval, the p-value of "no difference" and the test that gave it."""

    difference: float
    low: float
    high: float
    p: float
    n_items: int
    test: str


def shared_items(first: Sequence[ItemStatistic], second: Sequence[ItemStatistic]) -> set[str]:
    """The items both judges hold, over all the tasks they are compared on."""
    return {key for a, b in zip(first, second, strict=True) for key in set(a.items) & set(b.items)}


def mcnemar_p(first: np.ndarray, second: np.ndarray) -> float:
    """Exact two-sided McNemar p-value of paired 0/1 outcomes (items where either is NaN left out): a binomial test
    of the discordant items against 1/2; 1 when no item is discordant."""
    both = np.isfinite(first) & np.isfinite(second)
    only_first = int(np.sum((first[both] == 1) & (second[both] == 0)))
    only_second = int(np.sum((first[both] == 0) & (second[both] == 1)))
    if only_first + only_second == 0:
        return 1.0
    return float(stats.binomtest(only_first, only_first + only_second, 0.5).pvalue)


def _binary(statistic: ItemStatistic) -> bool:
    failures = statistic.failures
    return failures is not None and bool(np.all(np.isnan(failures) | (failures == 0) | (failures == 1)))


def _aligned_failures(a: ItemStatistic, b: ItemStatistic, shared: set[str]) -> tuple[np.ndarray, np.ndarray]:
    keys = sorted(shared & set(a.items) & set(b.items))
    by_a = dict(zip(a.items, a.failures if a.failures is not None else [], strict=True))
    by_b = dict(zip(b.items, b.failures if b.failures is not None else [], strict=True))
    return np.array([by_a[key] for key in keys], dtype=float), np.array([by_b[key] for key in keys], dtype=float)


def compare(
    first: Sequence[ItemStatistic],
    second: Sequence[ItemStatistic],
    n_resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> Comparison | None:
    """Judge ``first`` against judge ``second`` (one statistic per task, the same tasks in the same order) on the
    items both hold; ``None`` when they share none.

    The difference is of the mean over tasks, each judge's headline recomputed on the shared items. Its interval is
    the re-centred percentile interval of the difference over item resamples drawn once for both judges and every
    task (:func:`joint_resamples`). The p-value: :func:`mcnemar_p` where there is one task and both judges' per-item
    outcomes are 0/1 (FBI failures); otherwise the paired bootstrap's, twice the smaller share of re-centred
    resampled differences on either side of zero (+1 in each count, so never 0); it falls below 0.05 about when the
    interval excludes zero.
    """
    shared = shared_items(first, second)
    if not shared:
        return None
    k = len(first)
    difference = float(
        np.mean([statistic.estimate(shared) for statistic in first])
        - np.mean([statistic.estimate(shared) for statistic in second])
    )
    both = [*first, *second]
    resampled = joint_resamples(both, n_resamples, seed, shared)
    differences = resampled[:, :k].mean(axis=1) - resampled[:, k:].mean(axis=1)
    low, high = recentred_interval(differences, difference, confidence)
    if k == 1 and _binary(first[0]) and _binary(second[0]):
        p = mcnemar_p(*_aligned_failures(first[0], second[0], shared))
        test = MCNEMAR
    else:
        defined = differences[np.isfinite(differences)]
        if math.isnan(difference) or math.isnan(low):
            p = math.nan
        else:
            centred = defined - np.median(defined) + difference
            below, above = int(np.sum(centred <= 0)), int(np.sum(centred >= 0))
            p = min(1.0, 2 * (min(below, above) + 1) / (defined.size + 1))
        test = BOOTSTRAP_TEST
    return Comparison(difference, low, high, p, len(shared), test)


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values (NaN entries stay NaN and do not count)."""
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    defined = np.flatnonzero(np.isfinite(p))
    order = defined[np.argsort(p[defined], kind="stable")]
    m = order.size
    steps = (m - np.arange(m)) * p[order]
    adjusted[order] = np.minimum(np.maximum.accumulate(steps), 1.0)
    return adjusted


RANK_RULE = (
    "rank groups: the best judge on a headline and every judge not told apart from it (Holm-adjusted p >= 0.05 over "
    "all pairs of the column) share rank 1; among the rest, the best and those not told apart from it share the "
    "next rank, and so on"
)


def rank_groups(
    values: Mapping[str, float],
    higher_is_better: bool,
    adjusted: Mapping[tuple[str, str], float],
    significance: float = SIGNIFICANCE,
) -> dict[str, int]:
    """Each judge's rank group by :data:`RANK_RULE`: ``values`` per judge, ``adjusted[(a, b)]`` the adjusted
    p-value of a pair (either order). Judges with a NaN value, or not compared with a group's leader, get none."""
    sign = -1.0 if higher_is_better else 1.0
    remaining = sorted(
        (judge for judge, value in values.items() if not math.isnan(value)), key=lambda j: sign * values[j]
    )
    groups: dict[str, int] = {}
    rank = 0
    while remaining:
        leader, rank = remaining[0], rank + 1
        groups[leader] = rank
        left = []
        for judge in remaining[1:]:
            p = adjusted.get((leader, judge), adjusted.get((judge, leader), math.nan))
            if math.isnan(p):
                continue
            if p >= significance:
                groups[judge] = rank
            else:
                left.append(judge)
        remaining = left
    return groups
