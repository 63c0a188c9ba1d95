"""Benchmark: coverage of judge-report's pooled leaderboard interval, and the family-wise error and power of its
ranking (every pair of judges of a column tested, Holm-adjusted, rank = 1 + the judges significantly better).

    python benchmarks/coverage_comparisons.py --data-sets 1000 --level-data-sets 1000 --many-judges-data-sets 1000 \
        --power-data-sets 200 --dhp-share 0.4

1. **Pooled interval.** A leaderboard cell pools a suite's tasks of one kind; FBI's single-answer strategies judge
   the same items. The generative model: 220 items, 4 strategies; strategy s fails item i when
   ``a·z_i + sqrt(1 - a²)·e_is > t_s`` (``z_i`` the item's difficulty shared by every strategy, ``e_is`` independent,
   all standard normal; ``t_s`` sets the strategy's failure rate, 0.2-0.5), so that failures are correlated between
   strategies by ``a``. Target: the mean over strategies of their population failure rates, ``mean_s(1 - Φ(t_s))``.
   Compared: the landed pooling (each task's percentile-bootstrap interval, the suite's, half-widths added in
   quadrature and divided by the number of tasks) and the joint item resampling (``scorers.paired``), per regime
   of ``a``, with the measured mean correlation between strategies' failures.
2. **Family-wise error and power.** k = 2, 5 and 20 judges drawn on one data set's items and compared as the report
   compares a column (``scorers.paired.compare_all``, Holm over every pair, ``rank_judges``), for four kinds of
   column: FBI one strategy (0/1 failures: exact McNemar), FBI four strategies pooled, adherence's mean Pearson over
   4 criteria and DHP's D_avg (the resampled t-test). Judges share the items (FBI: a difficulty per item; adherence:
   the human scores; DHP: a text effect), so their results go together as on real data. Under "no difference" every
   judge has the same quality: the share of data sets with any pair told apart is the family-wise error (target
   <= 0.05). For the power the judges' qualities are spread evenly over a range (FBI failure rates 0.20-0.45;
   adherence judge noise sd 0.8-1.6 around the human score, population r 0.78-0.53; DHP a judge seeing 0.5-3 times
   the damage): every pair is truly different, and the share found the right way round is the power.
3. **The audit's cases**: a leader that answered 50 of 200 items beside three judges that answered all; 11 judges
   failing 0 %, 10 %, ..., 100 % of the items (which the earlier bootstrap p-value could not separate).

Seeded (numpy Generator, seed 0 per benchmark); writes a Markdown table of the results. Numpy's BLAS is kept to one
thread, as the report's timing is measured on one core.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Mapping, Sequence  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from adherence_tasks.report import CriterionPairs, oriented_mean_pearson  # noqa: E402
from dhp_tasks.report import DhpItems, dhp_statistic  # noqa: E402
from scorers.blind_spots import rate_with_ci  # noqa: E402
from scorers.paired import (  # noqa: E402
    SIGNIFICANCE,
    ItemStatistic,
    Judge,
    compare_all,
    holm,
    joint_resamples,
    rank_judges,
    recentred_interval,
    weighted_mean,
)

ITEMS = 220
RATES = (0.2, 0.3, 0.4, 0.5)
"""Each strategy's population failure rate."""
LOADINGS = {"weak": 0.53, "medium": 0.78, "strong": 0.89}
"""``a``, the weight of the item's shared difficulty: the correlation between two strategies' latent scores is a²."""


def failures(rng: np.random.Generator, loading: float, items: int = ITEMS, rates=RATES) -> np.ndarray:
    """``(strategies, items)`` 0/1 failures, correlated between strategies through the items."""
    shared = rng.standard_normal(items)
    own = rng.standard_normal((len(rates), items))
    latent = loading * shared + math.sqrt(1 - loading**2) * own
    return (latent > stats.norm.ppf(1 - np.asarray(rates))[:, None]).astype(float)


def statistics_of(matrix: np.ndarray, prefix: str = "") -> list[ItemStatistic]:
    keys = tuple(f"{prefix}{i}" for i in range(matrix.shape[1]))
    return [ItemStatistic(keys, weighted_mean(row), row) for row in matrix]


