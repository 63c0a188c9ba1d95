"""Pooled intervals, paired comparisons of judges, Holm's adjustment, the rank rule, references and the human
ceiling, on values: hand computations and independent references (scipy, krippendorff, the suites' own statistics).
The same on real logs runs in ``tests/report/test_report.py`` (an oracle, its twin and a constant judge)."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from scipy import stats

from dhp_tasks.report import dhp_d_avg, dhp_rated_below
from judge_data.views import Sample
from judge_report.runs import Run
from judge_report.tables import build_report
from scorers.agreement import weighted_interval_alpha
from scorers.discernment import ScoreRecord, discernment_report
from scorers.paired import (
    BOOTSTRAP_TEST,
    MCNEMAR,
    ItemStatistic,
    compare,
    compare_all,
    holm,
    joint_resamples,
    mcnemar_p,
    rank_judges,
    recentred_interval,
    weighted_mean,
    weighted_pearson,
)
from scorers.references import (
    DhpLayout,
    dhp_references,
    fbi_error_rate_references,
    leave_one_out,
    pearson_agreement,
    system_tau_agreement,
)


def test_holm_adjusts_step_down_and_keeps_the_order():
    # sorted 0.01, 0.03, 0.04 times 3, 2, 1: 0.03, 0.06, 0.04, made monotone: 0.03, 0.06, 0.06
    assert holm([0.01, 0.04, 0.03, math.nan]) == pytest.approx([0.03, 0.06, 0.06, math.nan], nan_ok=True)
    assert holm([0.5, 0.9]).tolist() == [1.0, 1.0]


def test_mcnemar_is_the_binomial_test_of_the_discordant_items():
    first = np.array([1, 1, 1, 0, 0, math.nan, 1])
    second = np.array([0, 0, 0, 0, 1, 1, 1])
    # discordant with both parsed: 3 where only the first fails, 1 where only the second does
    assert mcnemar_p(first, second) == pytest.approx(stats.binomtest(3, 4, 0.5).pvalue) == pytest.approx(0.625)
    assert mcnemar_p(first, first) == 1.0


def test_weighted_statistics_equal_the_libraries_on_replicated_items():
    rng = np.random.default_rng(1)
    judge, human = rng.normal(size=12), rng.normal(size=12)
    judge[3] = math.nan
    weights = rng.integers(0, 4, size=12).astype(float)
    replicated = np.repeat(np.arange(12), weights.astype(int))
    kept = replicated[np.isfinite(judge[replicated])]
    expected = stats.pearsonr(judge[kept], human[kept]).statistic
    assert weighted_pearson(judge, human, weights[None, :])[0] == pytest.approx(expected)

    raters = rng.integers(1, 6, size=(3, 10)).astype(float)
    raters[0, 2] = raters[1, 2] = math.nan  # a unit with one score: left out
    units = rng.integers(1, 3, size=10).astype(float)
    columns = np.repeat(np.arange(10), units.astype(int))
    reference = krippendorff.alpha(reliability_data=raters[:, columns], level_of_measurement="interval")
    assert weighted_interval_alpha(raters, units[None, :])[0] == pytest.approx(reference)


def test_rank_is_one_plus_the_judges_significantly_better():
    # (a - b, Holm-adjusted p) per pair; higher is better unless said
    tied = {("a", "b"): (0.0, 1.0), ("a", "c"): (0.02, 0.4), ("b", "c"): (0.02, 0.6)}
    assert rank_judges(tied, higher_is_better=True) == {"a": 1, "b": 1, "c": 1}
    # a chain a > b > c where a ~ b and b ~ c but a is told apart from c: b shares rank 1 with a, c has one above
    chain = {("a", "b"): (0.1, 0.2), ("b", "c"): (0.1, 0.3), ("a", "c"): (0.2, 0.001)}
    assert rank_judges(chain, higher_is_better=True) == {"a": 1, "b": 1, "c": 2}
    assert rank_judges(chain, higher_is_better=False) == {"a": 2, "b": 1, "c": 1}
    # all apart: 1, 2, 3; a pair without a p-value counts for nothing, and a judge only in such pairs has no rank
    apart = {
        ("a", "b"): (0.1, 0.01),
        ("a", "c"): (0.2, 0.001),
        ("b", "c"): (0.1, 0.02),
        ("a", "d"): (math.nan, math.nan),
    }
    assert rank_judges(apart, higher_is_better=True) == {"a": 1, "b": 2, "c": 3}
    # the direction is the pair's own difference on its shared items, whatever the judges' whole-run values
    assert rank_judges({("a", "b"): (-0.3, 0.001)}, higher_is_better=True) == {"a": 2, "b": 1}


def _failures(keys: list[str], values: list[float]) -> ItemStatistic:
    array = np.array(values, dtype=float)
    return ItemStatistic(tuple(keys), weighted_mean(array), array)


def test_judges_compared_on_their_shared_items_with_mcnemar_or_the_bootstrap():
    keys = [f"item{i}" for i in range(20)]
    oracle, twin = _failures(keys, [0.0] * 20), _failures(keys, [0.0] * 20)
    wrong = _failures(keys[:15] + ["other1", "other2"], [1.0] * 17)
    same = compare([oracle], [twin])
    assert same is not None and (same.difference, same.low, same.high, same.p) == (0.0, 0.0, 0.0, 1.0)
    apart = compare([oracle], [wrong])
    assert apart is not None and apart.n_items == 15 and apart.difference == -1.0 and apart.test == MCNEMAR
    assert apart.p == pytest.approx(2 / 2**15)
    # two tasks pooled: the paired bootstrap, whose p is never 0
    pooled = compare([oracle, oracle], [wrong, wrong])
    assert pooled is not None and pooled.test != MCNEMAR and 0 < pooled.p < 0.01
    assert compare([oracle], [_failures(["x"], [1.0])]) is None


def test_a_pooled_interval_keeps_the_dependence_between_tasks_that_share_items():
    rng = np.random.default_rng(2)
    keys = [f"item{i}" for i in range(50)]
    failures = rng.integers(0, 2, size=50).astype(float)
    one = _failures(keys, list(failures))
    # the same items judged alike in two tasks: the pooled mean's resamples are the one task's, not narrower
    alike = joint_resamples([one, one]).mean(axis=1)
    alone = joint_resamples([one])[:, 0]
    assert np.array_equal(alike, alone)
    estimate = float(failures.mean())
    low, high = recentred_interval(alike, estimate)
    assert low < estimate < high and high - low == pytest.approx(
        np.subtract(*np.quantile(alone, [0.975, 0.025])), abs=1e-12
    )
    # tasks without a shared item are resampled each on its own: the pooled spread shrinks by about sqrt(2)
    other = _failures([f"other{i}" for i in range(50)], list(failures))
    apart = joint_resamples([one, other]).mean(axis=1)
    assert np.std(apart) == pytest.approx(np.std(alone) / math.sqrt(2), rel=0.1)


def _dhp_samples(rng: np.random.Generator, items: int) -> list[Sample]:
    samples = []
    for item in range(items):
        original = rng.integers(2, 6, size=2)
        for variant, level in (("original", None), ("typos", "character"), ("swap", "sentence")):
            scores = original if variant == "original" else np.maximum(original - rng.integers(0, 3, size=2), 1)
            metadata = {"item_id": f"t{item}", "perturbation": variant, "level": level}
            value = {"coherence": float(scores[0]), "fluency": float(scores[1])}
            samples.append(Sample(f"t{item}:{variant}", metadata, value, {}))
    return samples


def _run(task: str = "dhp_summeval", **metadata) -> Run:
    return Run("x.eval", "inspect", task, "5", "openai/a", {}, metadata, {}, {}, 0, "2026-01-01")


def test_dhp_d_avg_on_item_weights_is_the_suites_own_statistic():
    rng = np.random.default_rng(3)
    samples = _dhp_samples(rng, 9)
    run = _run(metrics=["coherence", "fluency"], combine="hmp")
    statistic = dhp_d_avg(run, samples)
    records = [
        ScoreRecord(s.metadata["item_id"], s.metadata["perturbation"], s.metadata["level"], s.value) for s in samples
    ]
    expected = discernment_report(records, ["coherence", "fluency"], bootstrap_resamples=0).D_avg
    assert statistic.estimate() == pytest.approx(expected)
    # an item drawn twice is the same as its records given twice (under another id)
    doubled = records + [ScoreRecord("copy", r.perturbation, r.level, r.scores) for r in records if r.item_id == "t0"]
    weights = np.ones((1, 9))
    weights[0, 0] = 2.0
    assert statistic.compute(weights)[0] == pytest.approx(
        discernment_report(doubled, ["coherence", "fluency"], bootstrap_resamples=0).D_avg
    )


def test_rated_below_is_the_share_of_damaged_copies_rated_lower_ties_half():
    rng = np.random.default_rng(4)
    samples = _dhp_samples(rng, 9)
    statistic = dhp_rated_below(_run(metrics=["coherence", "fluency"], combine="hmp"), samples)
    by_id = {s.id: s.value for s in samples}
    by_hand = []
    for variant in ("typos", "swap"):  # one perturbation per level: the level-balanced mean is their mean
        shares = []
        for metric in ("coherence", "fluency"):
            pairs = [(by_id[f"t{i}:original"][metric], by_id[f"t{i}:{variant}"][metric]) for i in range(9)]
            shares.append(np.mean([1.0 if a > b else 0.5 if a == b else 0.0 for a, b in pairs]))
        by_hand.append(np.mean(shares))
    assert statistic.estimate() == pytest.approx(np.mean(by_hand))
    assert 0.5 < statistic.estimate() <= 1.0  # the copies are never rated above their originals here


def test_fbi_references_in_closed_form():
    single = {r.reference: r for r in fbi_error_rate_references("single", [10, 3], [100, 100])}
    assert single["random judge"].value == pytest.approx((11 / 20 + 4 / 6) / 2)
    assert single["random judge"].low < single["random judge"].value < single["random judge"].high
    assert single["constant judge"].value == 1.0
    pairwise = {r.reference: r for r in fbi_error_rate_references("pairwise", [None], [4], [[1.0, 0.0, 0.0, 1.0]])}
    assert pairwise["random judge"].value == pytest.approx(8 / 9)
    assert (pairwise["always first"].value, pairwise["always longer"].value) == (1.0, 0.5)
    # pooled tasks: the mean over the tasks of each task's share (1/2 and 1/4), not the first task's alone
    pooled = fbi_error_rate_references("pairwise", [None, None], [4, 4], [[1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0]])
    assert {r.reference: r.value for r in pooled}["always longer"] == pytest.approx((1 / 2 + 1 / 4) / 2)
    assert {r.reference: r.value for r in fbi_error_rate_references("reference", [10], [5])} == {
        "random judge": 0.1,
        "constant judge": 0.0,
    }


def test_dhp_references_without_a_judged_pair_are_undefined_not_a_crash():
    """``--limit 1`` judges one text: no perturbed copy, so chance has no D_avg to give (it stopped the report)."""
    originals_only = DhpLayout(np.zeros((0, 1), dtype=bool), (), (), 4, 1, 5, 1)
    references = {r.reference: r for r in dhp_references([originals_only], "hmp")}
    assert math.isnan(references["random judge"].value) and "no perturbed copy" in references["random judge"].note
    assert references["constant judge"].value == 0.0


def test_human_ceiling_and_the_judge_against_the_same_leave_one_out_means():
    annotators = np.array(
        [[1, 2, 3, 4, 5, 2, 4, 3], [2, 2, 3, 5, 5, 1, 3, 3], [1, 3, 3, 4, 4, 2, 5, math.nan]], dtype=float
    )
    judge = np.array([2, 2, 4, 4, 5, 1, 4, 2], dtype=float)
    systems = ["s1", "s1", "s2", "s2", "s3", "s3", "s4", "s4"]
    by_hand_own, by_hand_judge, system_own, system_judge = [], [], [], []
    for i in range(3):
        others = np.delete(annotators, i, axis=0)
        rest = np.array([np.mean(column[np.isfinite(column)]) for column in others.T])  # item 8: one other left
        scored = np.isfinite(annotators[i])
        by_hand_own.append(stats.pearsonr(annotators[i, scored], rest[scored]).statistic)
        by_hand_judge.append(stats.pearsonr(judge, rest).statistic)

        def means(values: np.ndarray, keep: np.ndarray) -> list[float]:
            return [float(np.mean(values[keep & (np.array(systems) == s)])) for s in ("s1", "s2", "s3", "s4")]

        system_own.append(stats.kendalltau(means(annotators[i], scored), means(rest, scored)).statistic)
        everything = np.ones(8, dtype=bool)
        system_judge.append(stats.kendalltau(means(judge, everything), means(rest, everything)).statistic)
    found = leave_one_out(annotators, pearson_agreement, [judge])
    assert found.annotators == pytest.approx(np.mean(by_hand_own))
    assert found.judges == pytest.approx((np.mean(by_hand_judge),))
    on_systems = leave_one_out(annotators, system_tau_agreement(systems), [judge])
    assert on_systems.annotators == pytest.approx(np.mean(system_own))
    assert on_systems.judges == pytest.approx((np.mean(system_judge),))


def test_the_report_pools_compares_and_references_from_the_items_it_reads():
    keys = [f"entity/{i}" for i in range(12)]

    def samples(failures: list[float]) -> list[Sample]:
        return [
            Sample(key, {"ability": "factual", "category": "entity", "invariant": False}, {"failure": f}, {})
            for key, f in zip(keys, failures, strict=True)
        ]

    logs = {
        "a-vanilla.eval": samples([0.0] * 12),
        "a-rules.eval": samples([0.0] * 10 + [1.0] * 2),
        "b-vanilla.eval": samples([1.0] * 12),
        "b-rules.eval": samples([1.0] * 12),
    }

    def fbi_run(judge: str, task: str, value: float) -> Run:
        metrics = {"error_rate": value, "error_rate_ci_low": value, "error_rate_ci_high": value}
        location = f"{judge}-{task.rpartition('_')[2]}.eval"
        metadata = {"paradigm": "single", "scale": 10}
        return Run(location, "inspect", task, "3", f"openai/{judge}", {}, metadata, {}, metrics, 12, "2026-01-01")

    logged = {("a", "vanilla"): 0.0, ("a", "rules"): 2 / 12, ("b", "vanilla"): 1.0, ("b", "rules"): 1.0}
    runs = [fbi_run(judge, f"fbi_single_{strategy}", value) for (judge, strategy), value in logged.items()]
    report = build_report(runs, items=lambda run: logs[run.location])
    cell = report.leaderboard.cells[(("openai/a",), "fbi single error_rate")]
    assert cell.ci is not None and cell.ci[0] <= cell.value <= cell.ci[1]
    assert any("its tasks judge the same items" in note for note in report.notes)
    (comparison,) = report.comparisons
    assert (comparison.a, comparison.b, comparison.n_items) == ("openai/a", "openai/b", 12)
    assert comparison.difference == pytest.approx((0 + 2 / 12) / 2 - 1.0) and comparison.p_adjusted < 0.05
    references = {(row.column, row.reference): row.value for row in report.references}
    assert references[("fbi single error_rate", "random judge")] == pytest.approx(11 / 20)
    assert ("reference: constant judge",) in report.leaderboard.references
    assert report.leaderboard.rows[-1] == ("reference: constant judge",)


def _fbi_report(failures: dict[str, dict[str, float]]) -> tuple:
    """A report of one FBI single-answer task per judge (``failures``: judge -> item -> 0/1, NaN where the answer
    did not parse), its runs' items read from these values: the report and its comparisons by pair of judges."""
    logs = {
        f"{judge}.eval": [
            Sample(key, {"ability": "factual", "category": "entity", "invariant": False}, {"failure": f}, {})
            for key, f in items.items()
        ]
        for judge, items in failures.items()
    }

    def fbi_run(judge: str) -> Run:
        values = np.array(list(failures[judge].values()))
        rate = float(np.nanmean(values)) if np.isfinite(values).any() else math.nan
        metadata = {"paradigm": "single", "scale": 10}
        metrics = {"error_rate": rate, "parse_failures": float(np.isnan(values).sum())}
        return Run(
            f"{judge}.eval",
            "inspect",
            "fbi_single_vanilla",
            "3",
            f"openai/{judge}",
            {},
            metadata,
            {},
            metrics,
            len(values),
            "2026-01-01",
        )

    report = build_report([fbi_run(judge) for judge in failures], items=lambda run: logs[run.location])
    pairs = {(row.a.removeprefix("openai/"), row.b.removeprefix("openai/")): row for row in report.comparisons}
    return report, pairs


