"""Yardsticks for the headlines, computed from the data without calling a model: what a judge that answers at random
or always the same gets, what a judge gets that always prefers the first or the longer answer (pairwise FBI), and
what one human gets against the others, beside what a judge gets against the same others (:func:`leave_one_out`).

Plain NumPy/SciPy. Closed forms where they exist (the value is the exact expectation, the interval where given is
the range 95 % of such judges fall in on these items); otherwise a seeded simulation of :data:`SIMULATIONS` judges,
the value their mean and the interval their 2.5-97.5 % range.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from scorers.correlation import pearson_rows
from scorers.discernment import item_bootstrap
from scorers.labels import kappa, pair_tables, weighted_tables
from scorers.system_agreement import system_tau

SIMULATIONS = 200
"""Simulated judges behind a reference without a closed form."""

SEED = 0

RANDOM = "random judge"
CONSTANT = "constant judge"
ALWAYS_FIRST = "always first"
ALWAYS_LONGER = "always longer"
HUMAN = "human ceiling"


@dataclass(frozen=True)
class Reference:
    """A yardstick's value on one headline, the range such a judge falls in (NaN where none is given) and how it
    was computed."""

    reference: str
    value: float
    low: float
    high: float
    note: str


def _range(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return math.nan, math.nan
    low, high = np.quantile(finite, [0.025, 0.975])
    return float(low), float(high)


def binomial_rates_range(rates: Sequence[float], sizes: Sequence[int], seed: int = SEED) -> tuple[float, float]:
    """The 95 % range of the mean over tasks of failure rates, task t's rate a Binomial(``sizes[t]``,
    ``rates[t]``) share (a judge that fails each item independently with that probability); seeded simulation."""
    rng = np.random.default_rng(seed)
    drawn = np.mean([rng.binomial(n, q, size=10_000) / n for q, n in zip(rates, sizes, strict=True) if n > 0], axis=0)
    return _range(np.asarray(drawn, dtype=float))


def fbi_error_rate_references(
    paradigm: str,
    scales: Sequence[int | None],
    sizes: Sequence[int],
    longer_fails: Sequence[Sequence[float]] = (),
) -> list[Reference]:
    """FBI ``error_rate`` (the mean over tasks of the share of perturbed items the judge fails) of the yardsticks,
    for tasks with these rating scales (1 to ``scale``; pairwise: verdicts A, B or tie; a grader: pass or fail)
    and numbers of perturbed items. ``longer_fails``: per pairwise task, per item, 1 when the perturbed answer is at
    least as long as the gold one."""
    references = []
    if paradigm == "single":
        rates = [(scale + 1) / (2 * scale) for scale in scales if scale]
        note = "exact: P(perturbed rating >= gold rating) = (S+1)/(2S) for two independent uniform ratings on 1-S"
        references.append(Reference(RANDOM, float(np.mean(rates)), *binomial_rates_range(rates, sizes), note))
        references.append(
            Reference(CONSTANT, 1.0, 1.0, 1.0, "exact: equal ratings never penalise the perturbed answer")
        )
    elif paradigm == "grader":
        rates = [3 / 4 for _ in sizes]
        references.append(
            Reference(
                RANDOM,
                3 / 4,
                *binomial_rates_range(rates, sizes),
                "exact, for a pass/fail grader passing each submission with probability 1/2: the perturbed answer is "
                "graded no lower than the gold one unless the gold passes and the perturbed fails, P = 3/4",
            )
        )
        references.append(Reference(CONSTANT, 1.0, 1.0, 1.0, "exact: equal grades never penalise the perturbed answer"))
    elif paradigm == "reference":
        rates = [1 / scale for scale in scales if scale]
        note = "exact: P(top rating) = 1/S for a uniform rating on 1-S"
        references.append(Reference(RANDOM, float(np.mean(rates)), *binomial_rates_range(rates, sizes), note))
        references.append(
            Reference(
                CONSTANT,
                0.0,
                0.0,
                0.0,
                "exact, for any constant rating below the top (one at the top fails every item): this paradigm's error "
                "rate alone can be gamed; read si_error_rate beside it",
            )
        )
    else:
        rates = [8 / 9 for _ in sizes]
        note = "exact: a verdict uniform on A, B, tie in each order picks the gold answer in both with probability 1/9"
        references.append(Reference(RANDOM, 8 / 9, *binomial_rates_range(rates, sizes), note))
        references.append(
            Reference(CONSTANT, 1.0, 1.0, 1.0, "exact: always a tie, never the gold answer in both orders")
        )
        references.append(
            Reference(ALWAYS_FIRST, 1.0, 1.0, 1.0, "exact: answer A in both orders is inconsistent on every item")
        )
        if any(len(task) for task in longer_fails):
            share = float(np.mean([np.mean(task) for task in longer_fails if len(task)]))
            references.append(
                Reference(
                    ALWAYS_LONGER,
                    share,
                    share,
                    share,
                    "exact on these items: the longer answer (in characters; a tie when equal) in both orders fails "
                    "where the perturbed answer is at least as long as the gold one (the mean over the tasks of "
                    "each task's share)",
                )
            )
    return references


@dataclass(frozen=True)
class DhpLayout:
    """Which (perturbation, item) pairs a DHP task judges, their levels, its metrics, its rating scale and how many
    answers each rating averages."""

    paired: np.ndarray
    """``(perturbation, item)``: True where the perturbed copy exists."""
    perturbations: tuple[str, ...]
    levels: tuple[str, ...]
    n_metrics: int
    low: int
    high: int
    repeats: int


def dhp_references(layouts: Sequence[DhpLayout], combine: str, seed: int = SEED) -> list[Reference]:
    """``D_avg`` (the mean over tasks) of a constant judge (exact: every difference is zero, p = 1, D = 0) and of a
    judge whose every rating is the mean of ``repeats`` uniform whole numbers on the scale (seeded simulation)."""
    judged = [layout for layout in layouts if layout.paired.any()]
    constant = Reference(CONSTANT, 0.0, 0.0, 0.0, "exact: every difference is zero, so every p-value is 1 and D = 0")
    if not judged:
        return [
            Reference(RANDOM, math.nan, math.nan, math.nan, "undefined: no perturbed copy of a judged text was judged"),
            constant,
        ]
    rng = np.random.default_rng(seed)
    simulated = np.zeros(SIMULATIONS)
    for layout in judged:
        n_perturbations, n_items = layout.paired.shape
        ratings = rng.integers(
            layout.low,
            layout.high + 1,
            size=(SIMULATIONS, n_perturbations + 1, layout.n_metrics, n_items, layout.repeats),
        ).mean(axis=-1)
        draws = np.arange(n_items)[None, :]
        weights = np.ones((n_perturbations, layout.n_metrics))
        for run in range(SIMULATIONS):
            differences = ratings[run, :1] - ratings[run, 1:]
            differences[~np.broadcast_to(layout.paired[:, None, :], differences.shape)] = np.nan
            d_avg = item_bootstrap(differences, layout.perturbations, layout.levels, weights, combine, draws)["D_avg"]  # type: ignore[arg-type]
            simulated[run] += float(d_avg[0]) / len(judged)
    return [
        Reference(
            RANDOM,
            float(np.mean(simulated)),
            *_range(simulated),
            f"seeded simulation of {SIMULATIONS} judges rating uniformly on the scale (each rating the mean of the "
            "task's repeats); D >= 0 by definition, so chance alone gives a positive D_avg",
        ),
        constant,
    ]


def pearson_references(
    humans: Sequence[np.ndarray], scales: Sequence[tuple[float, float, bool]], seed: int = SEED
) -> list[Reference]:
    """The oriented mean Pearson (over criteria, then tasks) of a random and of a constant judge. ``humans``: each
    criterion's human scores (finite only); ``scales``: its rating range and whether the answer is a yes/no."""
    rng = np.random.default_rng(seed)
    simulated = []
    for human, (low, high, binary) in zip(humans, scales, strict=True):
        judge = (
            rng.integers(0, 2, size=(2000, human.size))
            if binary
            else rng.integers(int(low), int(high) + 1, size=(2000, human.size))
        )
        simulated.append(pearson_rows(judge.astype(float), human))
    spread = _range(np.nanmean(simulated, axis=0)) if simulated else (math.nan, math.nan)
    return [
        Reference(
            RANDOM,
            0.0,
            *spread,
            "exact expectation (uniform ratings are symmetric about the scale's middle, so r and -r are equally "
            "likely); the interval: 95 % of 2,000 simulated random judges on these items (seeded)",
        ),
        Reference(
            CONSTANT,
            math.nan,
            math.nan,
            math.nan,
            "undefined: a constant judge has no spread, so Pearson's r is not defined",
        ),
    ]


