"""System-level agreement: does the judge rank the systems that wrote the responses as the humans do?

Kendall's tau-b (``scipy.stats.kendalltau``) between the judge's and the humans' mean score per system, and an
interval from resampling documents: a document is the input the systems responded to (an article, a prompt, a
conversation), drawn with every system's response to it, so that a resample keeps the documents' effects shared by
all systems as the data has them. Plain NumPy/SciPy, called by the adherence metric in both harnesses.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from scorers.correlation import CriterionScores

MIN_SYSTEMS = 3
"""Fewer systems than this give no ranking to compare (two systems are either in order or not)."""

SYSTEM_JUDGE_CONSTANT = "the judge's mean score is the same for every system"

MAX_UNDEFINED_RESAMPLES = 0.01
"""Above this share of document resamples without a defined tau, the interval is NaN (as for the correlations)."""


FEW_SYSTEMS = 8
"""Below this many systems a system-level tau is coarse: it moves in large steps, and chance reaches large values."""


def few_systems_caveat(n_systems: int) -> str | None:
    """What a system-level tau over fewer than :data:`FEW_SYSTEMS` systems can say, from the exact distribution of
    Kendall's tau of untied rankings under no agreement (every permutation of the systems equally likely); ``None``
    from :data:`FEW_SYSTEMS` systems on, or below :data:`MIN_SYSTEMS`."""
    if not MIN_SYSTEMS <= n_systems < FEW_SYSTEMS:
        return None
    pairs = n_systems * (n_systems - 1) // 2
    taus = np.array(
        [
            1 - 4 * sum(a > b for i, a in enumerate(order) for b in order[i + 1 :]) / (n_systems * (n_systems - 1))
            for order in itertools.permutations(range(n_systems))
        ]
    )
    steps = np.unique(np.round(taus, 12))
    tail = np.array([np.mean(taus >= step - 1e-12) for step in steps])
    reaching = steps[tail < 0.05]
    significant = f"only a tau of {reaching[0]:.3f} or more has" if reaching.size else "no tau has"
    return (
        f"over {n_systems} systems (fewer than {FEW_SYSTEMS}), a criterion's Kendall tau moves in steps of "
        f"{2 / pairs:.3f}, and under no agreement at all it is at least 0.6 with probability "
        f"{np.mean(taus >= 0.6 - 1e-12):.3f}; {significant} a one-sided p below 0.05"
    )


@dataclass(frozen=True)
class SystemTau:
    """One criterion's system-level tau, the number of systems it ranks, and why it is NaN where it is."""

    value: float
    n_systems: int
    reason: str | None = None


def system_means(scores: Sequence[float] | np.ndarray, systems: Sequence[Hashable | None]) -> dict[Hashable, float]:
    """The mean finite score of each named system (responses without a system or a finite score left out)."""
    values = np.asarray(scores, dtype=float)
    index: dict[Hashable, int] = {}
    codes = np.array([-1 if system is None else index.setdefault(system, len(index)) for system in systems], dtype=int)
    codes[~np.isfinite(values)] = -1
    means = {system: values[codes == code] for system, code in index.items()}
    return {system: float(np.mean(scored)) for system, scored in means.items() if scored.size}


def _paired(
    judge: Sequence[float] | np.ndarray, human: Sequence[float] | np.ndarray, systems: Sequence[Hashable | None]
) -> np.ndarray:
    """Which responses count: a system named and both scores finite."""
    judge_scores, human_scores = np.asarray(judge, dtype=float), np.asarray(human, dtype=float)
    if not judge_scores.shape == human_scores.shape == (len(systems),):
        lengths = f"{judge_scores.size} judge, {human_scores.size} human, {len(systems)} systems"
        raise ValueError(f"scores and systems differ in length: {lengths}")
    named = np.array([system is not None for system in systems], dtype=bool)
    return named & np.isfinite(judge_scores) & np.isfinite(human_scores)