def _ranks(report) -> dict[str, int | None]:
    column = report.leaderboard.columns[0]
    return {
        row[0].removeprefix("openai/"): report.leaderboard.cells[(row, column)].rank
        for row in report.leaderboard.rows
        if row not in report.leaderboard.references
    }


def test_a_leader_that_parsed_a_quarter_of_its_items_is_compared_on_those_items():
    """The audit's case: the leader answered 50 of 200 items (no failure among them). Judges are ranked by how many
    judges are significantly better on the items both answered, never by a group around the leader."""
    keys = [f"entity/{i}" for i in range(200)]
    leader = {key: (0.0 if i < 50 else math.nan) for i, key in enumerate(keys)}
    b = {key: float(i % 20 == 0) for i, key in enumerate(keys)}  # fails 10 of 200, 3 of the leader's 50
    c = {key: float(i % 10 < 3) for i, key in enumerate(keys)}  # 60 of 200, 15 of the leader's 50
    d = {key: float(i % 10 < 6) for i, key in enumerate(keys)}  # 120 of 200
    report, pairs = _fbi_report({"a-leader": leader, "b": b, "c": c, "d": d})
    versus_c = pairs[("a-leader", "c")]
    # the difference and McNemar's test on the same 50 items: 15 discordant items, all against c
    assert versus_c.n_items == 50 and versus_c.difference == pytest.approx(0 - 15 / 50)
    assert versus_c.p == pytest.approx(2 / 2**15) and versus_c.test == MCNEMAR
    assert pairs[("a-leader", "b")].p == pytest.approx(stats.binomtest(0, 3, 0.5).pvalue)  # 3 discordant: 0.25
    assert pairs[("b", "c")].n_items == 200 and pairs[("b", "c")].p_adjusted < 0.05
    # a and b are not told apart; both are better than c, and c better than d
    assert _ranks(report) == {"a-leader": 1, "b": 1, "c": 3, "d": 4}


