"""Agreement between raters: Krippendorff's α (interval) with its item-bootstrap interval, and Pearson correlations
of a judge with each annotator.

Plain functions on arrays (one row per rater, one column per unit; None or NaN where a rater gave no
score), shared by every harness. The CoEval paper reports α between each pair of raters, the judge and
the annotators (its Figures 5-7), and the mean pairwise Pearson correlation among evaluators (its Table 10).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import krippendorff
import numpy as np
from scipy import stats

from scorers.correlation import MAX_UNDEFINED_RESAMPLES, Interval, percentile_interval
from scorers.discernment import (
    BOOTSTRAP_CONFIDENCE,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    MIN_BOOTSTRAP_ITEMS,
    draw_counts,
    resampled_items,
)

JUDGE = "judge"
"""The judge's name among the raters of ``alpha/pair/<first>/<second>``; annotators keep their ids from the data."""

ALPHA_ANNOTATORS = "alpha/annotators"
"""α of the annotators alone."""

ALPHA_WITH_JUDGE = "alpha/with_judge"
"""α of the annotators and the judge as one more rater."""

UNDEFINED_RESAMPLES = "of the item resamples hold one value only, so their alpha is undefined"
"""Why :func:`alpha_interval` is NaN where α is defined on the data but not on too many of its item resamples."""

NO_DISAGREEMENT = "every pairable score is the same value, so no disagreement is expected"
"""Why :func:`interval_alpha` is NaN when the raters share one value: α's denominator is zero."""


@dataclass(frozen=True)
class Agreement:
    """An agreement statistic; ``reason`` says why ``value`` is NaN."""

    value: float
    reason: str | None = None
    n_items: int = 0
    """Items that entered the statistic (rated by at least two raters, or by both raters for Pearson)."""


def ratings_matrix(ratings: Sequence[Sequence[float | None]] | np.ndarray) -> np.ndarray:
    """A float matrix (raters x items) with NaN for missing scores (None)."""
    rows = [[math.nan if value is None else float(value) for value in row] for row in ratings]
    if len({len(row) for row in rows}) > 1:
        raise ValueError("every rater needs one entry per item (None where the score is missing)")
    return np.asarray(rows, dtype=float).reshape(len(rows), -1)


def interval_alpha(ratings: Sequence[Sequence[float | None]] | np.ndarray) -> Agreement:
    """Krippendorff's α with the interval metric, from the ``krippendorff`` package.

    Items rated by fewer than two raters carry no pairable values and are left out, as in the
    definition. NaN with a reason when fewer than two raters are given, no item has two scores, or
    every pairable score is the same value (no expected disagreement).
    """
    matrix = ratings_matrix(ratings)
    if matrix.shape[0] < 2:
        return Agreement(math.nan, "Krippendorff's alpha needs at least two raters")
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    n_items = int(pairable.sum())
    if n_items == 0:
        return Agreement(math.nan, "no item has scores from two raters")
    values = matrix[:, pairable]
    if np.unique(values[~np.isnan(values)]).size < 2:
        return Agreement(math.nan, NO_DISAGREEMENT, n_items)
    alpha = krippendorff.alpha(reliability_data=values, level_of_measurement="interval")
    return Agreement(float(alpha), None, n_items)


def weighted_interval_alpha(raters: np.ndarray, unit_weights: np.ndarray) -> np.ndarray:
    """Krippendorff's interval α with each unit counted as often as it is drawn: ``1 - (n-1) Σ w_u m_u SS_u /
    (m_u - 1) / (n SS)``, units with fewer than two scores left out (``m_u`` scores in unit u, ``SS_u`` their
    squared deviations from the unit's mean, ``n = Σ w_u m_u``, ``SS`` the deviations of all those scores from
    their grand mean). ``raters``: raters x units, NaN where missing; ``unit_weights``: one row of weights per
    resample. Equal to the ``krippendorff`` package's α on the replicated units; NaN when no two scores differ."""
    return _alpha_of_terms(_unit_terms(raters), unit_weights)


def _unit_terms(raters: np.ndarray) -> np.ndarray:
    """``(4, units)``: each unit's ``m_u``, sum of scores, sum of squared scores and ``m_u SS_u / (m_u - 1)``, all 0
    for a unit with fewer than two scores. α of weighted units is a function of their weighted sums, so units
    always drawn together (one item's criteria) can be added up first."""
    present = np.isfinite(raters)
    m = present.sum(axis=0).astype(float)
    pairable = m >= 2
    values = np.where(present & pairable, raters, 0.0)
    sums, squares = values.sum(axis=0), (values**2).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        within = np.where(pairable, m * (squares - sums**2 / np.maximum(m, 1)) / (m - 1), 0.0)
    return np.vstack([np.where(pairable, m, 0.0), sums, squares, within])