def system_tau(
    judge: Sequence[float] | np.ndarray, human: Sequence[float] | np.ndarray, systems: Sequence[Hashable | None]
) -> SystemTau:
    """Kendall's tau-b between the judge's and the humans' system means, over the responses both scored."""
    keep = _paired(judge, human, systems)
    kept = [system for system, flag in zip(systems, keep, strict=True) if flag]
    judge_means = system_means(np.asarray(judge, dtype=float)[keep], kept)
    human_means = system_means(np.asarray(human, dtype=float)[keep], kept)
    names = list(judge_means)
    if len(names) < MIN_SYSTEMS:
        reason = f"{len(names)} system(s) with scored responses; at least {MIN_SYSTEMS} are needed"
        return SystemTau(math.nan, len(names), reason)
    judge_values = np.array([judge_means[name] for name in names])
    human_values = np.array([human_means[name] for name in names])
    if np.all(judge_values == judge_values[0]):
        return SystemTau(math.nan, len(names), f"{SYSTEM_JUDGE_CONSTANT} ({judge_values[0]:g})")
    if np.all(human_values == human_values[0]):
        return SystemTau(math.nan, len(names), f"the humans' mean is the same for every system ({human_values[0]:g})")
    return SystemTau(float(stats.kendalltau(judge_values, human_values).statistic), len(names))


def batched_tau_b(judge_means: np.ndarray, human_means: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row pair, over the columns finite in both (NaN: a system absent from a resample).

    Over the pairs of columns, tau-b is ``Σ sx·sy / sqrt(Σ sx² · Σ sy²)`` with ``sx``, ``sy`` the signs of the
    pair's differences (scipy's definition: tied pairs count in neither product); one vectorised pass for all the
    resamples instead of one ``kendalltau`` call each. NaN where fewer than :data:`MIN_SYSTEMS` columns are present
    or one side is constant.
    """
    first, second = np.triu_indices(judge_means.shape[1], k=1)
    with np.errstate(invalid="ignore"):
        judge_signs = np.sign(judge_means[:, first] - judge_means[:, second])
        human_signs = np.sign(human_means[:, first] - human_means[:, second])
    valid = np.isfinite(judge_signs) & np.isfinite(human_signs)
    judge_signs, human_signs = np.where(valid, judge_signs, 0.0), np.where(valid, human_signs, 0.0)
    denominator = np.sqrt((judge_signs**2).sum(axis=1) * (human_signs**2).sum(axis=1))
    present = (np.isfinite(judge_means) & np.isfinite(human_means)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (judge_signs * human_signs).sum(axis=1) / denominator
    return np.where((denominator > 0) & (present >= MIN_SYSTEMS), tau, np.nan)


@dataclass(frozen=True)
class SystemAgreement:
    """The oriented mean system-level tau over criteria, its document-bootstrap interval, each criterion's tau, and
    why a value is NaN where it is."""

    value: float
    low: float
    high: float
    criteria: dict[str, SystemTau]
    n_systems: int
    n_documents: int
    reason: str | None = None
    """Why ``value`` is NaN, where it is."""
    interval_reason: str | None = None
    """Why the interval is NaN while ``value`` is not, where it is."""


def document_resamples(
    criteria: Sequence[CriterionScores],
    systems: Sequence[Hashable | None],
    documents: Sequence[Hashable],
    n_resamples: int = 1000,
    seed: int = 0,
) -> np.ndarray:
    """Each criterion's system-level tau in ``n_resamples`` draws of the documents with replacement (every
    system's responses to a drawn document come with it; the same draws for every criterion): shape
    ``(n_resamples, criteria)``.

    Per document and system, the sums of the judge's and the humans' scores and the number of responses both scored,
    for every criterion, form one matrix; each resample's system sums are its document counts times that matrix.
    """
    system_index = {name: code for code, name in enumerate(dict.fromkeys(s for s in systems if s is not None))}
    document_index = {name: code for code, name in enumerate(dict.fromkeys(documents))}
    system_codes = np.array([system_index[system] if system is not None else -1 for system in systems])
    document_codes = np.array([document_index[document] for document in documents])
    n_documents, n_systems = len(document_index), len(system_index)
    sums = np.zeros((n_documents, len(criteria), 3, n_systems))
    for column, scores in enumerate(criteria):
        judge, human = np.asarray(scores.judge, dtype=float), np.asarray(scores.human, dtype=float)
        keep = _paired(judge, human, systems)
        for side, values in enumerate((judge, human, np.ones_like(judge))):
            np.add.at(sums[:, column, side], (document_codes[keep], system_codes[keep]), values[keep])
    counts = np.random.default_rng(seed).multinomial(n_documents, np.full(n_documents, 1 / n_documents), n_resamples)
    drawn = (counts @ sums.reshape(n_documents, -1)).reshape(n_resamples, len(criteria), 3, n_systems)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(drawn[:, :, 2:] > 0, drawn[:, :, :2] / drawn[:, :, 2:], np.nan)
    return np.stack([batched_tau_b(means[:, c, 0], means[:, c, 1]) for c in range(len(criteria))], axis=1)


def percentile_interval(resampled: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The 2.5 % and 97.5 % quantiles of the resampled taus (NaN when more than :data:`MAX_UNDEFINED_RESAMPLES` of
    them are undefined).

    Its target is the median of the estimate's sampling distribution at the run's size, not the tau of the systems'
    true means: with few documents the systems' mean scores are noisy and the estimate leans from the true ranking's
    tau by an amount no interval around it recovers (every method tried covers the true tau 0.045-0.95 across the
    simulated regimes). Against the median it covers 0.90-1.00 (mean 0.97), where the re-centred percentile, BC and
    basic intervals cover less; ``benchmarks/coverage_system_tau.py`` measures them (docs/coverage_system_tau.md).
    """
    defined = resampled[np.isfinite(resampled)]
    if defined.size < 2 or defined.size < (1 - MAX_UNDEFINED_RESAMPLES) * resampled.size:
        return math.nan, math.nan
    tail = (1 - confidence) / 2
    low, high = np.quantile(defined, [tail, 1 - tail])
    return float(low), float(high)