def test_judges_without_items_in_common_or_without_a_value_are_ranked_or_said_unranked():
    keys = [f"entity/{i}" for i in range(100)]
    leader = {key: 0.0 for key in keys[:50]}  # holds only the first half
    b = {key: float(i % 10 == 0) for i, key in enumerate(keys)}
    c = {key: float(i % 10 < 8) for i, key in enumerate(keys[50:])}  # only the second half: nothing with the leader
    unparsed = {key: math.nan for key in keys}
    report, pairs = _fbi_report({"a-leader": leader, "b": b, "c": c, "u-unparsed": unparsed})
    assert set(pairs) == {("a-leader", "b"), ("b", "c")}
    assert any("openai/a-leader and openai/c share no items; not compared" in note for note in report.notes)
    assert any("openai/u-unparsed has no value" in note and "unranked" in note for note in report.notes)
    # c is ranked through b, which is significantly better on their 50 shared items; the unparsed judge has no rank
    # and does not enter Holm's adjustment (two pairs: the smaller p times 2)
    smaller = min(pairs.values(), key=lambda row: row.p)
    assert smaller.p_adjusted == pytest.approx(2 * smaller.p)
    assert _ranks(report) == {"a-leader": 1, "b": 1, "c": 2, "u-unparsed": None}


def test_the_resampled_t_test_is_the_paired_t_test_for_a_mean_and_resolves_small_p_values():
    rng = np.random.default_rng(5)
    keys = tuple(f"item{i}" for i in range(300))
    first, second = rng.normal(0.5, 1, size=300), rng.normal(0.2, 1, size=300)
    compared = compare([ItemStatistic(keys, weighted_mean(first))], [ItemStatistic(keys, weighted_mean(second))])
    assert compared is not None and compared.test == BOOTSTRAP_TEST
    t_test = stats.ttest_rel(first, second)
    # the bootstrap standard error is the t-test's to within its resampling error (2,000 resamples: about 1.6 %)
    assert stats.t.isf(compared.p / 2, df=299) == pytest.approx(abs(t_test.statistic), rel=0.05)
    assert compared.p < 2 / 2001  # below what counting 2,000 resamples could ever give
    # judges that differ on every item alike: no spread, but never a p below an exact test's 2 / 2^n
    ones = ItemStatistic(keys[:8], weighted_mean(np.ones(8)))
    zeros = ItemStatistic(keys[:8], weighted_mean(np.zeros(8)))
    assert compare([ones, ones], [zeros, zeros]).p == pytest.approx(2 / 2**8)