def pooled_coverage(data_sets: int) -> list[dict]:
    rows = []
    truth = float(np.mean(RATES))
    for regime, loading in LOADINGS.items():
        rng = np.random.default_rng(0)
        hits = {"landed": 0, "joint": 0}
        widths = {"landed": [], "joint": []}
        correlations = []
        for _ in range(data_sets):
            matrix = failures(rng, loading)
            correlations.append(np.mean(np.corrcoef(matrix)[np.triu_indices(len(RATES), 1)]))
            estimates = [rate_with_ci(row) for row in matrix]
            mean = float(np.mean([e.rate for e in estimates]))
            below = math.sqrt(sum((e.rate - e.low) ** 2 for e in estimates)) / len(estimates)
            above = math.sqrt(sum((e.high - e.rate) ** 2 for e in estimates)) / len(estimates)
            low, high = recentred_interval(joint_resamples(statistics_of(matrix)).mean(axis=1), mean)
            for name, (lo, hi) in {"landed": (mean - below, mean + above), "joint": (low, high)}.items():
                hits[name] += lo <= truth <= hi
                widths[name].append(hi - lo)
        rows.append(
            {
                "regime": regime,
                "correlation": float(np.mean(correlations)),
                **{f"{name} coverage": hits[name] / data_sets for name in hits},
                **{f"{name} width": float(np.mean(widths[name])) for name in widths},
            }
        )
    return rows


def _dhp_items(rng: np.random.Generator, item_effects: np.ndarray, damage: np.ndarray) -> DhpItems:
    """A DHP judge's ratings (1-5, one per text and metric) of items with effects and perturbations with
    ``damage`` (perturbation x metric), turned into original-minus-perturbed differences."""
    n_perturbations, n_metrics = damage.shape
    latent = item_effects[None, None, :] + rng.normal(0, 1, size=(n_perturbations + 1, n_metrics, item_effects.size))
    latent[1:] -= damage[:, :, None]
    ratings = np.clip(np.rint(3 + latent), 1, 5)
    differences = ratings[:1] - ratings[1:]
    levels = ("character", "character", "word", "sentence")[:n_perturbations]
    names = tuple(f"p{k}" for k in range(n_perturbations))
    keys = tuple(f"item{i}" for i in range(item_effects.size))
    paired = np.ones((n_perturbations, item_effects.size), dtype=bool)
    return DhpItems(keys, names, levels, tuple(f"m{j}" for j in range(n_metrics)), differences, paired)


@dataclass(frozen=True)
class Setup:
    """A kind of leaderboard column: how a judge of a given quality is drawn on one data set's items, the quality
    every judge has under "no difference", the qualities spread over judges for the power, and whether a higher
    quality parameter makes a better judge."""

    label: str
    judges: Callable[[np.random.Generator, Sequence[float]], list[list[ItemStatistic]]]
    equal: float
    spread: tuple[float, float]
    higher_is_better: bool
    higher_quality_is_better: bool


def fbi_judges(strategies: int) -> Callable[[np.random.Generator, Sequence[float]], list[list[ItemStatistic]]]:
    """Judges failing 100 items at their rates, through the items' shared difficulty (so judges' failures go
    together, as on real items), each over ``strategies`` tasks of the same items."""

    def judges(rng: np.random.Generator, rates: Sequence[float]) -> list[list[ItemStatistic]]:
        difficulty = rng.standard_normal(100)
        drawn = []
        for rate in rates:
            latent = 0.7 * difficulty + math.sqrt(1 - 0.49) * rng.standard_normal((strategies, 100))
            drawn.append(statistics_of((latent > stats.norm.ppf(1 - rate)).astype(float)))
        return drawn

    return judges


def pearson_judges(rng: np.random.Generator, noises: Sequence[float]) -> list[list[ItemStatistic]]:
    """Judges scoring 100 responses on 4 criteria: the human score plus the judge's noise (sd ``noise``)."""
    human = rng.normal(size=(4, 100))
    keys = tuple(f"r{i}" for i in range(100))
    drawn = []
    for noise in noises:
        pairs = [CriterionPairs(f"c{j}", 1, human[j] + rng.normal(0, noise, size=100), human[j]) for j in range(4)]
        drawn.append([ItemStatistic(keys, oriented_mean_pearson(pairs))])
    return drawn


