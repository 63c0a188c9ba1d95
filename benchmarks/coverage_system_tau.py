"""Coverage of the system-level tau's 95 % document-bootstrap interval, by simulation (docs/coverage_system_tau.md).

A generative model of human and judge scores: response (system s, document d) has a latent quality
``a_s + b_d + e_sd`` (system effect, document effect, response effect); three annotators rate it on 1-5
(rounded, with their own noise) and the humans' score is their mean; the judge rates
``a'_s + b_d + r·e_sd`` plus its own noise, rounded to 1-5, where the judge's system effects ``a'`` correlate
``rho`` with the humans' ``a``. The regimes set ``rho`` (how far the judge sees the systems as people do) and the
systems' spread. Expected scores rise with the system effect, so the tau of the generating model's system means is
``kendalltau(a', a)``: that is the target, the ranking the judge and the humans would give on all documents, which
is what "will this judge rank my models as people do" asks. The median of the estimate's sampling distribution at
the same size is reported beside it, as a second target (the estimate leans towards 0 at small document counts,
so the two differ).

Each regime draws the systems' effects ``populations`` times; each population gets ``datasets`` data sets at the
preset's size (documents x systems), and each data set gets every interval method from the same 1,000 document
resamples (the scorer's own ``document_resamples``). Run: ``python benchmarks/coverage_system_tau.py``.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np
from scipy import stats

from scorers.correlation import CriterionScores
from scorers.system_agreement import document_resamples, system_tau

SIZES = {
    "SummEval (standard: 6 documents x 16 systems)": (6, 16),
    "HANNA (standard: 9 documents x 11 systems)": (9, 11),
    "TopicalChat (standard: 17 documents x 6 systems)": (17, 6),
    "SummEval (all: 100 documents x 16 systems)": (100, 16),
}


@dataclass(frozen=True)
class Regime:
    name: str
    rho: float
    """Correlation of the judge's system effects with the humans'."""
    system_sd: float
    """Spread of the system effects (response effects have sd 0.7, document effects 0.4)."""


REGIMES = (
    Regime("weak (rho 0.3)", 0.3, 0.45),
    Regime("medium (rho 0.7)", 0.7, 0.45),
    Regime("strong (rho 0.95)", 0.95, 0.45),
    Regime("strong, close systems (rho 0.95, sd 0.2)", 0.95, 0.2),
)
"""System spreads: the human data's system means have standard deviations 0.3-0.6 (SummEval 0.34-0.57, HANNA
0.35-0.52, TopicalChat 0.21-0.46 on its 1-3 criteria), document means 0.1-0.5, single responses 0.4-1.2."""

DOCUMENT_SD, RESPONSE_SD, ANNOTATOR_SD, JUDGE_SD, JUDGE_RESPONSE_WEIGHT = 0.4, 0.7, 0.5, 0.6, 0.6
CONFIDENCE = 0.95


def scores(rng, human_effects, judge_effects, documents):
    """One data set: the humans' and the judge's scores, the systems and the documents, response by response."""
    systems = len(human_effects)
    document = rng.normal(0, DOCUMENT_SD, (documents, 1))
    response = rng.normal(0, RESPONSE_SD, (documents, systems))
    latent = 3 + human_effects[None, :] + document + response
    annotators = np.clip(np.rint(latent[..., None] + rng.normal(0, ANNOTATOR_SD, (documents, systems, 3))), 1, 5)
    judge_latent = 3 + judge_effects[None, :] + document + JUDGE_RESPONSE_WEIGHT * response
    judge = np.clip(np.rint(judge_latent + rng.normal(0, JUDGE_SD, (documents, systems))), 1, 5)
    system_ids = np.tile(np.arange(systems), documents)
    document_ids = np.repeat(np.arange(documents), systems)
    return judge.ravel(), annotators.mean(axis=2).ravel(), list(system_ids), list(document_ids)


def intervals(estimate, resampled):
    """Every method's 95 % interval from the same resamples."""
    tail = (1 - CONFIDENCE) / 2
    lower, median, upper = np.quantile(resampled, [tail, 0.5, 1 - tail])
    below = (np.count_nonzero(resampled < estimate) + 0.5 * np.count_nonzero(resampled == estimate)) / resampled.size
    bias = stats.norm.ppf(np.clip(below, 0.5 / resampled.size, 1 - 0.5 / resampled.size))
    bc = np.quantile(resampled, stats.norm.cdf(2 * bias + stats.norm.ppf([tail, 1 - tail])))
    return {
        "percentile (shipped)": (lower, upper),
        "bias-corrected (BC)": tuple(bc),
        "re-centred percentile": (estimate - (median - lower), estimate + (upper - median)),
        "basic": (max(-1.0, 2 * estimate - upper), min(1.0, 2 * estimate - lower)),
    }


