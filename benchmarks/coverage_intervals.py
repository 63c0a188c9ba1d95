"""Benchmark: how often the suites' 95 % intervals hold their target, by simulation.

    python benchmarks/coverage_intervals.py                    # every suite, 250 data sets per cell
    python benchmarks/coverage_intervals.py --suites dhp --replications 200

For each suite a generative model draws many data sets of the preset sizes (``judge_meta_eval/presets/*.yaml``);
each data set gets the suite's interval, computed by the function the suite calls, and the share of data sets whose
interval holds the target is its coverage. The landed method (and, for reference, other common ones) is computed
on the same data sets. Targets:

- DHP (D per perturbation, ``D_avg``, ``D_min`` and the ``_EW`` twins): the median of the score's sampling
  distribution at the same number of items (from separate data sets). D is a test's evidence, ``log_0.05`` of a
  p-value: it has no population value that does not depend on n, and it is a biased, nonlinear function of the
  data, so its mean is dominated by a long upper tail; the median is what a data set of this size gives half the time.
- DHP re-runs (``dhp_rerun``): what users read D's interval as, the range a re-run's D falls in (a fresh data set
  of the same size); and the effect size beside D, the probability that a damaged copy is rated below its original,
  whose target is the model's value (20,000 items), which does not depend on n.
- FBI's rates: the generating model's failure rate (the mean of the items' failure probabilities);
  ``fbi_worst_case``: the Jeffreys interval's exact coverage for independent items, its lowest over the rate.
- Correlations: the generating model's correlation (the statistic on 200,000 draws).
- CoEval's Krippendorff's α: the generating model's α (α on 100,000 responses), which, unlike D, does not depend on
  n; the judge-report cell that pools CoEval tasks: the mean of the tasks' targets.

The Monte-Carlo standard error of a coverage c from R data sets is sqrt(c(1 - c)/R): 0.014 at c = 0.95, R = 250
(0.007 at R = 1,000, the α table's).
Numpy's BLAS is kept to one thread (the resampled Wilcoxon tests are small matrix products, which threads slow
down on a shared machine). Results: docs/coverage_intervals.md.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy import special, stats  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code, not an installed copy

from coeval_tasks.report import RatedUnits, alpha_statistic  # noqa: E402
from scorers.agreement import (  # noqa: E402
    alpha_resamples,
    interval_alpha,
    interval_from_resamples,
    weighted_interval_alpha,
)
from scorers.blind_spots import rate_with_ci  # noqa: E402
from scorers.correlation import (  # noqa: E402
    STATISTICS,
    CriterionScores,
    correlation,
    mean_pearson_interval,
    percentile_interval,
)
from scorers.discernment import (  # noqa: E402
    BOOTSTRAP_CONFIDENCE,
    BOOTSTRAP_RESAMPLES,
    bootstrap_interval,
    draw_counts,
    item_bootstrap,
    rated_below,
    resampled_items,
)
from scorers.paired import ItemStatistic, joint_resamples, recentred_interval  # noqa: E402

Z = float(stats.norm.ppf(0.975))

# DHP: 10 perturbations over the three levels, 5 metrics, G-Eval ratings 1-5 averaged over 5 answers.
DHP_LEVELS = ("character",) * 3 + ("word",) * 3 + ("sentence",) * 4
DHP_PERTURBATIONS = tuple(f"p{k}" for k in range(len(DHP_LEVELS)))
DHP_METRICS = 5
DHP_RATINGS = 5
DHP_EXPERT_WEIGHTS = np.tile([0.4, 0.3, 0.15, 0.1, 0.05], (len(DHP_LEVELS), 1))
DHP_SIZES = (50, 100)
"""The standard preset's SummEval (50) and StoryCloze (100) and every full-preset dataset (100)."""
DHP_DAMAGE = {"weak": 0.1, "medium": 0.3, "strong": 1.0}
"""The largest perturbation's mean damage to the latent rating; the 10 perturbations range from 0 to it evenly."""
DHP_SENSITIVITY = {"equal": (1.0,) * DHP_METRICS, "unequal": (1.5, 1.2, 1.0, 0.5, 0.0)}
"""How strongly each metric's rating reacts to the damage (unequal: one metric does not react at all)."""
DHP_TARGET_DATA_SETS = 2000
DHP_SCORES = ("D_avg", "D_min", "D_avg_EW", "D_min_EW")