def system_agreement(
    criteria: Sequence[CriterionScores],
    systems: Sequence[Hashable | None],
    documents: Sequence[Hashable],
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> SystemAgreement:
    """Each criterion's system-level tau and their mean, oriented by the criteria's signs, with a document-bootstrap
    interval.

    The criteria are item-aligned with ``systems`` (the system that wrote each response, ``None`` where unknown)
    and ``documents`` (what it responded to). The mean is over the criteria with a group whose tau is defined, as
    the response-level ``pearson`` is; a resample in which one of them is undefined has no mean of the same criteria
    and counts as undefined.
    """
    taus = {scores.criterion: system_tau(scores.judge, scores.human, systems) for scores in criteria}
    n_systems = len({system for system in systems if system is not None})
    n_documents = len({document for document, system in zip(documents, systems, strict=True) if system is not None})
    averaged = [c for c in criteria if c.group is not None and not math.isnan(taus[c.criterion].value)]
    if not averaged:
        if n_systems == 0:
            reason = "the responses name no system that wrote them"
        elif not any(scores.group is not None for scores in criteria):
            reason = "no criterion enters the mean (none has a group)"
        else:
            reason = "; ".join(f"{name}: {tau.reason}" for name, tau in taus.items() if tau.reason) or "no criterion"
        return SystemAgreement(math.nan, math.nan, math.nan, taus, n_systems, n_documents, reason)
    signs = np.array([scores.sign for scores in averaged])
    value = float(np.mean([sign * taus[scores.criterion].value for sign, scores in zip(signs, averaged, strict=True)]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resampled = document_resamples(averaged, systems, documents, n_resamples, seed) @ signs / len(averaged)
    low, high = percentile_interval(resampled, confidence)
    interval_reason = None
    if math.isnan(low):
        share = float(np.mean(~np.isfinite(resampled)))
        interval_reason = (
            f"in {share:.0%} of the document resamples a criterion's system-level tau is undefined (too few systems "
            f"or one side's system means all equal); the limit is {MAX_UNDEFINED_RESAMPLES:.0%}"
        )
    return SystemAgreement(value, low, high, taus, n_systems, n_documents, None, interval_reason)
