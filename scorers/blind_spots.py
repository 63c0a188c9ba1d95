"""FBI statistics: when a judge fails to penalise a perturbed answer, and failure rates with Jeffreys intervals.

Plain NumPy/SciPy, shared by every harness (Doddapaneni et al., EMNLP 2024, Section 5). A failure is
1.0, a success 0.0, and NaN where the judge's verdict could not be parsed (left out of every rate).
For score-invariant edits the failure is reversed: penalising the edit is the mistake. Pairwise items are
judged in both orders and classified from the two verdicts together, as the authors' analysis script
(``scripts/analyze_results.py``, ``analyze_compare_results``) does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
from scipy import stats

Choice = str
"""Which answer a pairwise verdict picked: ``gold``, ``perturbed`` or ``tie``."""


def single_failure(gold_score: float | None, perturbed_score: float | None, invariant: bool) -> float:
    """Single-answer scoring: the perturbed answer is not scored below the gold one (invariant: it is)."""
    if gold_score is None or perturbed_score is None:
        return math.nan
    penalised = perturbed_score < gold_score
    return float(penalised if invariant else not penalised)


Distribution = Mapping[int, float]
"""A judge's probability per on-scale rating, read from its log-probabilities (not renormalised)."""


def _normalised(distribution: Distribution | None) -> tuple[np.ndarray, np.ndarray] | None:
    if not distribution:
        return None
    values = np.array(sorted(distribution), dtype=float)
    probabilities = np.array([distribution[int(value)] for value in values], dtype=float)
    total = probabilities.sum()
    return (values, probabilities / total) if total > 0 else None


def single_failure_probability(gold: Distribution | None, perturbed: Distribution | None, invariant: bool) -> float:
    """:func:`single_failure` under log-probabilities: the probability of a failure for independent draws from the
    judge's two renormalised rating distributions, ``P(S_perturbed >= S_gold)`` (invariant: ``P(S_perturbed <
    S_gold)``). It equals the sampled protocol's failure rate in expectation; NaN when either rating failed."""
    gold_drawn, perturbed_drawn = _normalised(gold), _normalised(perturbed)
    if gold_drawn is None or perturbed_drawn is None:
        return math.nan
    (gold_values, gold_p), (perturbed_values, perturbed_p) = gold_drawn, perturbed_drawn
    penalised = float(np.sum(np.outer(gold_p, perturbed_p) * (perturbed_values[None, :] < gold_values[:, None])))
    return penalised if invariant else 1.0 - penalised


def reference_failure_probability(perturbed: Distribution | None, top_score: float, invariant: bool) -> float:
    """:func:`reference_failure` under log-probabilities: ``P(S = top)`` from the renormalised distribution
    (invariant: ``1 - P(S = top)``); NaN when the rating failed."""
    drawn = _normalised(perturbed)
    if drawn is None:
        return math.nan
    values, probabilities = drawn
    perfect = float(probabilities[values >= top_score].sum())
    return 1.0 - perfect if invariant else perfect


def pairwise_failure(choice: Choice | None, invariant: bool) -> float:
    """Pairwise comparison: the gold answer is not chosen (invariant: the gold answer is preferred)."""
    if choice is None:
        return math.nan
    return float(choice == "gold" if invariant else choice != "gold")


Outcome = Literal["gold", "perturbed", "tie", "inconsistent"]
"""A pairwise item's outcome over both orders: the same answer (or a tie) chosen in both, or not."""
OUTCOMES: tuple[Outcome, ...] = ("gold", "perturbed", "tie", "inconsistent")


def pairwise_outcome(gold_first: Choice | None, gold_second: Choice | None) -> Outcome | None:
    """Classify an item from its verdicts with the gold answer first and second (None: either unparsed).

    Any disagreement between the orders, including a tie in one order only, is ``inconsistent``: the
    verdict flips when the answers swap places.
    """
    if gold_first is None or gold_second is None:
        return None
    if gold_first != gold_second:
        return "inconsistent"
    return cast(Outcome, gold_first)


def pairwise_item_failure(outcome: Outcome | None, invariant: bool) -> float:
    """A perturbed item passes only when gold wins in both orders; a score-invariant item fails only then
    (a consistent preference for the unedited answer penalises a harmless edit)."""
    if outcome is None:
        return math.nan
    gold_both = outcome == "gold"
    return float(gold_both if invariant else not gold_both)


