"""Pooled intervals, paired comparisons of judges, Holm's adjustment, rank groups and references, on values: hand
computations and independent references (scipy, krippendorff, the suites' own statistics). The same on real logs
runs in ``tests/report/test_report.py`` (an oracle, its twin and a constant judge)."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from scipy import stats

from judge_report.items import Sample, dhp_d_avg
from judge_report.runs import Run
from judge_report.tables import build_report
from scorers.agreement import weighted_interval_alpha
from scorers.discernment import ScoreRecord, discernment_report
from scorers.paired import (
    MCNEMAR,
    ItemStatistic,
    compare,
    holm,
    joint_resamples,
    mcnemar_p,
    rank_groups,
    recentred_interval,
    weighted_mean,
    weighted_pearson,
)
from scorers.references import DhpLayout, dhp_references, fbi_error_rate_references, leave_one_out_pearson


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


def test_rank_groups_share_the_best_rank_until_told_apart():
    values = {"a": 0.10, "b": 0.12, "c": 0.50, "d": 0.55}
    adjusted = {
        ("a", "b"): 0.5,
        ("a", "c"): 0.01,
        ("a", "d"): 0.01,
        ("b", "c"): 0.02,
        ("b", "d"): 0.01,
        ("c", "d"): 0.3,
    }
    assert rank_groups(values, higher_is_better=False, adjusted=adjusted) == {"a": 1, "b": 1, "c": 2, "d": 2}
    assert rank_groups(values, higher_is_better=True, adjusted=adjusted) == {"d": 1, "c": 1, "b": 2, "a": 2}


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


def test_fbi_references_in_closed_form():
    single = {r.reference: r for r in fbi_error_rate_references("single", [10, 3], [100, 100])}
    assert single["random judge"].value == pytest.approx((11 / 20 + 4 / 6) / 2)
    assert single["random judge"].low < single["random judge"].value < single["random judge"].high
    assert single["constant judge"].value == 1.0
    pairwise = {r.reference: r for r in fbi_error_rate_references("pairwise", [None], [4], [1.0, 0.0, 0.0, 1.0])}
    assert pairwise["random judge"].value == pytest.approx(8 / 9)
    assert (pairwise["always first"].value, pairwise["always longer"].value) == (1.0, 0.5)
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


def test_human_ceiling_is_each_annotator_against_the_mean_of_the_others():
    annotators = np.array([[1, 2, 3, 4, 5], [2, 2, 3, 5, 5], [1, 3, 3, 4, 4]], dtype=float)
    expected = np.mean(
        [stats.pearsonr(annotators[i], np.delete(annotators, i, axis=0).mean(axis=0)).statistic for i in range(3)]
    )
    assert leave_one_out_pearson(annotators) == pytest.approx(expected)


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


def _human_run(folder, task: str, **settings) -> tuple[Run, list[Sample]]:
    from judge_data.human import load_criteria, load_items

    criteria, _ = load_criteria(folder)
    items = load_items(folder, criteria)[:40]
    info = {c.name: {"group": c.group, "range": [c.low, c.high], "scale": c.scale} for c in criteria}
    samples = [
        Sample(
            item.id,
            {
                "human": dict(item.human),
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
    from judge_report.references import column_references
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
