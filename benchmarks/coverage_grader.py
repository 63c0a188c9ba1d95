"""Benchmark: how often the labels task's 95 % intervals hold their target, by simulation.

    python benchmarks/coverage_grader.py                         # both parts
    python benchmarks/coverage_grader.py --part ppi --replications 4000
    python benchmarks/coverage_grader.py --part agreement --replications 400

Two parts, each with the function the task calls:

- ``agreement``: the item-bootstrap percentile intervals of ``grader_tasks/agreement``
  (:func:`scorers.labels.label_agreement_report`): kappa, accuracy, balanced F1 and, with two annotators, the
  annotators' leave-one-out agreement, the grader on the same footing and their difference. Target: the statistic of
  the generating model (the same function on 200,000 items).
- ``ppi``: the corrected pass rate (:func:`scorers.ppi.ppi_pass_rate`) beside the grader's own mean
  (:func:`scorers.ppi.naive_pass_rate`) and the labels alone (:func:`scorers.ppi.labels_pass_rate`), with 2,000
  unlabelled outputs and 50, 100 or 300 labelled ones. Target: the humans' pass rate of the generating model.

The Monte-Carlo standard error of a coverage c from R data sets is sqrt(c(1 - c)/R): 0.011 at c = 0.95, R = 400;
0.0034 at R = 4,000. Results: docs/coverage_intervals.md.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code, not an installed copy

from scorers.labels import LabelledItems, LabelScale, label_agreement_report  # noqa: E402
from scorers.ppi import Summary, labels_pass_rate, naive_pass_rate, ppi_pass_rate  # noqa: E402

SIZES = (50, 100, 300)
TARGET_ITEMS = 200_000
UNLABELLED = 2000


@dataclass(frozen=True)
class Regime:
    """A generating model: a latent truth per item, the annotators' labels and the grader's grades of it."""

    name: str
    scale: LabelScale
    pass_rate: float = 0.6
    """Binary: P(truth = pass)."""
    sensitivity: float = 0.9
    """Binary: P(grade pass | truth pass)."""
    specificity: float = 0.85
    """Binary: P(grade fail | truth fail)."""
    annotator_accuracy: float = 0.9
    """Binary: P(label = truth)."""

    def draw(self, rng: np.random.Generator, n: int, annotators: int) -> tuple[np.ndarray, np.ndarray]:
        """``(grades (n,), labels (annotators, n))``."""
        if self.scale == "ordinal":
            quality = rng.normal(3.0, 1.0, n)
            labels = np.clip(np.rint(quality + rng.normal(0, 0.6, (annotators, n))), 1, 5)
            grades = np.clip(np.rint(quality + 0.3 + rng.normal(0, 0.8, n)), 1, 5)
            return grades, labels
        truth = rng.random(n) < self.pass_rate
        graded_pass = np.where(truth, rng.random(n) < self.sensitivity, rng.random(n) >= self.specificity)
        kept = rng.random((annotators, n)) < self.annotator_accuracy
        labels = np.where(kept, truth, ~truth)
        return graded_pass.astype(float), labels.astype(float)


AGREEMENT_REGIMES = (
    Regime("good grader, pass rate 0.6", "binary"),
    Regime("lenient grader (specificity 0.4)", "binary", sensitivity=0.98, specificity=0.4),
    Regime("rare passes (0.15)", "binary", pass_rate=0.15, sensitivity=0.8, specificity=0.9),
    Regime("ordinal 1-5, grader 0.3 high", "ordinal"),
)


def _items(grades: np.ndarray, labels: np.ndarray) -> LabelledItems:
    names = tuple(f"a{index}" for index in range(labels.shape[0]))
    return LabelledItems(tuple((float(grade),) for grade in grades), labels, names)


def _targets(regime: Regime, annotators: int, rng: np.random.Generator) -> dict[str, float]:
    grades, labels = regime.draw(rng, TARGET_ITEMS, annotators)
    report = label_agreement_report(_items(grades, labels), regime.scale, n_resamples=0)
    return {name: value for name, value in report.items() if "_ci_" not in name}


def agreement(replications: int, seed: int) -> None:
    print("| labels | annotators | n | statistic | target | coverage | mean width |")
    print("|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(seed)
    for regime in AGREEMENT_REGIMES:
        for annotators in (1, 2):
            targets = _targets(regime, annotators, rng)
            for n in SIZES:
                held: dict[str, list[float]] = {name: [] for name in targets}
                widths: dict[str, list[float]] = {name: [] for name in targets}
                for _ in range(replications):
                    grades, labels = regime.draw(rng, n, annotators)
                    report = label_agreement_report(_items(grades, labels), regime.scale)
                    for name, target in targets.items():
                        base, slash, suffix = name.partition("/")
                        low = report[f"{base}_ci_low{slash}{suffix}"]
                        high = report[f"{base}_ci_high{slash}{suffix}"]
                        defined = np.isfinite(low)
                        held[name].append(float(defined and low <= target <= high))
                        if defined:
                            widths[name].append(high - low)
                for name, target in targets.items():
                    print(
                        f"| {regime.name} | {annotators} | {n} | `{name}` | {target:.3f} | "
                        f"{np.mean(held[name]):.3f} | {np.mean(widths[name]) if widths[name] else float('nan'):.3f} |",
                        flush=True,
                    )


@dataclass(frozen=True)
class Grader:
    """A pass/fail grader against a pass/fail human label."""

    name: str
    sensitivity: float
    specificity: float


PPI_GRADERS = (
    Grader("good (0.95 / 0.90)", 0.95, 0.90),
    Grader("lenient (0.98 / 0.40)", 0.98, 0.40),
    Grader("noisy (0.75 / 0.65)", 0.75, 0.65),
)
PPI_PASS_RATES = (0.6, 0.1)


def ppi(replications: int, seed: int) -> None:
    print(
        "| humans' pass rate | grader (sensitivity / specificity) | labels | corrected: coverage | width | "
        "naive: coverage | grader's mean | labels alone: coverage | width |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(seed)
    for rate in PPI_PASS_RATES:
        for grader in PPI_GRADERS:
            graded_mean = rate * grader.sensitivity + (1 - rate) * (1 - grader.specificity)
            for n in SIZES:
                held = {"corrected": [], "naive": [], "labels": []}
                width = {"corrected": [], "labels": []}
                for _ in range(replications):
                    human = rng.random(UNLABELLED + n) < rate
                    passed = np.where(
                        human, rng.random(human.size) < grader.sensitivity, rng.random(human.size) >= grader.specificity
                    ).astype(float)
                    labels = human[UNLABELLED:].astype(float)
                    unlabelled = Summary.of(passed[:UNLABELLED])
                    estimates = {
                        "corrected": ppi_pass_rate(unlabelled, passed[UNLABELLED:], labels),
                        "naive": naive_pass_rate(unlabelled, passed[UNLABELLED:]),
                        "labels": labels_pass_rate(labels),
                    }
                    for name, estimate in estimates.items():
                        held[name].append(float(np.isfinite(estimate.low) and estimate.low <= rate <= estimate.high))
                        if name in width and np.isfinite(estimate.low):
                            width[name].append(estimate.high - estimate.low)
                print(
                    f"| {rate} | {grader.name} | {n} | {np.mean(held['corrected']):.3f} | "
                    f"{np.mean(width['corrected']):.3f} | {np.mean(held['naive']):.3f} | {graded_mean:.3f} | "
                    f"{np.mean(held['labels']):.3f} | {np.mean(width['labels']):.3f} |",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("agreement", "ppi", "both"), default="both")
    parser.add_argument("--replications", type=int, help="data sets per cell (default: 400 agreement, 4000 ppi)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for part, run, default in (("ppi", ppi, 4000), ("agreement", agreement, 400)):
        if args.part in (part, "both"):
            started = time.perf_counter()
            run(args.replications or default, args.seed)
            print(f"\n{part}: {time.perf_counter() - started:.0f} s\n", flush=True)


if __name__ == "__main__":
    main()