def position_rates(first: float, second: float, ties: float) -> tuple[float, float]:
    """``(first_position_rate, tie_rate)`` from verdict counts: answer A's share of the verdicts that picked a
    side, and the ties' share of all parsed verdicts; NaN where the denominator is zero."""
    sided, parsed = first + second, first + second + ties
    return (first / sided if sided else math.nan, ties / parsed if parsed else math.nan)


def reference_failure(perturbed_score: float | None, top_score: float, invariant: bool) -> float:
    """Reference-guided scoring: the perturbed answer gets the top score (invariant: it does not)."""
    if perturbed_score is None:
        return math.nan
    perfect = perturbed_score >= top_score
    return float(not perfect if invariant else perfect)


def chosen_answer(verdict: str | None, gold_position: str) -> Choice | None:
    """Turn a positional verdict (``A``, ``B``, ``tie``) into the answer it picked."""
    if verdict is None:
        return None
    if verdict == "tie":
        return "tie"
    return "gold" if verdict == gold_position else "perturbed"


@dataclass(frozen=True)
class RateEstimate:
    """A failure rate over ``n`` parsed items with its Jeffreys interval."""

    rate: float
    low: float
    high: float
    n: int


def rate_with_ci(failures: Sequence[float], confidence: float = 0.95) -> RateEstimate:
    """Mean failure over the parsed judgments, with the Jeffreys interval of a binomial proportion.

    The bounds are the ``(1 ± confidence) / 2`` quantiles of Beta(k + 1/2, n - k + 1/2), ``k`` the summed failures
    of the ``n`` parsed items; the lower bound is 0 when nothing failed and the upper 1 when everything did (Brown,
    Cai and DasGupta, 2001). Unlike the percentile bootstrap it had before, it does not collapse to the rate when
    every item agrees (10 items without a failure: [0, 0.22], not [0, 0]); docs/coverage_intervals.md measures its
    coverage. A fractional failure (the share of epochs failed, a log-probability) counts as its share of one
    item, which is conservative: such values vary less than 0/1 outcomes of the same mean. NaN (unparsed) values
    are left out; with none left every field is NaN.
    """
    values = np.asarray([value for value in failures if not math.isnan(value)], dtype=float)
    if values.size == 0:
        return RateEstimate(math.nan, math.nan, math.nan, 0)
    n = values.size
    failed = float(values.sum())
    tail = (1 - confidence) / 2
    low = float(stats.beta.ppf(tail, failed + 0.5, n - failed + 0.5)) if failed > 0 else 0.0
    high = float(stats.beta.ppf(1 - tail, failed + 0.5, n - failed + 0.5)) if failed < n else 1.0
    return RateEstimate(float(values.mean()), low, high, n)


@dataclass(frozen=True)
class FailureRecord:
    """One item: where it belongs and whether the judge failed (NaN: unparsed; a fraction: the share of
    epochs it failed in)."""

    ability: str
    category: str
    invariant: bool
    failure: float


def error_rate_metrics(
    records: Iterable[FailureRecord], prefix: str = "error_rate", counts: bool = False
) -> dict[str, float]:
    """``prefix`` overall, per ability and per ability/category (perturbed items), ``si_<prefix>`` for
    score-invariant items, each with ``<name>_ci_low``/``_ci_high`` variants (and, with ``counts``, ``<name>_n``: the
    items the rate rests on, those with a failure or not), as flat metric names.

    One record per item, so each interval counts items.
    """
    groups: dict[str, list[float]] = {}
    for record in records:
        if record.invariant:
            groups.setdefault(f"si_{prefix}", []).append(record.failure)
            continue
        for name in (prefix, f"{prefix}/{record.ability}", f"{prefix}/{record.ability}/{record.category}"):
            groups.setdefault(name, []).append(record.failure)
    metrics: dict[str, float] = {}
    for name, failures in groups.items():
        estimate = rate_with_ci(failures)
        base, _, group = name.partition("/")
        suffix = f"/{group}" if group else ""
        metrics[name] = estimate.rate
        metrics[f"{base}_ci_low{suffix}"] = estimate.low
        metrics[f"{base}_ci_high{suffix}"] = estimate.high
        if counts:
            metrics[f"{base}_n{suffix}"] = float(estimate.n)
    return metrics