def test_every_pair_of_a_column_is_what_the_pair_alone_gives():
    rng = np.random.default_rng(6)
    keys = tuple(f"item{i}" for i in range(60))
    values = rng.normal(size=(3, 60))
    values[1, :5] = math.nan  # b left five items unanswered: a and b, b and c are compared without them
    statistics = {
        judge: [ItemStatistic(keys, weighted_mean(row), answered=np.isfinite(row))]
        for judge, row in zip("abc", values, strict=True)
    }
    together = compare_all(statistics)
    assert list(together) == [("a", "b"), ("a", "c"), ("b", "c")]
    for (a, b), compared in together.items():
        assert compared == compare(statistics[a], statistics[b])
    assert together[("a", "b")].n_items == 55 and together[("a", "c")].n_items == 60
    assert together[("a", "b")].difference == pytest.approx(np.mean(values[0, 5:]) - np.mean(values[1, 5:]))


def _human_run(folder, task: str, limit: int | None = 40, **settings) -> tuple[Run, list[Sample]]:
    from judge_data.human import item_system, load_criteria, load_items

    criteria, _ = load_criteria(folder)
    items = load_items(folder, criteria)[:limit]
    info = {c.name: {"group": c.group, "range": [c.low, c.high], "scale": c.scale} for c in criteria}
    samples = [
        Sample(
            item.id,
            {
                "human": dict(item.human),
                "system": item_system(item),
                "annotator_ids": list(item.annotator_ids or []),
                "annotators": {name: list(scores) for name, scores in (item.annotator_scores or {}).items()},
            },
            {c.name: float(round(item.human[c.name])) for c in criteria},
            {},
        )
        for item in items
    ]
    run = Run(
        "x.eval", "inspect", task, "1", "m", {}, {"criteria": info}, {"data_dir": str(folder), **settings}, {}, 0, ""
    )
    return run, samples