DHP_DAMAGE = np.array([[0.1, 0.2], [0.3, 0.2], [0.4, 0.5], [0.2, 0.1]])
"""Each perturbation's damage per metric (perturbation x metric), on the 1-5 rating scale's latent."""


def dhp_judges(rng: np.random.Generator, sensitivities: Sequence[float]) -> list[list[ItemStatistic]]:
    """Judges rating 50 texts and 4 perturbed copies on 2 metrics, each seeing ``sensitivity`` times the damage."""
    effects = rng.normal(0, 0.7, size=50)
    keys = tuple(f"t{i}" for i in range(50))
    return [
        [ItemStatistic(keys, dhp_statistic(_dhp_items(rng, effects, sensitivity * DHP_DAMAGE), "hmp"))]
        for sensitivity in sensitivities
    ]


SETUPS = (
    Setup("FBI, one strategy, 100 items (McNemar)", fbi_judges(1), 0.3, (0.2, 0.45), False, False),
    Setup("FBI, 4 strategies pooled, 100 items (t)", fbi_judges(4), 0.3, (0.2, 0.45), False, False),
    Setup("adherence, mean Pearson over 4 criteria, 100 items (t)", pearson_judges, 1.2, (0.8, 1.6), True, False),
    Setup("DHP D_avg, 4 perturbations x 2 metrics, 50 items (t)", dhp_judges, 1.0, (0.5, 3.0), True, True),
)
JUDGE_COUNTS = (2, 5, 20)


def ranked_column(
    statistics: Mapping[Judge, Sequence[ItemStatistic]], higher_is_better: bool
) -> tuple[dict[tuple[Judge, Judge], tuple[float, float]], dict[Judge, int]]:
    """What the report does with one column: every pair compared, Holm over the pairs with a p-value, the ranks."""
    compared = compare_all(statistics)
    found = {pair: row for pair, row in compared.items() if row is not None and not math.isnan(row.p)}
    adjusted = holm([row.p for row in found.values()])
    tested = {pair: (row.difference, float(p)) for (pair, row), p in zip(found.items(), adjusted, strict=True)}
    return tested, rank_judges(tested, higher_is_better)


def family_level_and_power(null_data_sets: dict[int, int], power_data_sets: int, dhp_share: float) -> list[dict]:
    """Per setup and number of judges: with every judge equal, the share of data sets in which any pair is told
    apart (the family-wise error; target <= 0.05), ``null_data_sets[k]`` data sets; with the judges' qualities spread
    evenly over the setup's range (at most ``power_data_sets`` data sets), the share of pairs told apart the right
    way round (power), the wrong way round, and of data sets whose best and worst judges are told apart; seconds per
    data set. DHP, whose resamples cost the most, runs ``dhp_share`` of the data sets."""
    rows = []
    for setup in SETUPS:
        share = dhp_share if setup.judges is dhp_judges else 1.0
        for k in JUDGE_COUNTS:
            rng = np.random.default_rng(0)
            n_null = max(1, round(null_data_sets[k] * share))
            n_power = min(n_null, power_data_sets)
            family_errors, pair_errors, found, wrong, extremes = 0, 0.0, 0.0, 0.0, 0
            started = time.perf_counter()
            for _ in range(n_null):
                tested, _ = ranked_column(dict(enumerate(setup.judges(rng, [setup.equal] * k))), setup.higher_is_better)
                rejected = [p < SIGNIFICANCE for _, p in tested.values()]
                family_errors += any(rejected)
                pair_errors += float(np.mean(rejected))
            seconds = (time.perf_counter() - started) / n_null
            qualities = np.linspace(*setup.spread, k)
            for _ in range(n_power):
                tested, _ = ranked_column(dict(enumerate(setup.judges(rng, list(qualities)))), setup.higher_is_better)
                right = wrong_way = 0
                for (a, b), (difference, p) in tested.items():
                    if p >= SIGNIFICANCE:
                        continue
                    a_truly_better = (qualities[a] > qualities[b]) == setup.higher_quality_is_better
                    a_found_better = (difference > 0) == setup.higher_is_better
                    right += a_truly_better == a_found_better
                    wrong_way += a_truly_better != a_found_better
                found += right / len(tested)
                wrong += wrong_way / len(tested)
                extremes += tested.get((0, k - 1), (0.0, 1.0))[1] < SIGNIFICANCE
            rows.append(
                {
                    "setup": setup.label,
                    "judges": k,
                    "pairs": k * (k - 1) // 2,
                    "data sets": f"{n_null} / {n_power}",
                    "family-wise error": family_errors / n_null,
                    "pair level": pair_errors / n_null,
                    "power": found / n_power,
                    "wrong way": wrong / n_power,
                    "best and worst apart": extremes / n_power,
                    "seconds": seconds,
                }
            )
            print(rows[-1], flush=True)
    return rows