Agreement = Callable[[np.ndarray, np.ndarray], float]
"""An agreement statistic of two item-aligned score vectors (NaN where a score is missing), NaN where undefined."""


def pearson_agreement(first: np.ndarray, second: np.ndarray) -> float:
    """Pearson's r over the items both scored (``scipy.stats.pearsonr``); NaN with fewer than 3 such items or a
    side without spread."""
    both = np.isfinite(first) & np.isfinite(second)
    x, y = first[both], second[both]
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return float(stats.pearsonr(x, y).statistic)


def system_tau_agreement(systems: Sequence[str | None]) -> Agreement:
    """Kendall's tau-b between the two sides' mean score per system (the adherence suite's ``system_tau``), for
    items written by ``systems``."""

    def agreement(first: np.ndarray, second: np.ndarray) -> float:
        return system_tau(first, second, systems).value

    return agreement


@dataclass(frozen=True)
class LeaveOneOut:
    """Agreement with leave-one-annotator-out means: ``annotators``, the mean over annotators of each one's agreement
    with the mean of the others; ``judges``, per judge, the mean over annotators of the judge's agreement with the
    same means of the others (the annotator's own scores left out, as for the annotator). NaN where undefined."""

    annotators: float
    judges: tuple[float, ...]


def leave_one_out(annotators: np.ndarray, agreement: Agreement, judges: Sequence[np.ndarray] = ()) -> LeaveOneOut:
    """Annotators (annotators x items, NaN where one did not score an item) and judges (items) scored against the same
    leave-one-out means, so that a judge as good as one more annotator scores what the annotators score: for each
    annotator, the mean of the others on each item (items at least one other scored), then ``agreement`` of the
    annotator and of each judge with that mean, each averaged over the annotators where it is defined. Against the
    mean of all annotators a judge would be scored against a less noisy target than any annotator is."""
    annotators = np.asarray(annotators, dtype=float)
    own: list[float] = []
    judged: list[list[float]] = [[] for _ in judges]
    for index in range(annotators.shape[0]):
        others = np.delete(annotators, index, axis=0)
        scored = np.isfinite(others).sum(axis=0)
        rest = np.where(scored > 0, np.nansum(others, axis=0) / np.maximum(scored, 1), np.nan)
        own.append(agreement(annotators[index], rest))
        for values, judge in zip(judged, judges, strict=True):
            values.append(agreement(np.asarray(judge, dtype=float), rest))
    return LeaveOneOut(_defined_mean(own), tuple(_defined_mean(values) for values in judged))