def test_human_ceilings_from_the_annotators_scores_and_only_means_said():
    from judge_report.items import column_references
    from scorers.agreement import interval_alpha
    from tests.conftest import data_folder

    run, samples = _human_run(data_folder("human", "topicalchat"), "adherence_topicalchat_criterion")
    found = {r.reference: r for r in column_references("adherence", "pearson", [run], lambda _: samples)}
    assert found["random judge"].value == 0.0 and found["random judge"].low < 0 < found["random judge"].high
    assert math.isnan(found["constant judge"].value)
    per_criterion = []
    for name, info in run.metadata["criteria"].items():
        matrix = np.array([s.metadata["annotators"][name] for s in samples], dtype=float).T
        if info["group"]:
            per_criterion.append(
                np.nanmean(
                    [
                        stats.pearsonr(row, np.delete(matrix, i, axis=0).mean(axis=0)).statistic
                        for i, row in enumerate(matrix)
                        if np.ptp(row)
                    ]
                )
            )
    assert found["human ceiling"].value == pytest.approx(np.mean(per_criterion))

    run, samples = _human_run(data_folder("human", "summeval"), "adherence_summeval_criterion")
    ceiling = column_references("adherence", "pearson", [run], lambda _: samples)[-1]
    assert math.isnan(ceiling.value) and "only the annotators' mean" in ceiling.note

    run, samples = _human_run(data_folder("human", "coeval_eli5"), "coeval_eli5", dataset="eli5")
    found = {r.reference: r for r in column_references("coeval_scoring", "alpha/with_judge", [run], lambda _: samples)}
    annotators = [
        [s.metadata["annotators"][name][i] for s in samples for name in run.metadata["criteria"]]
        for i in range(len(samples[0].metadata["annotator_ids"]))
    ]
    assert found["human ceiling"].value == pytest.approx(interval_alpha(annotators).value)
    assert found["human ceiling"].low < found["human ceiling"].value < found["human ceiling"].high
    middle = [[3.0] * len(annotators[0])]
    assert found["constant judge"].value == pytest.approx(interval_alpha(annotators + middle).value)