def dhp_differences(rng: np.random.Generator, n: int, damage: float, sensitivity: Sequence[float]) -> np.ndarray:
    """One data set's original-minus-perturbed mean ratings, ``(perturbation, metric, item)``.

    An item has a quality shared by its metrics plus a metric-specific part; each rating is the latent quality plus
    the judge's noise, rounded and clipped to 1-5, averaged over 5 answers. The original is rated once and paired
    with every perturbed copy. A perturbation's damage varies between items (log-normal, sd 0.5 on the log scale)."""
    latent = 3.2 + rng.normal(0, 0.7, (n, 1)) + rng.normal(0, 0.4, (n, DHP_METRICS))

    def rated(values: np.ndarray) -> np.ndarray:
        answers = np.rint(values[..., None] + rng.normal(0, 0.6, (*values.shape, DHP_RATINGS)))
        return np.clip(answers, 1, 5).mean(axis=-1)

    damages = damage * np.arange(len(DHP_LEVELS)) / (len(DHP_LEVELS) - 1)
    per_item = rng.lognormal(0, 0.5, (len(DHP_LEVELS), n, 1))
    perturbed = rated(latent[None] - damages[:, None, None] * np.asarray(sensitivity) * per_item)
    return np.transpose(rated(latent)[None] - perturbed, (0, 2, 1))


def dhp_scores(differences: np.ndarray, draws: np.ndarray) -> dict[str, np.ndarray]:
    """The suite's item bootstrap (``scorers.discernment.item_bootstrap``) of one data set over ``draws``."""
    return item_bootstrap(differences, DHP_PERTURBATIONS, DHP_LEVELS, DHP_EXPERT_WEIGHTS, "hmp", draws)


