"""Statistics over items shared by several runs: pooled means whose interval resamples the items jointly, paired
comparisons of judges on the same items, Holm's adjustment and the rank rule.

Plain NumPy/SciPy. A run's headline enters as an :class:`ItemStatistic`: the keys of its items (the same FBI item,
DHP reference text, human-scored response or task description has the same key in every run that judged it) and a
function that recomputes the headline from item weights, so that one draw of items can be applied to every run that
holds them. An item drawn twice weighs 2, one not drawn 0; all-ones weights give the estimate itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Generic, TypeVar

import numpy as np
from scipy import stats

from scorers.discernment import draw_counts

Judge = TypeVar("Judge", bound=Hashable)
"""How a caller names its judges (the report: a judge's identity)."""

RESAMPLES = 2000
"""Item resamples behind every pooled interval and paired comparison."""

SEED = 0
"""Seed of the numpy Generator that draws them, so that the same runs always give the same bounds."""

CONFIDENCE = 0.95

SIGNIFICANCE = 0.05
"""Holm-adjusted p-values below this tell two judges apart (the rank rule)."""

MAX_UNDEFINED_RESAMPLES = 0.01
"""Above this share of undefined resamples (a correlation drawn constant) an interval is NaN, as in the suites."""

MCNEMAR = "exact McNemar (binomial test on the discordant items)"
BOOTSTRAP_TEST = (
    "paired t-test from the item bootstrap (the difference over its resampled standard error, Student's t with "
    "n - 1 degrees of freedom, never below the 2^(1 - n) of an exact paired test on n items)"
)


@dataclass(frozen=True)
class ItemStatistic:
    """A headline as a function of item weights: ``compute(weights)`` maps ``(resamples, len(items))`` weights to
    one value per resample (NaN where it is undefined). ``failures`` holds each item's 0/1 outcome where the
    headline is the mean of binary outcomes (FBI), for McNemar's test; NaN marks an item without one.
    ``answered``: per item, whether the judge's answers give it any value (``None``: every item), so that two
    judges are compared on the items both answered."""

    items: tuple[str, ...]
    compute: Callable[[np.ndarray], np.ndarray]
    failures: np.ndarray | None = None
    answered: np.ndarray | None = None

    def estimate(self, shared: set[str] | None = None) -> float:
        """The statistic on all its items, or on those in ``shared`` only."""
        weights = np.ones((1, len(self.items)))
        if shared is not None:
            weights[0, [key not in shared for key in self.items]] = 0.0
        return float(self.compute(weights)[0])

    def answered_items(self) -> set[str]:
        """The keys of the items the judge's answers give a value."""
        if self.answered is None:
            return set(self.items)
        return {key for key, answered in zip(self.items, self.answered, strict=True) if answered}


@dataclass(frozen=True)
class ItemSums:
    """A headline that is a function of weighted sums over its items, ``finish(weights @ values)`` (``values``:
    items x sums), used as an :class:`ItemStatistic`'s ``compute``: leaving a few items out of a resample then
    costs only those items, which a comparison of many judges with different unanswered items needs."""

    values: np.ndarray
    finish: Callable[[np.ndarray], np.ndarray]

    def __call__(self, weights: np.ndarray) -> np.ndarray:
        """The headline on each row of item weights."""
        return self.finish(weights @ self.values)


def weighted_mean(values: Sequence[float] | np.ndarray) -> ItemSums:
    """The mean of the finite values under item weights (NaN values are left out, as unparsed answers are)."""
    array = np.asarray(values, dtype=float)
    finite = np.isfinite(array)

    def finish(sums: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(sums[:, 0] > 0, sums[:, 1] / sums[:, 0], np.nan)

    return ItemSums(np.stack([finite.astype(float), np.where(finite, array, 0.0)], axis=1), finish)


PEARSON_SUMS = 6
"""The weighted sums behind one Pearson's r: pairs, x, y, x², y², xy."""


def _pearson_of_sums(sums: np.ndarray) -> np.ndarray:
    total, sx, sy, sxx, syy, sxy = sums.T
    with np.errstate(divide="ignore", invalid="ignore"):
        vxx, vyy = sxx - sx * sx / total, syy - sy * sy / total
        spread = (vxx > 1e-9 * sxx) & (vyy > 1e-9 * syy) & (sxx > 0) & (syy > 0)
        r = np.where(spread & (total >= 3), (sxy - sx * sy / total) / np.sqrt(vxx * vyy), np.nan)
    return np.clip(r, -1.0, 1.0)


def pearson_sums(judge: np.ndarray, human: np.ndarray) -> ItemSums:
    """Pearson's r of the pairs both defined, each item counted as often as it is drawn; NaN where either side is
    constant or the drawn pairs are fewer than 3 (the suites' minimum, counted as their bootstrap counts them). The
    scores are centred on their unweighted means before summing, which keeps the sums' cancellation small."""
    defined = np.isfinite(judge) & np.isfinite(human)
    x = np.where(defined, judge - (np.mean(judge[defined]) if defined.any() else 0.0), 0.0)
    y = np.where(defined, human - (np.mean(human[defined]) if defined.any() else 0.0), 0.0)
    return ItemSums(np.stack([defined.astype(float), x, y, x * x, y * y, x * y], axis=1), _pearson_of_sums)


def weighted_pearson(judge: np.ndarray, human: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """:func:`pearson_sums` on rows of item weights."""
    return pearson_sums(judge, human)(weights)


def signed_mean_of_pearsons(parts: Sequence[tuple[int, ItemSums]], n_items: int) -> ItemSums:
    """The mean of ``sign * r`` over several :func:`pearson_sums` of the same ``n_items`` items (NaN where one is,
    and everywhere without any)."""
    if not parts:
        return ItemSums(np.zeros((n_items, 0)), lambda sums: np.full(len(sums), np.nan))
    signs = np.array([sign for sign, _ in parts], dtype=float)

    def finish(sums: np.ndarray) -> np.ndarray:
        r = _pearson_of_sums(sums.reshape(len(sums) * len(parts), PEARSON_SUMS)).reshape(len(sums), len(parts))
        return r @ signs / len(parts)

    return ItemSums(np.hstack([sums.values for _, sums in parts]), finish)


def _connected(key_sets: Sequence[set[str]]) -> list[list[int]]:
    """The indices of ``key_sets`` grouped so that two share a group when they share a key (directly or through
    others), in the order the groups close."""
    groups: list[tuple[set[str], list[int]]] = []
    for index, keys in enumerate(key_sets):
        touching = [group for group in groups if group[0] & keys]
        merged = (set(keys).union(*(group[0] for group in touching)), [i for g in touching for i in g[1]] + [index])
        groups = [group for group in groups if not any(group is t for t in touching)] + [merged]
    return [sorted(members) for _, members in groups]


def item_groups(statistics: Sequence[ItemStatistic]) -> list[list[int]]:
    """The statistics grouped so that two share a group when they share an item (directly or through others)."""
    return _connected([set(statistic.items) for statistic in statistics])


@dataclass(frozen=True)
class ItemDraw:
    """How often each resample draws each item: ``counts[:, column[key]]``. Keys that several statistics hold are
    drawn once for all of them."""

    column: Mapping[str, int]
    counts: np.ndarray

    def weights(self, statistic: ItemStatistic, kept: set[str] | None = None) -> np.ndarray:
        """The statistic's item weights on this draw: 0 for items not drawn from, or not in ``kept``."""
        positions = np.array([self.column.get(key, -1) for key in statistic.items], dtype=int)
        if kept is not None:
            positions[[key not in kept for key in statistic.items]] = -1
        if not self.column:
            return np.zeros((len(self.counts), positions.size))
        weights = self.counts[:, np.maximum(positions, 0)]
        weights[:, positions < 0] = 0.0
        return weights


def draw_items(key_sets: Sequence[set[str]], n_resamples: int = RESAMPLES, seed: int = SEED) -> ItemDraw:
    """Item resamples for statistics holding these keys: key sets that share keys (directly or through others) are
    drawn jointly, each key drawn with everything every statistic holds of it; groups that share none are drawn
    independently, each from its own keys (as many draws as it has keys)."""
    rng = np.random.default_rng(seed)
    column: dict[str, int] = {}
    blocks = []
    for members in _connected(list(key_sets)):
        keys = sorted(set().union(*(key_sets[index] for index in members)))
        if not keys:
            continue
        column.update({key: len(column) + position for position, key in enumerate(keys)})
        blocks.append(draw_counts(rng.integers(0, len(keys), size=(n_resamples, len(keys))), len(keys)))
    return ItemDraw(column, np.hstack(blocks) if blocks else np.zeros((n_resamples, 0)))


def joint_resamples(
    statistics: Sequence[ItemStatistic],
    n_resamples: int = RESAMPLES,
    seed: int = SEED,
    shared: set[str] | None = None,
) -> np.ndarray:
    """``(n_resamples, len(statistics))``: every statistic on the same item resamples (:func:`draw_items`).
    ``shared``: only these items are drawn (the rest weigh 0); a statistic without one of them is NaN."""
    held = [set(statistic.items) if shared is None else set(statistic.items) & shared for statistic in statistics]
    draw = draw_items(held, n_resamples, seed)
    out = np.full((n_resamples, len(statistics)), np.nan)
    for index, statistic in enumerate(statistics):
        if held[index]:
            out[:, index] = statistic.compute(draw.weights(statistic))
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
    """Judge a minus judge b on the items both answered: the difference of their (pooled) headlines, its paired
    interval, the p-value of "no difference" (NaN where there is none) and the test that gave it."""

    difference: float
    low: float
    high: float
    p: float
    n_items: int
    test: str


def mcnemar_p(first: np.ndarray, second: np.ndarray) -> float:
    """Exact two-sided McNemar p-value of paired 0/1 outcomes (items where either is NaN left out): a binomial test
    of the discordant items against 1/2; 1 when no item is discordant, NaN when no item has both outcomes."""
    both = np.isfinite(first) & np.isfinite(second)
    if not both.any():
        return math.nan
    only_first = int(np.sum((first[both] == 1) & (second[both] == 0)))
    only_second = int(np.sum((first[both] == 0) & (second[both] == 1)))
    if only_first + only_second == 0:
        return 1.0
    return float(stats.binomtest(only_first, only_first + only_second, 0.5).pvalue)


def resampled_t_p(differences: np.ndarray, difference: float, n_items: int) -> float:
    """The two-sided p-value of "no difference" from resampled differences: ``difference`` over their standard
    deviation (times ``sqrt(n / (n - 1))``, so that for a mean of per-item values it is the paired t-test's
    standard error) against Student's t with ``n - 1`` degrees of freedom. Unlike counting resamples beyond zero,
    it resolves the small p-values Holm's adjustment over many pairs needs; it is never below ``2^(1 - n)``, the
    smallest p an exact paired test on ``n`` items can give (one of the 2^n sign patterns, both sides). NaN where
    the difference is, or more than :data:`MAX_UNDEFINED_RESAMPLES` of the resamples are undefined."""
    defined = differences[np.isfinite(differences)]
    if math.isnan(difference) or n_items < 2 or defined.size < max(2, (1 - MAX_UNDEFINED_RESAMPLES) * differences.size):
        return math.nan
    error = float(np.std(defined, ddof=1)) * math.sqrt(n_items / (n_items - 1))
    if error == 0.0:
        p = 1.0 if difference == 0.0 else 0.0
    else:
        p = float(2 * stats.t.sf(abs(difference) / error, df=n_items - 1))
    return min(1.0, max(p, 2.0 ** (1 - n_items)))


def _binary(statistic: ItemStatistic) -> bool:
    failures = statistic.failures
    return failures is not None and bool(np.all(np.isnan(failures) | (failures == 0) | (failures == 1)))


def _aligned_failures(a: ItemStatistic, b: ItemStatistic, kept: set[str]) -> tuple[np.ndarray, np.ndarray]:
    keys = sorted(kept)
    by_a = dict(zip(a.items, a.failures if a.failures is not None else [], strict=True))
    by_b = dict(zip(b.items, b.failures if b.failures is not None else [], strict=True))
    return np.array([by_a[key] for key in keys], dtype=float), np.array([by_b[key] for key in keys], dtype=float)


class PairedResamples(Generic[Judge]):
    """The judges of one column on shared item resamples, each judge's headline recomputed once per item set and
    reused for every pair that shares it (twenty judges are 190 pairs).

    A pair is compared on the items both judges answered: per task, the items both hold and both gave a value. The
    items are drawn from those both hold (one draw per distinct set of held items, seeded the same, so a pair's
    resamples do not depend on the other judges), and items either judge left unanswered weigh 0 for both.
    """

    def __init__(
        self,
        statistics: Mapping[Judge, Sequence[ItemStatistic]],
        n_resamples: int = RESAMPLES,
        seed: int = SEED,
    ) -> None:
        self.statistics = statistics
        self.n_resamples = n_resamples
        self.seed = seed
        self._draws: dict[tuple[frozenset[str], ...], ItemDraw] = {}
        self._resampled: dict[tuple, np.ndarray] = {}
        self._sums: dict[tuple, np.ndarray] = {}
        self._answered = {
            judge: [statistic.answered_items() for statistic in tasks] for judge, tasks in statistics.items()
        }

    def _draw(self, held: tuple[frozenset[str], ...]) -> ItemDraw:
        if held not in self._draws:
            self._draws[held] = draw_items([set(keys) for keys in held], self.n_resamples, self.seed)
        return self._draws[held]

    def _resamples(self, judge: Judge, task: int, held: tuple[frozenset[str], ...], kept: set[str]) -> np.ndarray:
        """The judge's headline of one task on the draw of ``held``, items outside ``kept`` weighing 0. Cached by
        the items the judge answered that ``kept`` leaves out (none, for judges that answered the same items); a
        headline of item sums (:class:`ItemSums`) subtracts those items from its sums on all of ``held``."""
        statistic = self.statistics[judge][task]
        dropped = frozenset((self._answered[judge][task] & held[task]) - kept)
        key = (judge, task, held, dropped)
        if key in self._resampled:
            return self._resampled[key]
        draw = self._draw(held)
        if isinstance(statistic.compute, ItemSums):
            sums_key = (judge, task, held)
            if sums_key not in self._sums:
                self._sums[sums_key] = draw.weights(statistic) @ statistic.compute.values
            sums = self._sums[sums_key]
            if dropped:
                rows = [position for position, item in enumerate(statistic.items) if item in dropped]
                columns = [draw.column[statistic.items[row]] for row in rows]
                sums = sums - draw.counts[:, columns] @ statistic.compute.values[rows]
            self._resampled[key] = statistic.compute.finish(sums)
        else:
            self._resampled[key] = statistic.compute(draw.weights(statistic, kept))
        return self._resampled[key]

    def compare(self, a: Judge, b: Judge, confidence: float = CONFIDENCE) -> Comparison | None:
        """Judge ``a`` against judge ``b``; ``None`` when they hold no item in common.

        The difference is of the mean over tasks, each judge's headline recomputed on the items both answered; its
        interval the re-centred percentile interval of the resampled differences. The p-value: :func:`mcnemar_p`
        where there is one task and both judges' per-item outcomes are 0/1 (FBI failures), otherwise
        :func:`resampled_t_p`; NaN where the two share no answered item or the difference is undefined.
        """
        first, second = self.statistics[a], self.statistics[b]
        held = tuple(frozenset(set(x.items) & set(y.items)) for x, y in zip(first, second, strict=True))
        if not any(held):
            return None
        kept_by_task = [
            set(keys) & answered_a & answered_b
            for keys, answered_a, answered_b in zip(held, self._answered[a], self._answered[b], strict=True)
        ]
        kept = set().union(*kept_by_task)
        binary = len(first) == 1 and _binary(first[0]) and _binary(second[0])
        test = MCNEMAR if binary else BOOTSTRAP_TEST
        if not kept:
            return Comparison(math.nan, math.nan, math.nan, math.nan, 0, test)
        difference = float(
            np.mean([statistic.estimate(keys) for statistic, keys in zip(first, kept_by_task, strict=True)])
            - np.mean([statistic.estimate(keys) for statistic, keys in zip(second, kept_by_task, strict=True)])
        )
        resampled = [
            np.mean([self._resamples(judge, t, held, kept_by_task[t]) for t in range(len(first))], axis=0)
            for judge in (a, b)
        ]
        differences = resampled[0] - resampled[1]
        low, high = recentred_interval(differences, difference, confidence)
        if binary:
            p = math.nan if math.isnan(difference) else mcnemar_p(*_aligned_failures(first[0], second[0], kept))
        else:
            p = resampled_t_p(differences, difference, len(kept))
        return Comparison(difference, low, high, p, len(kept), test)


def compare(
    first: Sequence[ItemStatistic],
    second: Sequence[ItemStatistic],
    n_resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> Comparison | None:
    """Judge ``first`` against judge ``second`` (one statistic per task, the same tasks in the same order):
    :meth:`PairedResamples.compare` of the two alone."""
    return PairedResamples({0: first, 1: second}, n_resamples, seed).compare(0, 1, confidence)


def compare_all(
    statistics: Mapping[Judge, Sequence[ItemStatistic]],
    n_resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> dict[tuple[Judge, Judge], Comparison | None]:
    """Every pair of the judges (in the mapping's order), each judge's resamples computed once per item set."""
    resamples = PairedResamples(statistics, n_resamples, seed)
    return {(a, b): resamples.compare(a, b, confidence) for a, b in combinations(statistics, 2)}


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
    "rank = 1 + the number of judges significantly better: better by the paired difference on the items both "
    "answered, with a Holm-adjusted p < 0.05 over all pairs of the column; judges not told apart can share a rank, "
    "ranks can skip numbers, and a judge compared with no other judge has no rank"
)


def rank_judges(
    comparisons: Mapping[tuple[Judge, Judge], tuple[float, float]],
    higher_is_better: bool,
    significance: float = SIGNIFICANCE,
) -> dict[Judge, int]:
    """Each judge's rank by :data:`RANK_RULE`, from ``comparisons[(a, b)] = (a - b, Holm-adjusted p)`` of the
    column's pairs with a p-value (NaN ones are left out). Judges in none of them get no rank."""
    better: dict[Judge, int] = {}
    for (a, b), (difference, p) in comparisons.items():
        if math.isnan(p) or math.isnan(difference):
            continue
        better.setdefault(a, 0)
        better.setdefault(b, 0)
        if p < significance and difference != 0:
            a_better = (difference > 0) == higher_is_better
            better[b if a_better else a] += 1
    return {judge: 1 + count for judge, count in better.items()}
