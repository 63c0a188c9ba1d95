"""DHP statistics: paired Wilcoxon tests, harmonic-mean p-value combination and discernment scores.

Plain NumPy/SciPy functions with no harness imports, so that the inspect-ai metric and the lm-eval
aggregation compute exactly the same numbers (Wang et al., DHP, Section 4.3).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy import stats

SIGNIFICANCE = 0.05
"""D = log_0.05(p): a discernment of 1 is a p-value of exactly 0.05."""

P_FLOOR = float(np.finfo(float).tiny)
"""p-values of 0 are floored here so that D stays finite."""

LEVELS = ("character", "word", "sentence")

Combination = Literal["hmp", "paper", "wilson"]

_LANDAU_LOCATION = 1.0 - float(np.euler_gamma) + math.log(math.pi / 2)
"""Wilson (2019): 1/HMP of L null p-values is Landau with location log(L) + 0.874 and scale pi/2."""


def wilcoxon_greater(original: Sequence[float], perturbed: Sequence[float]) -> float:
    """One-sided Wilcoxon signed-rank p-value for "originals score higher than perturbed texts".

    Uses scipy's defaults (as the paper did). With no pairs there is no evidence either way and the
    p-value is NaN; pairs whose differences are all zero are evidence of no discernment, p = 1.
    """
    original_scores = np.asarray(original, dtype=float)
    perturbed_scores = np.asarray(perturbed, dtype=float)
    if original_scores.shape != perturbed_scores.shape:
        raise ValueError(
            f"paired scores differ in length: {original_scores.size} originals, {perturbed_scores.size} perturbed"
        )
    if original_scores.size == 0:
        return math.nan
    if np.all(original_scores == perturbed_scores):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.wilcoxon(original_scores, perturbed_scores, alternative="greater")
    p_value = float(result.pvalue)
    return 1.0 if math.isnan(p_value) else p_value


def _check_weights(weights: Mapping[str, float]) -> None:
    if any(weight < 0 for weight in weights.values()):
        raise ValueError(f"expert weights must not be negative: {dict(weights)}")


def _normalised_weights(p_values: Mapping[str, float], weights: Mapping[str, float]) -> dict[str, float]:
    missing = sorted(set(p_values) - set(weights))
    if missing:
        raise ValueError(f"expert weights have no entry for metric(s) {missing}")
    _check_weights(weights)
    total = sum(weights[name] for name in p_values)
    if total <= 0:
        raise ValueError(f"expert weights sum to zero over metrics {sorted(p_values)}")
    return {name: weights[name] / total for name in p_values}


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
    p_values = {name: p for name, p in p_values.items() if not math.isnan(p)}
    if not p_values:
        return math.nan
    floored = {name: max(p, P_FLOOR) for name, p in p_values.items()}
    if method == "paper" and weights is None:
        return min(1.0, 1.0 / sum(1.0 / p for p in floored.values()))
    if weights is not None:
        _check_weights(weights)
        if sum(weights.get(name, 0.0) for name in floored) == 0 and any(weights.values()):
            return math.nan
    normalised = _normalised_weights(floored, weights or {name: 1.0 for name in floored})
    inverse_hmp = sum(normalised[name] / p for name, p in floored.items())
    if method == "wilson":
        landau_x = (inverse_hmp - math.log(len(floored)) - _LANDAU_LOCATION) / (math.pi / 2)
        return float(min(1.0, stats.landau.sf(landau_x)))
    return min(1.0, 1.0 / inverse_hmp)


def discernment(p_value: float) -> float:
    """D = log_0.05(p), with p floored at the smallest positive float; 0 for p = 1, NaN for an undefined p."""
    if math.isnan(p_value):
        return math.nan
    p = min(1.0, max(p_value, P_FLOOR))
    return max(0.0, math.log(p) / math.log(SIGNIFICANCE))


def level_balanced_mean(values: Mapping[str, float], levels: Mapping[str, str]) -> float:
    """Average giving each perturbation level (C, W, S) the same total weight, split equally inside a level.

    Only defined (non-NaN) values count; a level without any drops out. NaN when nothing is defined.
    """
    by_level: dict[str, list[float]] = {}
    for name, value in values.items():
        if not math.isnan(value):
            by_level.setdefault(levels[name], []).append(value)
    if not by_level:
        return math.nan
    return float(np.mean([np.mean(level_values) for level_values in by_level.values()]))


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
    """Per-perturbation results and their summaries over the perturbations whose D is defined."""

    perturbations: dict[str, PerturbationResult] = field(default_factory=dict)
    D_avg: float = math.nan
    D_min: float = math.nan
    D_avg_EW: float = math.nan
    D_min_EW: float = math.nan

    @property
    def n_undefined(self) -> int:
        """Perturbations whose D is NaN: no metric had a complete pair."""
        return sum(1 for result in self.perturbations.values() if math.isnan(result.D))

    @property
    def n_undefined_EW(self) -> int:
        """Perturbations whose expert-weighted D is NaN: no pairs on the metrics that carry weight."""
        return sum(1 for result in self.perturbations.values() if math.isnan(result.D_ew))

    def as_metrics(self) -> dict[str, float]:
        """Flat name -> value mapping, the form both harnesses log."""
        flat: dict[str, float] = {
            "D_avg": self.D_avg,
            "D_min": self.D_min,
            "D_avg_EW": self.D_avg_EW,
            "D_min_EW": self.D_min_EW,
            "n_undefined": float(self.n_undefined),
            "n_undefined_EW": float(self.n_undefined_EW),
        }
        for name, result in self.perturbations.items():
            flat[f"D/{name}"] = result.D
            flat[f"D_EW/{name}"] = result.D_ew
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


def discernment_report(
    records: Iterable[ScoreRecord],
    metrics: Sequence[str],
    expert_weights: Mapping[str, Mapping[str, float]] | None = None,
    combine: Combination = "hmp",
) -> DiscernmentReport:
    """Pair each perturbed text with its original and compute the full DHP report.

    Records may be incomplete (a run in progress, a perturbation not applicable to an item): a pair
    counts for a metric only when both its scores are present and finite. A metric without pairs has
    no p-value (NaN) and is left out of the combination; a perturbation without pairs on any metric
    has no D (NaN), and ``D_avg``/``D_min`` summarise the defined values only. ``expert_weights`` maps
    a perturbation id to metric weights; a perturbation without an entry splits its weight equally.
    """
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

    report = DiscernmentReport()
    for name in sorted(perturbed, key=lambda n: (LEVELS.index(levels[n]), n)):
        p_values: dict[str, float] = {}
        n_pairs: dict[str, int] = {}
        for metric in metrics:
            pairs = [
                (originals[item][metric], scores[metric])
                for item, scores in perturbed[name].items()
                if item in originals and _finite(originals[item].get(metric)) and _finite(scores.get(metric))
            ]
            n_pairs[metric] = len(pairs)
            p_values[metric] = wilcoxon_greater([o for o, _ in pairs], [p for _, p in pairs])
        weights = (expert_weights or {}).get(name) or {metric: 1.0 for metric in metrics}
        p = combine_p_values(p_values, None, combine)
        p_ew = combine_p_values(p_values, weights, combine)
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
    return report