def _defined_mean(values: Sequence[float]) -> float:
    finite = [value for value in values if not math.isnan(value)]
    return float(np.mean(finite)) if finite else math.nan


MAJORITY = "majority class"


def label_references(labels: np.ndarray, grades_per_item: Sequence[int], seed: int = SEED) -> list[Reference]:
    """``kappa`` of a grader that always gives the labels' most frequent value (exact: 0) and of one whose grades
    are drawn from the labels' own distribution, ``grades_per_item[i]`` of them for item i (seeded simulation).
    ``labels``: annotators x items, NaN where missing; the pairs are pooled as for the grader."""
    finite = labels[np.isfinite(labels)]
    if np.unique(finite).size < 2:
        reason = "undefined: the labels are all one value, so chance agreement is 1"
        return [Reference(name, math.nan, math.nan, math.nan, reason) for name in (MAJORITY, RANDOM)]
    levels = np.unique(finite)
    rng = np.random.default_rng(seed)
    columns = [tuple(column) for column in labels.T]
    simulated = []
    for _ in range(SIMULATIONS):
        grades = [tuple(rng.choice(finite, size=count)) for count in grades_per_item]
        tables = pair_tables(grades, columns, levels)
        simulated.append(float(kappa(weighted_tables(tables, np.ones((1, len(tables)))), levels)[0]))
    values = np.asarray(simulated)
    return [
        Reference(MAJORITY, 0.0, 0.0, 0.0, "exact: a constant grade agrees with the labels only by chance"),
        Reference(
            RANDOM,
            float(np.nanmean(values)),
            *_range(values),
            f"seeded simulation of {SIMULATIONS} graders drawing each grade from the labels' own distribution "
            "(expected kappa 0)",
        ),
    ]