def item_weighted_alpha(raters: np.ndarray, unit_items: np.ndarray, n_items: int) -> Callable[[np.ndarray], np.ndarray]:
    """α as a function of item weights, ``(resamples, n_items)`` to one α per row: every unit weighs what its item
    (``unit_items[u]``, 0 to ``n_items - 1``) does, as :func:`weighted_interval_alpha` with the item weights spread
    over the units, but with each item's units summed once (one item's criteria are always drawn together)."""
    terms = np.zeros((4, n_items))
    np.add.at(terms.T, np.asarray(unit_items, dtype=int), _unit_terms(raters).T)
    return lambda weights: _alpha_of_terms(terms, weights)


def _alpha_of_terms(terms: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """α of the units (or groups of units) whose :func:`_unit_terms` these are, under each row of weights."""
    n, total = weights @ terms[0], weights @ terms[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = weights @ terms[2] - total**2 / n
        alpha = 1.0 - (n - 1) * (weights @ terms[3]) / (n * spread)
    return np.where((n > 1) & (spread > 1e-12 * np.maximum(n, 1.0)), alpha, np.nan)


def alpha_resamples(
    ratings: Sequence[Sequence[float | None]] | np.ndarray,
    unit_items: Sequence[int] | np.ndarray,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[np.ndarray, int]:
    """α on each item resample, and the number of items resampled.

    ``unit_items[u]`` is the item (a response) that unit u belongs to: CoEval's units are (item, criterion), and
    the criteria of one response are rated together, so a resample draws items (:func:`scorers.discernment.
    resampled_items`, the DHP suite's draws) and every unit of a drawn item with it. Only items with a pairable
    unit (two scores or more) are drawn, in the order of their numbers (the samples' order in both harnesses)."""
    matrix = ratings_matrix(ratings)
    units = np.asarray(unit_items, dtype=int)
    if units.shape != (matrix.shape[1],):
        raise ValueError(f"{units.size} unit items for {matrix.shape[1]} units")
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    items, item_of_unit = np.unique(units[pairable], return_inverse=True)
    if items.size == 0 or n_resamples < 1:
        return np.full(max(n_resamples, 0), np.nan), int(items.size)
    counts = draw_counts(resampled_items(items.size, n_resamples, seed), items.size)
    return item_weighted_alpha(matrix[:, pairable], item_of_unit, items.size)(counts), int(items.size)


def alpha_interval(
    ratings: Sequence[Sequence[float | None]] | np.ndarray,
    unit_items: Sequence[int] | np.ndarray,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Interval:
    """The 95 % item-bootstrap interval of interval α (:func:`alpha_resamples`, then :func:`interval_from_resamples`),
    NaN with the reason."""
    resampled, n_items = alpha_resamples(ratings, unit_items, n_resamples, seed)
    return interval_from_resamples(resampled, interval_alpha(ratings), n_items)


def interval_from_resamples(resampled: np.ndarray, estimate: Agreement, n_items: int) -> Interval:
    """The percentile interval of α's item resamples moved so that their median sits on the estimate, ``[α - (m* -
    q2.5), α + (q97.5 - m*)]`` (:func:`scorers.correlation.percentile_interval`, as for DHP's D), kept at most 1.

    Against the generating model's α it covered 0.930-0.954 at 100 and 200 responses (0.941 on average; the plain
    percentile interval 0.937) and 0.83-0.90 at 10, where α is biased low (docs/coverage_intervals.md)."""
    if math.isnan(estimate.value):
        return Interval(math.nan, math.nan, f"alpha itself is undefined: {estimate.reason}")
    if n_items < MIN_BOOTSTRAP_ITEMS:
        return Interval(
            math.nan, math.nan, f"{n_items} item(s) with two scores; the item bootstrap needs {MIN_BOOTSTRAP_ITEMS}"
        )
    if resampled.size < 2:
        return Interval(math.nan, math.nan, f"{resampled.size} bootstrap resample(s); an interval needs at least 2")
    low, high = percentile_interval(resampled, BOOTSTRAP_CONFIDENCE, centre=estimate.value)
    if math.isnan(low):
        share = float(np.mean(np.isnan(resampled)))
        return Interval(low, high, f"{share:.1%} {UNDEFINED_RESAMPLES} (at most {MAX_UNDEFINED_RESAMPLES:.0%} may)")
    return Interval(low, min(high, 1.0))


def pearson(first: Sequence[float | None], second: Sequence[float | None]) -> Agreement:
    """Pearson's r over the items both raters scored (``scipy.stats.pearsonr``); NaN with a reason when undefined."""
    pair = ratings_matrix([first, second])
    both = ~np.isnan(pair).any(axis=0)
    x, y = pair[0, both], pair[1, both]
    if x.size < 2:
        return Agreement(math.nan, f"{x.size} item(s) scored by both raters; Pearson needs two", int(x.size))
    for name, values in (("the first rater", x), ("the second rater", y)):
        if np.all(values == values[0]):
            return Agreement(math.nan, f"{name} gives every shared item the same score", int(x.size))
    return Agreement(float(stats.pearsonr(x, y).statistic), None, int(x.size))


def pearson_with_each(
    judge: Sequence[float | None], annotators: Mapping[str, Sequence[float | None]]
) -> dict[str, Agreement]:
    """The judge's Pearson correlation with each annotator (the view of the paper's Table 10)."""
    return {annotator: pearson(judge, scores) for annotator, scores in annotators.items()}


def mean_pairwise_pearson(annotators: Mapping[str, Sequence[float | None]]) -> Agreement:
    """Mean Pearson correlation over every pair of annotators (pairs whose r is undefined left out)."""
    pairs = {f"{a}/{b}": pearson(annotators[a], annotators[b]) for a, b in combinations(annotators, 2)}
    return mean_pearson(pairs, f"pair of the {len(annotators)} annotators")


def mean_pearson(agreements: Mapping[str, Agreement], what: str) -> Agreement:
    """Mean of the defined correlations (undefined ones left out); NaN with a reason when none is defined."""
    defined = [agreement.value for agreement in agreements.values() if not math.isnan(agreement.value)]
    if not defined:
        return Agreement(math.nan, f"no {what} has a defined Pearson correlation")
    return Agreement(float(np.mean(defined)), None, max(agreement.n_items for agreement in agreements.values()))


def rater_pairs(annotator_ids: Iterable[str], with_judge: bool) -> list[tuple[str, str]]:
    """Every unordered pair of raters once, in an order that does not depend on which samples are scored yet:
    the judge (named :data:`JUDGE`) with each annotator first, then the annotators in sorted order."""
    raters = [*([JUDGE] if with_judge else []), *sorted(annotator_ids)]
    if len(set(raters)) < len(raters):
        raise ValueError(f"rater names must be distinct (an annotator may not be named {JUDGE!r}): {raters}")
    return list(combinations(raters, 2))


def pair_alpha_name(first: str, second: str) -> str:
    """The metric name of α between two raters."""
    return f"alpha/pair/{first}/{second}"


def pairwise_alpha(
    annotators: Mapping[str, Sequence[float | None]], judge: Sequence[float | None] | None = None
) -> dict[str, Agreement]:
    """Interval α of each pair of raters over the units both scored (the cells of the paper's Figures 5-7), by
    :func:`pair_alpha_name` in the order of :func:`rater_pairs`. A pair is NaN with the reason when it shares no
    unit or gives one value throughout; one constant rater beside a varying one has a defined (low) α."""
    raters = {**annotators, **({} if judge is None else {JUDGE: judge})}
    return {
        pair_alpha_name(first, second): interval_alpha([raters[first], raters[second]])
        for first, second in rater_pairs(annotators, judge is not None)
    }


def agreement_report(
    annotators: Mapping[str, Sequence[float | None]], judge: Sequence[float | None] | None = None
) -> dict[str, Agreement]:
    """``alpha/annotators``, ``pearson/annotator_pairs`` and α per pair of annotators (``alpha/pair/<a>/<b>``);
    with a judge also ``alpha/with_judge``, ``pearson/annotator/<id>`` (the judge with each annotator), their
    mean ``pearson/judge_vs_annotators`` and α of the judge with each annotator (``alpha/pair/judge/<id>``)."""
    report = {
        ALPHA_ANNOTATORS: interval_alpha(list(annotators.values())),
        "pearson/annotator_pairs": mean_pairwise_pearson(annotators),
    }
    if judge is not None:
        report[ALPHA_WITH_JUDGE] = interval_alpha([*annotators.values(), judge])
        with_each = pearson_with_each(judge, annotators)
        for annotator, agreement in with_each.items():
            report[f"pearson/annotator/{annotator}"] = agreement
        report["pearson/judge_vs_annotators"] = mean_pearson(with_each, "annotator")
    return {**report, **pairwise_alpha(annotators, judge)}