def dhp_targets(rng: np.random.Generator, n: int, damage: float, sensitivity: Sequence[float]) -> dict[str, float]:
    """The median of every score over fresh data sets, computed in blocks: the data sets' items side by side, each
    "resample" drawing exactly one data set's items, so one batched Wilcoxon call scores a whole block."""
    block = 100
    scores: dict[str, list[np.ndarray]] = {}
    for _ in range(DHP_TARGET_DATA_SETS // block):
        differences = np.concatenate([dhp_differences(rng, n, damage, sensitivity) for _ in range(block)], axis=-1)
        for name, values in dhp_scores(differences, np.arange(block * n).reshape(block, n)).items():
            scores.setdefault(name, []).append(values)
    return {name: float(np.median(np.concatenate(values))) for name, values in scores.items()}


def landed_bias_corrected(resampled: np.ndarray, estimate: float) -> tuple[float, float]:
    """The landed method (DHP version 5): Efron's bias-corrected percentiles, ``Φ(2·Φ⁻¹(b) ± z)`` with ``b`` the
    share of resamples below the estimate."""
    below = (np.count_nonzero(resampled < estimate) + 0.5 * np.count_nonzero(resampled == estimate)) / resampled.size
    bias = stats.norm.ppf(np.clip(below, 0.5 / resampled.size, 1 - 0.5 / resampled.size))
    low, high = np.quantile(resampled, stats.norm.cdf(2 * bias + np.array([-Z, Z])))
    return float(low), float(high)


def basic(resampled: np.ndarray, estimate: float) -> tuple[float, float]:
    """The basic (reverse-percentile) interval, ``[2D - q97.5, 2D - q2.5]``."""
    low, high = percentile_interval(resampled, BOOTSTRAP_CONFIDENCE)
    return 2 * estimate - high, 2 * estimate - low


def suite_interval(resampled: np.ndarray, estimate: float) -> tuple[float, float]:
    """The suite's interval as it ships (``scorers.discernment.bootstrap_interval``)."""
    interval = bootstrap_interval(resampled, estimate, 2, resampled.size)
    return interval.low, interval.high


DHP_METHODS: dict[str, Callable[[np.ndarray, float], tuple[float, float]]] = {
    "bias-corrected (landed)": landed_bias_corrected,
    "percentile": lambda resampled, _: percentile_interval(resampled, BOOTSTRAP_CONFIDENCE),
    "basic": basic,
    "median-centred (new)": suite_interval,
}


def dhp_coverage(replications: int, seed: int) -> list[str]:
    """Coverage of every DHP interval per size, damage and sensitivity, in Markdown rows."""
    rows = []
    for n in DHP_SIZES:
        # Row 0 draws every item once (the data set's own scores); the rest are the suite's resamples.
        draws = np.vstack([np.arange(n)[None], resampled_items(n, BOOTSTRAP_RESAMPLES)])
        for regime, damage in DHP_DAMAGE.items():
            for spread, sensitivity in DHP_SENSITIVITY.items():
                started = time.perf_counter()
                rng = np.random.default_rng([seed, n, int(damage * 100), len(spread)])
                targets = dhp_targets(rng, n, damage, sensitivity)
                held: dict[str, dict[str, list[bool]]] = {method: {} for method in DHP_METHODS}
                for _ in range(replications):
                    scores = dhp_scores(dhp_differences(rng, n, damage, sensitivity), draws)
                    for name, values in scores.items():
                        for method, interval in DHP_METHODS.items():
                            low, high = interval(values[1:], float(values[0]))
                            held[method].setdefault(name, []).append(bool(low <= targets[name] <= high))
                for method, by_score in held.items():
                    share = {name: float(np.mean(values)) for name, values in by_score.items()}
                    per_d = [share[f"D/{name}"] for name in DHP_PERTURBATIONS]
                    per_d_ew = [share[f"D_EW/{name}"] for name in DHP_PERTURBATIONS]
                    cells = [f"{share[name]:.3f}" for name in DHP_SCORES]
                    cells += [
                        f"{min(per_d):.3f} / {np.mean(per_d):.3f}",
                        f"{min(per_d_ew):.3f} / {np.mean(per_d_ew):.3f}",
                    ]
                    rows.append(f"| {n} | {regime} | {spread} | {method} | " + " | ".join(cells) + " |")
                print(
                    f"dhp n={n} {regime}/{spread}: D_avg median {targets['D_avg']:.2f}, D_min {targets['D_min']:.2f} "
                    f"({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
    return rows


def dhp_rerun_coverage(replications: int, seed: int) -> list[str]:
    """What users read D's interval as, per size and damage (equal sensitivity): how often it holds the median of D
    (its target) and how often it holds the D of a re-run (a fresh data set of the same size from the same model);
    and the effect size beside D, the probability that a damaged copy is rated below its original
    (``scorers.discernment.rated_below``): its mean, its target (the model's value, on 20,000 items), how often
    its re-centred item-bootstrap interval holds the target and holds a re-run's value."""
    rows = []
    for n in DHP_SIZES:
        draws = np.vstack([np.arange(n)[None], resampled_items(n, BOOTSTRAP_RESAMPLES)])
        counts = draw_counts(draws, n)
        for regime, damage in DHP_DAMAGE.items():
            sensitivity = DHP_SENSITIVITY["equal"]
            rng = np.random.default_rng([seed, n, int(damage * 100), 7])
            median = dhp_targets(rng, n, damage, sensitivity)["D_avg"]
            large = dhp_differences(rng, 20_000, damage, sensitivity)
            effect_target = float(rated_below(large, DHP_LEVELS, np.ones((1, large.shape[-1])))[0])
            d_values, held, held_rerun, effects, effect_held, effect_rerun = [], 0, 0, [], 0, 0
            for _ in range(replications):
                differences = dhp_differences(rng, n, damage, sensitivity)
                rerun = dhp_differences(rng, n, damage, sensitivity)
                d_avg = dhp_scores(differences, draws)["D_avg"]
                low, high = suite_interval(d_avg[1:], float(d_avg[0]))
                rerun_d = float(dhp_scores(rerun, np.arange(n)[None])["D_avg"][0])
                d_values.append(float(d_avg[0]))
                held += low <= median <= high
                held_rerun += low <= rerun_d <= high
                effect = rated_below(differences, DHP_LEVELS, counts)
                effect_low, effect_high = recentred_interval(effect[1:], float(effect[0]))
                rerun_effect = float(rated_below(rerun, DHP_LEVELS, np.ones((1, n)))[0])
                effects.append(float(effect[0]))
                effect_held += effect_low <= effect_target <= effect_high
                effect_rerun += effect_low <= rerun_effect <= effect_high
            rows.append(
                f"| {n} | {regime} | {median:.2f} | {np.mean(d_values):.2f} | {held / replications:.3f} | "
                f"{held_rerun / replications:.3f} | {effect_target:.3f} | {np.mean(effects):.3f} | "
                f"{effect_held / replications:.3f} | {effect_rerun / replications:.3f} |"
            )
            print(f"dhp re-run n={n} {regime} done", flush=True)
    return rows


def jeffreys_worst_case(replications: int, seed: int) -> list[str]:
    """The exact coverage of FBI's Jeffreys interval (``scorers.blind_spots.rate_with_ci``) for n independent 0/1
    items at failure rate p, ``sum_k P(k; n, p) [p in interval(k)]``, over p from 0.001 to 0.999 (no simulation:
    ``replications`` and ``seed`` are not used): its mean over p and its lowest value, with the p where it is, over
    every p and over p from 0.05 to 0.95."""
    rows = []
    grid = np.linspace(0.001, 0.999, 999)
    for n in (10, 22, 86, 220):
        bounds = [rate_with_ci([1.0] * k + [0.0] * (n - k)) for k in range(n + 1)]
        low = np.array([bound.low for bound in bounds])
        high = np.array([bound.high for bound in bounds])
        probabilities = stats.binom.pmf(np.arange(n + 1)[None, :], n, grid[:, None])
        coverage = (probabilities * ((low[None, :] <= grid[:, None]) & (grid[:, None] <= high[None, :]))).sum(axis=1)
        worst = int(np.argmin(coverage))
        middle = (grid >= 0.05) & (grid <= 0.95)
        worst_middle = int(np.flatnonzero(middle)[np.argmin(coverage[middle])])
        rows.append(
            f"| {n} | {coverage.mean():.3f} | {coverage[worst]:.3f} | {grid[worst]:.3f} | "
            f"{coverage[worst_middle]:.3f} | {grid[worst_middle]:.3f} |"
        )
    return rows


# FBI: 22 perturbed categories whose failure rates spread around the judge's overall rate.
FBI_CATEGORIES = 22
FBI_RATES = {"rare (5 %)": 0.05, "medium (20 %)": 0.2, "frequent (50 %)": 0.5}
FBI_SIZES = {
    "error_rate, quick (22 x 1)": (FBI_CATEGORIES, 1),
    "error_rate, standard (22 x 10)": (FBI_CATEGORIES, 10),
    "error_rate, full (22 x 86)": (FBI_CATEGORIES, 86),
    "one category, standard (10)": (1, 10),
    "one category, full (86)": (1, 86),
}
"""Which rate and how many items: the overall rate over every category, or one category's rate (or the
score-invariant rate, 10 items in the standard preset)."""


def landed_percentile_rate(failures: np.ndarray) -> tuple[float, float]:
    """The landed method (FBI version before this benchmark): scipy's percentile bootstrap, 2,000 resamples, seed 0,
    collapsing to the rate when every item agrees."""
    if np.all(failures == failures[0]):
        return float(failures[0]), float(failures[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        interval = stats.bootstrap(
            (failures,), np.mean, n_resamples=2000, method="percentile", rng=np.random.default_rng(0)
        ).confidence_interval
    return float(interval.low), float(interval.high)


def fbi_coverage(replications: int, seed: int) -> list[str]:
    """Coverage of FBI's rate intervals per rate and size, in Markdown rows.

    Each category's failure rate is the overall rate moved on the logit scale (sd 0.8), fixed across data sets as
    the preset fixes the categories; each item's failure probability varies around its category's (a beta
    distribution, intra-class correlation 0.3), so failures are correlated within a category. One epoch: an item
    fails or not."""
    rows = []
    for regime, rate in FBI_RATES.items():
        rng = np.random.default_rng([seed, int(rate * 100)])
        category_rates = special.expit(special.logit(rate) + rng.normal(0, 0.8, FBI_CATEGORIES))
        for size, (categories, per_category) in FBI_SIZES.items():
            chosen = category_rates[:categories]
            target = float(chosen.mean())
            spread = 1 / 0.3 - 1
            held = {"percentile (landed)": 0, "Jeffreys (new)": 0}
            for _ in range(replications):
                probabilities = rng.beta(
                    chosen[:, None] * spread, (1 - chosen[:, None]) * spread, (categories, per_category)
                )
                failures = rng.binomial(1, probabilities).astype(float).ravel()
                low, high = landed_percentile_rate(failures)
                held["percentile (landed)"] += low <= target <= high
                estimate = rate_with_ci(list(failures))
                held["Jeffreys (new)"] += estimate.low <= target <= estimate.high
            cells = " | ".join(f"{held[method] / replications:.3f}" for method in held)
            rows.append(f"| {regime} | {size} | {target:.3f} | {cells} |")
        print(f"fbi {regime} done", flush=True)
    return rows


# Correlations: the judge's 1-5 rating against the mean of three annotators' 1-5 ratings of the same latent quality.
CORRELATION_STRENGTH = {"weak": 0.2, "medium": 0.5, "strong": 0.8}
CORRELATION_SIZE = 100
"""The standard preset's adherence and CoEval tasks (100 responses each)."""
CRITERIA = 4
"""Criteria of the headline mean (SummEval's four); the criteria of an item share part of its quality."""


def judge_and_humans(rng: np.random.Generator, n: int, rho: float, criteria: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Bivariate normal latent scores (correlation ``rho``), the judge's rounded to 1-5, the humans' the mean of
    three annotators' rounded ratings; ``(criteria, n)`` each, the criteria of an item correlated 0.5."""
    shared = rng.normal(size=(1, n))
    latent = np.sqrt(0.5) * shared + np.sqrt(0.5) * rng.normal(size=(criteria, n))
    other = rho * latent + np.sqrt(1 - rho**2) * rng.normal(size=(criteria, n))
    judge = np.clip(np.rint(3.4 + 1.1 * latent), 1, 5)
    humans = np.clip(np.rint(3.6 + 0.9 * other[..., None] + rng.normal(0, 0.6, (criteria, n, 3))), 1, 5).mean(axis=-1)
    return judge, humans


def fisher_jackknife(estimate: float, left_out: np.ndarray) -> tuple[float, float]:
    """An alternative for comparison: Fisher's z interval, ``tanh(atanh(r) ± 1.96·se)``, ``se`` the jackknife standard
    error of ``atanh`` over the leave-one-out values."""
    z_values = np.arctanh(np.clip(left_out, -0.999999, 0.999999))
    n = z_values.size
    error = np.sqrt((n - 1) / n * np.sum((z_values - z_values.mean()) ** 2))
    centre = np.arctanh(np.clip(estimate, -0.999999, 0.999999))
    return float(np.tanh(centre - Z * error)), float(np.tanh(centre + Z * error))


def left_out(values: np.ndarray) -> np.ndarray:
    """The jackknife samples of ``values`` (last axis: items): row i leaves out item i."""
    n = values.shape[-1]
    kept = np.arange(n - 1)[None, :] + (np.arange(n - 1)[None, :] >= np.arange(n)[:, None])
    return values[..., kept]


def correlation_coverage(replications: int, seed: int) -> list[str]:
    """Coverage of the correlation intervals per strength, in Markdown rows: each statistic of one criterion
    (``scorers.correlation.correlation``) and the headline mean Pearson over :data:`CRITERIA` criteria
    (``mean_pearson_interval``), against Fisher's z with a jackknife error on the same data sets."""
    rows = []
    for regime, rho in CORRELATION_STRENGTH.items():
        rng = np.random.default_rng([seed, int(rho * 10)])
        population = judge_and_humans(rng, 200_000, rho)
        targets = {method: float(STATISTICS[method](population[0][0], population[1][0])) for method in STATISTICS}
        targets["mean pearson"] = targets["pearson"]  # every criterion has the same model
        intervals: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(replications):
            judge, human = judge_and_humans(rng, CORRELATION_SIZE, rho, CRITERIA)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for method, statistic in STATISTICS.items():
                    estimate = correlation(judge[0], human[0], method)
                    intervals.setdefault((method, "suite"), []).append((estimate.low, estimate.high))
                    jackknife = statistic(left_out(judge[0]), left_out(human[0]), axis=-1)
                    intervals.setdefault((method, "jackknife"), []).append(fisher_jackknife(estimate.value, jackknife))
                criteria = [CriterionScores(f"c{k}", "all", judge[k], human[k]) for k in range(CRITERIA)]
                interval = mean_pearson_interval(criteria)
                intervals.setdefault(("mean pearson", "suite"), []).append((interval.low, interval.high))
                mean = float(np.mean(STATISTICS["pearson"](judge, human, axis=-1)))
                jackknife = STATISTICS["pearson"](left_out(judge), left_out(human), axis=-1).mean(axis=0)
                intervals.setdefault(("mean pearson", "jackknife"), []).append(fisher_jackknife(mean, jackknife))
        for statistic, target in targets.items():
            cells = " | ".join(
                f"{np.mean([low <= target <= high for low, high in intervals[statistic, method]]):.3f}"
                for method in ("suite", "jackknife")
            )
            rows.append(f"| {regime} ({rho}) | {statistic} | {target:.3f} | {cells} |")
        print(f"correlations {regime} done", flush=True)
    return rows


# CoEval: Krippendorff's alpha of five annotators, alone and with a judge, over (item, criterion) units.
ALPHA_ANNOTATORS = 5
ALPHA_ANNOTATOR_BIASES = np.array([-0.2, 0.1, 0.0, 0.25, -0.1])
"""Each annotator's leniency, fixed as the preset fixes its annotators (the bootstrap resamples items, not raters)."""
ALPHA_JUDGE_BIAS = 0.2
ALPHA_AGREEMENT = {"weak": (1.5, 2.0), "medium": (0.8, 1.0), "strong": (0.25, 0.4)}
"""Annotators' and judge's rating noise (sd on the 1-5 scale) per regime."""
ALPHA_SIZES = {
    "quick (10 items, direct)": (10, 7, True),
    "standard (100 items x 5 criteria)": (100, 5, False),
    "full (200 items x 5 criteria)": (200, 5, False),
}
"""Items, criteria and whether the judge scores the overall only (``mode=direct``): the quick preset's ROCStories
direct task, and the standard and full presets' step-by-step tasks (ELI5 and Self-Instruct have 5 criteria)."""
ALPHA_POOLED = {
    "standard (100 x 5 + 100 x 7)": ((100, 5), (100, 7)),
    "full (200 x 5 + 200 x 7 + 200 x 5)": ((200, 5), (200, 7), (200, 5)),
}
"""The leaderboard's ``alpha/with_judge`` cell pools the preset's step-by-step tasks: ELI5 and ROCStories
(standard), and Self-Instruct too (full); they share no items."""
ALPHA_METHODS = ("percentile", "re-centred")
"""The percentile interval of the item resamples, and the same moved so that their median sits on the estimate:
the suite's (``scorers.agreement.alpha_interval``) and the report's pooled one (``recentred_interval``)."""
ALPHA_POPULATION = 100_000
"""Items of the one large data set on which the target, the generating model's α, is computed."""


def alpha_ratings(
    rng: np.random.Generator, n: int, criteria: int, annotator_noise: float, judge_noise: float
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """One data set's raters x units and each unit's item, per statistic, as ``scorers.coeval`` builds them.

    An item (a response) has a quality shared by its criteria (sd 1.1) and a criterion-specific part (sd 0.6)
    around 4.0, so that ratings pile up at 5 as the CoEval annotations do. Each annotator rates a unit with its
    leniency plus noise, the judge with its own bias and noise, rounded and clipped to 1-5; an annotator's overall
    is its mean over the criteria, the judge's overall its own rating of the item's mean quality."""
    quality = 4.0 + rng.normal(0, 1.1, (n, 1)) + rng.normal(0, 0.6, (n, criteria))
    noise = rng.normal(0, annotator_noise, (ALPHA_ANNOTATORS, n, criteria))
    annotators = np.clip(np.rint(quality[None] + ALPHA_ANNOTATOR_BIASES[:, None, None] + noise), 1, 5)
    judge = np.clip(np.rint(quality + ALPHA_JUDGE_BIAS + rng.normal(0, judge_noise, (n, criteria))), 1, 5)
    overall = np.clip(np.rint(quality.mean(axis=1) + ALPHA_JUDGE_BIAS + rng.normal(0, judge_noise, n)), 1, 5)
    units = annotators.reshape(ALPHA_ANNOTATORS, -1)
    annotator_overall = annotators.mean(axis=2)
    items, items_overall = np.repeat(np.arange(n), criteria), np.arange(n)
    return {
        "alpha/annotators": (units, items),
        "alpha/with_judge": (np.vstack([units, judge.reshape(1, -1)]), items),
        "alpha/annotators/overall": (annotator_overall, items_overall),
        "alpha/with_judge/overall": (np.vstack([annotator_overall, overall[None]]), items_overall),
    }


def alpha_targets(rng: np.random.Generator, criteria: int, noise: tuple[float, float]) -> dict[str, float]:
    """The generating model's α of every statistic: α on one data set of :data:`ALPHA_POPULATION` items."""
    population = alpha_ratings(rng, ALPHA_POPULATION, criteria, *noise)
    return {
        name: float(weighted_interval_alpha(raters, np.ones((1, raters.shape[1])))[0])
        for name, (raters, _) in population.items()
    }


def alpha_coverage(replications: int, seed: int) -> list[str]:
    """Coverage of the suite's α intervals per preset size and agreement regime, and of the report's pooled
    ``alpha/with_judge`` interval, in Markdown rows. The suite's resamples (``alpha_resamples``) give both methods;
    a NaN interval counts as a miss."""
    rows = []
    for regime, noise in ALPHA_AGREEMENT.items():
        for size, (n, criteria, direct) in ALPHA_SIZES.items():
            started = time.perf_counter()
            rng = np.random.default_rng([seed, n, criteria, int(noise[0] * 10)])
            targets = alpha_targets(rng, criteria, noise)
            names = [name for name in targets if not (direct and name == "alpha/with_judge")]
            held: dict[tuple[str, str], list[bool]] = {}
            estimates: dict[str, list[float]] = {name: [] for name in names}
            for _ in range(replications):
                data = alpha_ratings(rng, n, criteria, *noise)
                for name in names:
                    raters, items = data[name]
                    estimate = interval_alpha(raters)
                    resampled, n_items = alpha_resamples(raters, items)
                    estimates[name].append(estimate.value)
                    suite = interval_from_resamples(resampled, estimate, n_items)
                    intervals = {
                        "percentile": percentile_interval(resampled, BOOTSTRAP_CONFIDENCE),
                        "re-centred": (suite.low, suite.high),
                    }
                    for method, (low, high) in intervals.items():
                        held.setdefault((name, method), []).append(bool(low <= targets[name] <= high))
            for name in names:
                cells = " | ".join(f"{np.mean(held[name, method]):.3f}" for method in ALPHA_METHODS)
                median = float(np.nanmedian(estimates[name]))
                rows.append(f"| {size} | {regime} | {name} | {targets[name]:.3f} | {median:.3f} | {cells} |")
            print(f"alpha {regime} {size}: {time.perf_counter() - started:.0f} s", flush=True)
        rows += alpha_pooled_coverage(replications, seed, regime, noise)
    return rows


def alpha_pooled_coverage(replications: int, seed: int, regime: str, noise: tuple[float, float]) -> list[str]:
    """Coverage of judge-report's pooled ``alpha/with_judge`` cell: the mean of the tasks' α, its interval from
    ``scorers.paired.joint_resamples`` (2,000 resamples; tasks without shared items drawn independently) and
    ``recentred_interval``, as ``judge_report.tables.pool_cells`` computes it; the percentile interval of the same
    resamples beside it."""
    rows = []
    for size, tasks in ALPHA_POOLED.items():
        started = time.perf_counter()
        rng = np.random.default_rng([seed, len(tasks), int(noise[0] * 10), 1])
        target = float(np.mean([alpha_targets(rng, criteria, noise)["alpha/with_judge"] for _, criteria in tasks]))
        held: dict[str, list[bool]] = {method: [] for method in ALPHA_METHODS}
        means = []
        for _ in range(replications):
            statistics, values = [], []
            for task, (n, criteria) in enumerate(tasks):
                raters, items = alpha_ratings(rng, n, criteria, *noise)["alpha/with_judge"]
                values.append(interval_alpha(raters).value)
                keys = tuple(f"{task}:{item}" for item in range(n))
                statistics.append(ItemStatistic(keys, alpha_statistic(RatedUnits(raters, items, keys))))
            mean = float(np.mean(values))
            means.append(mean)
            pooled = joint_resamples(statistics).mean(axis=1)
            intervals = {
                "percentile": percentile_interval(pooled, BOOTSTRAP_CONFIDENCE),
                "re-centred": recentred_interval(pooled, mean),
            }
            for method, (low, high) in intervals.items():
                held[method].append(bool(low <= target <= high))
        cells = " | ".join(f"{np.mean(hits):.3f}" for hits in held.values())
        median = float(np.median(means))
        rows.append(f"| pooled: {size} | {regime} | mean alpha/with_judge | {target:.3f} | {median:.3f} | {cells} |")
        print(f"alpha pooled {regime} {size}: {time.perf_counter() - started:.0f} s", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--suites",
        default="dhp,fbi,correlation,alpha",
        help="comma list of dhp, dhp_rerun, fbi, fbi_worst_case, correlation, alpha",
    )
    parser.add_argument("--replications", type=int, default=250, help="data sets per cell")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    suites = arguments.suites.split(",")
    started = time.perf_counter()
    se = np.sqrt(0.95 * 0.05 / arguments.replications)
    print(f"{arguments.replications} data sets per cell; Monte-Carlo standard error {se:.3f} at coverage 0.95\n")
    tables = []
    suites_run = {
        "dhp": (
            "| n | damage | sensitivity | method | D_avg | D_min | D_avg_EW | D_min_EW | D/<p>: min / mean "
            "| D_EW/<p>: min / mean |",
            dhp_coverage,
        ),
        "dhp_rerun": (
            "| n | damage | D_avg median (target) | mean D_avg | D interval holds the median | holds a re-run's D "
            "| rated below: model's value | mean | interval holds it | holds a re-run's |",
            dhp_rerun_coverage,
        ),
        "fbi": (
            "| failure rate | rate, preset (categories x items) | target | percentile (landed) | Jeffreys (new) |",
            fbi_coverage,
        ),
        "fbi_worst_case": (
            "| items | Jeffreys coverage, mean over p | lowest | at p | lowest for p in 0.05-0.95 | at p |",
            jeffreys_worst_case,
        ),
        "correlation": (
            "| strength (latent r) | statistic | target | percentile bootstrap (suite) | Fisher z, jackknife |",
            correlation_coverage,
        ),
        "alpha": (
            "| preset size | agreement | statistic | target (model's α) | median α | percentile | re-centred (new) |",
            alpha_coverage,
        ),
    }
    for suite, (header, coverage) in suites_run.items():
        if suite in suites:
            suite_started = time.perf_counter()
            rows = coverage(arguments.replications, arguments.seed)
            columns = header.count("|") - 1
            tables.append("\n".join([header, "|" + "---|" * columns, *rows]))
            print(f"{suite}: {time.perf_counter() - suite_started:.0f} s", flush=True)
    print("\n\n".join(tables))
    print(f"\nrun time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