def test_hanna_workers_against_the_others_at_story_and_system_level():
    """HANNA's 3 workers per story (list positions, not stable workers), each against the mean of the other two, over
    the 1,005 stories and over the 11 systems' means, by hand (numpy and scipy) and by the report."""
    from adherence_tasks.report import human_footing
    from tests.conftest import data_folder

    run, samples = _human_run(data_folder("human", "hanna"), "adherence_hanna_criterion", limit=None)
    systems = np.array([s.metadata["system"] for s in samples])
    names = sorted(set(systems))
    stories, by_system, judged = [], [], []
    for name in run.metadata["criteria"]:
        workers = np.array([s.metadata["annotators"][name] for s in samples], dtype=float).T
        judge = np.array([s.value[name] for s in samples])
        per_worker, per_worker_systems, judge_stories = [], [], []
        for i in range(3):
            rest = np.delete(workers, i, axis=0).mean(axis=0)
            per_worker.append(stats.pearsonr(workers[i], rest).statistic)
            judge_stories.append(stats.pearsonr(judge, rest).statistic)
            means = [[float(np.mean(values[systems == system])) for system in names] for values in (workers[i], rest)]
            per_worker_systems.append(stats.kendalltau(*means).statistic)
        stories.append(np.mean(per_worker))
        by_system.append(np.mean(per_worker_systems))
        judged.append(np.mean(judge_stories))
    footing = human_footing(run, samples)
    assert not isinstance(footing, str) and len(names) == 11
    assert footing.annotators["responses"] == pytest.approx(np.mean(stories))
    assert footing.annotators["systems"] == pytest.approx(np.mean(by_system))
    assert footing.judge["responses"] == pytest.approx(np.mean(judged))