def groups_around_the_best(
    values: Mapping[str, float], tested: Mapping[tuple[str, str], tuple[float, float]]
) -> dict[str, int]:
    """The former rule, for the audit's cases (lower is better): the judge with the best whole-run value and every
    judge not told apart from it share rank 1; among the rest, the best and those not told apart from it rank 2..."""
    remaining, groups, rank = sorted(values, key=values.__getitem__), {}, 0
    while remaining:
        leader, rank = remaining[0], rank + 1
        groups[leader] = rank
        left = []
        for judge in remaining[1:]:
            p = tested.get((leader, judge), tested.get((judge, leader), (math.nan, math.nan)))[1]
            if p >= SIGNIFICANCE:
                groups[judge] = rank
            elif p < SIGNIFICANCE:
                left.append(judge)
        remaining = left
    return groups


def audit_cases() -> list[dict]:
    """The audit's cases, ranked by the report's rule and by the former one: a leader that answered 50 of 200 items
    (150 unparsed) and failed none of them, a judge failing 10 of the 200 (2 of the leader's 50), one failing those and
    29 more (3 of the leader's 50), and one failing every other item; and 11 judges failing 0 %, 10 %, ..., 100 % of
    200 items, each item independently."""
    rng = np.random.default_rng(0)
    keys = [f"i{i}" for i in range(200)]
    index = np.arange(200)
    b_fails = index % 20 == 19
    judges = {
        "leader (150 of 200 unparsed)": np.where(index < 50, 0.0, np.nan),
        "b": b_fails.astype(float),
        "c (fails b's items and 29 more)": (b_fails | ((index >= 50) & (index < 80)) | (index == 5)).astype(float),
        "d": (index % 2 == 0).astype(float),
    }
    cases = []
    for title, drawn in (
        ("a leader that answered 50 of 200 items and failed none of them", judges),
        (
            "11 judges failing 0 %, 10 %, ..., 100 % of 200 items",
            {f"fails {rate:.0%}": (rng.random(200) < rate).astype(float) for rate in np.linspace(0, 1, 11)},
        ),
    ):
        statistics = {
            name: [ItemStatistic(tuple(keys), weighted_mean(values), values, np.isfinite(values))]
            for name, values in drawn.items()
        }
        tested, ranks = ranked_column(statistics, higher_is_better=False)
        values = {name: float(np.nanmean(failures)) for name, failures in drawn.items()}
        former = groups_around_the_best(values, tested)
        cases.append(
            {
                "case": title,
                "ranks": {name: (values[name], ranks.get(name), former.get(name)) for name in drawn},
                "smallest adjusted p": min(p for _, p in tested.values()),
            }
        )
    return cases