def run(populations: int, datasets: int, reference_draws: int, seed: int):
    rng = np.random.default_rng(seed)
    rows = []
    for size_name, (documents, systems) in SIZES.items():
        for regime in REGIMES:
            started = time.perf_counter()
            hits_truth: dict[str, list[bool]] = {}
            hits_median: dict[str, list[bool]] = {}
            widths: dict[str, list[float]] = {}
            estimates, truths, undefined = [], [], 0
            for _ in range(populations):
                human_effects = rng.normal(0, regime.system_sd, systems)
                judge_effects = regime.rho * human_effects + math.sqrt(1 - regime.rho**2) * rng.normal(
                    0, regime.system_sd, systems
                )
                truth = float(stats.kendalltau(judge_effects, human_effects).statistic)
                sampling = [
                    system_tau(*scores(rng, human_effects, judge_effects, documents)[:3]).value
                    for _ in range(reference_draws)
                ]
                median = float(np.nanmedian(sampling))
                for _ in range(datasets):
                    judge, human, system_ids, document_ids = scores(rng, human_effects, judge_effects, documents)
                    estimate = system_tau(judge, human, system_ids).value
                    criteria = [CriterionScores("q", "Content", judge, human)]
                    resampled = document_resamples(criteria, system_ids, document_ids, 1000, int(rng.integers(2**31)))
                    resampled = resampled[:, 0]
                    if math.isnan(estimate) or np.mean(~np.isfinite(resampled)) > 0.01:
                        undefined += 1
                        continue
                    estimates.append(estimate)
                    truths.append(truth)
                    for method, (low, high) in intervals(estimate, resampled[np.isfinite(resampled)]).items():
                        hits_truth.setdefault(method, []).append(low <= truth <= high)
                        hits_median.setdefault(method, []).append(low <= median <= high)
                        widths.setdefault(method, []).append(high - low)
            rows.append(
                {
                    "size": size_name,
                    "regime": regime.name,
                    "truth": float(np.mean(truths)),
                    "estimate": float(np.mean(estimates)),
                    "undefined": undefined,
                    "coverage": {method: float(np.mean(hits)) for method, hits in hits_truth.items()},
                    "coverage_median": {method: float(np.mean(hits)) for method, hits in hits_median.items()},
                    "width": {method: float(np.mean(values)) for method, values in widths.items()},
                    "seconds": time.perf_counter() - started,
                }
            )
            print(rows[-1], flush=True)
    return rows


def markdown(rows, arguments) -> str:
    methods = list(rows[0]["coverage"])
    lines = [
        f"Populations per regime: {arguments.populations} (system effects drawn anew), data sets per population: "
        f"{arguments.datasets}, 1,000 document resamples each, sampling-distribution median from "
        f"{arguments.reference_draws} fresh data sets per population; seed {arguments.seed}.",
        "",
        "Coverage of the 95 % interval of the system-level tau against the tau of the generating model's system means "
        "(the target), and, after the slash, against the median of the estimate's sampling distribution at the same "
        "size; mean width in brackets.",
        "",
        "| size | regime | mean target tau | mean estimate | " + " | ".join(methods) + " |",
        "|---|---|---|---|" + "---|" * len(methods),
    ]
    for row in rows:
        cells = [f"{row['coverage'][m]:.3f} / {row['coverage_median'][m]:.3f} ({row['width'][m]:.2f})" for m in methods]
        head = f"| {row['size']} | {row['regime']} | {row['truth']:.3f} | {row['estimate']:.3f} | "
        lines.append(head + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--populations", type=int, default=20)
    parser.add_argument("--datasets", type=int, default=20)
    parser.add_argument("--reference-draws", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    rows = run(arguments.populations, arguments.datasets, arguments.reference_draws, arguments.seed)
    print(markdown(rows, arguments))


if __name__ == "__main__":
    main()