def markdown(pooled: list[dict], family: list[dict], cases: list[dict], options: str, seconds: float) -> str:
    lines = [
        "# Coverage of the pooled leaderboard interval, and level and power of the ranking's paired tests",
        "",
        f"`python benchmarks/coverage_comparisons.py {options}` ({seconds:.0f} s on the shared 2-core "
        "CPU machine, one BLAS thread). The models and targets: the benchmark's docstring.",
        "",
        "## Pooled interval (FBI, 4 strategies judging the same 220 items), target: the pooled population rate",
        "",
        "| regime | correlation between strategies | landed (quadrature) coverage | width | joint resampling "
        "coverage | width |",
        "|---|---|---|---|---|---|",
    ]
    for row in pooled:
        lines.append(
            f"| {row['regime']} | {row['correlation']:.2f} | {row['landed coverage']:.3f} | "
            f"{row['landed width']:.3f} | {row['joint coverage']:.3f} | {row['joint width']:.3f} |"
        )
    lines += [
        "",
        "## Family-wise error and power of the ranking (every pair of a column, Holm-adjusted)",
        "",
        "Family-wise error: with every judge equal, the share of data sets in which any pair is told apart (Holm-"
        "adjusted p < 0.05), target <= 0.05; pair level: the share of single pairs told apart before the "
        "adjustment (nominal 0.05). Power: with the judges' qualities spread evenly (the setup's range), the share of "
        "pairs told apart the right way round; wrong way: told apart the wrong way round; best and worst apart: data "
        "sets whose best and worst judge are told apart. Data sets: equal judges / spread judges. Seconds: per data "
        "set of k judges (all pairs), one core.",
        "",
        "| setup | judges | pairs | data sets | family-wise error | pair level | power | wrong way | best and worst "
        "apart | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {row['setup']} | {row['judges']} | {row['pairs']} | {row['data sets']} | {row['family-wise error']:.3f} | "
        f"{row['pair level']:.3f} | {row['power']:.3f} | {row['wrong way']:.4f} | {row['best and worst apart']:.3f} | "
        f"{row['seconds']:.2f} |"
        for row in family
    ]
    lines += ["", "## The audit's cases, ranked by the rule (FBI error rates, lower is better)", ""]
    for case in cases:
        lines += [
            f"{case['case']} (smallest adjusted p {case['smallest adjusted p']:.2g}):",
            "",
            "| judge | error rate on its answered items | rank | the former rule's group, on the same p-values |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {name} | {value:.3f} | {'unranked' if rank is None else rank} | {former} |"
            for name, (value, rank, former) in case["ranks"].items()
        ]
        lines.append("")
    lines += [READING]
    return "\n".join(lines) + "\n"


READING = (
    "How to read it: the landed pooling adds half-widths in quadrature, which takes the pooled tasks as independent; "
    "the more the strategies' failures go together, the more its interval is too narrow. Resampling each item jointly "
    "in every task keeps that dependence. The ranking tests every pair of a column and adjusts the p-values by Holm "
    "over all pairs, so its family-wise error is at most its level whatever the number of judges; what it costs is "
    "power, which falls with the number of pairs. Exact McNemar is conservative by construction (a discrete test). "
    "The other headlines' p-value is the resampled t-test (the difference over its item-bootstrap standard error, "
    "Student's t with n - 1 degrees of freedom): unlike counting 2,000 resamples, whose p cannot go below 2/2001 "
    "and so cannot survive Holm over more than 50 pairs (11 judges), it resolves p-values of any size. One Monte-Carlo "
    "standard error: 0.007 for a level of 0.05 at 1,000 data sets, 0.011 at 400, 0.015 at 200."
)
"""How to read the tables, written under them."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-sets", type=int, default=300, help="simulated data sets per regime and setup")
    parser.add_argument("--level-data-sets", type=int, default=400, help="equal-judge data sets, 2 and 5 judges")
    parser.add_argument("--many-judges-data-sets", type=int, default=200, help="equal-judge data sets, 20 judges")
    parser.add_argument("--power-data-sets", type=int, default=200, help="at most this many for the power")
    parser.add_argument("--dhp-share", type=float, default=1.0, help="DHP runs this share of the data sets")
    parser.add_argument("--output", type=Path, default=REPO / "docs" / "coverage_comparisons.md")
    args = parser.parse_args()
    started = time.perf_counter()
    pooled = pooled_coverage(args.data_sets)
    family = family_level_and_power(
        {2: args.level_data_sets, 5: args.level_data_sets, 20: args.many_judges_data_sets},
        args.power_data_sets,
        args.dhp_share,
    )
    options = (
        f"--data-sets {args.data_sets} --level-data-sets {args.level_data_sets} --many-judges-data-sets "
        f"{args.many_judges_data_sets} --power-data-sets {args.power_data_sets} --dhp-share {args.dhp_share}"
    )
    text = markdown(pooled, family, audit_cases(), options, time.perf_counter() - started)
    args.output.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
