"""Agreement statistics (scorers/correlation.py) against scipy and hand-computed cases."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from scorers.correlation import CriterionScores, agreement_report, correlation, undefined_reasons

JUDGE = [1.0, 2.0, 2.0, 4.0, 5.0, 3.0, 4.0, 1.0]
HUMAN = [1.5, 2.0, 3.0, 3.5, 4.5, 2.5, 5.0, 2.0]


@pytest.mark.parametrize(
    ("method", "reference"),
    [("pearson", stats.pearsonr), ("spearman", stats.spearmanr), ("kendall", stats.kendalltau)],
)
def test_each_method_matches_scipy_and_its_interval_holds_it(method, reference):
    estimate = correlation(JUDGE, HUMAN, method)
    assert estimate.value == pytest.approx(reference(JUDGE, HUMAN).statistic, abs=1e-12)
    assert estimate.n == len(JUDGE)
    assert -1 <= estimate.low <= estimate.value <= estimate.high <= 1
    assert estimate.reason is None


def test_interval_is_reproducible_and_narrows_with_more_pairs():
    rng = np.random.default_rng(1)
    human = rng.uniform(1, 5, 400)
    judge = human + rng.normal(0, 1, 400)
    small = correlation(judge[:20], human[:20])
    large = correlation(judge, human)
    assert correlation(judge[:20], human[:20]) == small
    assert large.high - large.low < small.high - small.low
    assert large.low < stats.pearsonr(judge, human).statistic < large.high


def test_unparsed_judge_scores_drop_out_of_the_pairs():
    judge = [1.0, math.nan, 3.0, 4.0, math.nan]
    human = [1.0, 5.0, 2.0, 4.0, 1.0]
    estimate = correlation(judge, human)
    assert estimate.n == 3
    assert estimate.value == pytest.approx(stats.pearsonr([1, 3, 4], [1, 2, 4]).statistic)


def test_constant_judge_is_undefined_with_the_reason_not_zero():
    estimate = correlation([3.0] * 6, [1, 2, 3, 4, 5, 2.5])
    assert math.isnan(estimate.value) and math.isnan(estimate.low) and math.isnan(estimate.high)
    assert estimate.reason == "the judge gave every item the same score (3)"


def test_too_few_pairs_and_constant_humans_are_undefined():
    assert "at least 3" in correlation([1.0, 2.0], [2.0, 3.0]).reason
    assert correlation([1.0, 2.0, 3.0], [4.0, 4.0, 4.0]).reason == "the human scores are all 4"


def test_report_orients_and_averages_per_group_by_hand():
    up = [1.0, 2.0, 3.0, 4.0]
    down = [4.0, 3.0, 2.0, 1.0]
    noisy = [1.0, 3.0, 2.0, 4.0]  # Pearson with up: 0.8
    criteria = [
        CriterionScores("fluency", "Content", up, up),
        CriterionScores("coherence", "Content", noisy, up),
        CriterionScores("errors", "Integrity", down, up, sign=-1),
        CriterionScores("flat", "Relevance", [2.0] * 4, up),
    ]
    report = agreement_report(criteria)
    assert report["pearson/fluency"] == pytest.approx(1.0)
    assert report["pearson/coherence"] == pytest.approx(0.8)
    assert report["pearson/errors"] == pytest.approx(-1.0)  # logged in the human direction
    assert report["pearson/group/Content"] == pytest.approx(0.9)
    assert report["pearson/group/Integrity"] == pytest.approx(1.0)  # oriented: a quality score falls as errors rise
    assert math.isnan(report["pearson/group/Relevance"])
    assert report["pearson"] == pytest.approx((1.0 + 0.8 + 1.0) / 3)
    assert report["undefined"] == 1
    assert math.isnan(report["pearson/flat"]) and report["n/flat"] == 4
    assert list(report)[:5] == [
        "pearson",
        "pearson/group/Content",
        "pearson/group/Integrity",
        "pearson/group/Relevance",
        "undefined",
    ]
    assert undefined_reasons(criteria) == {"flat": "the judge gave every item the same score (2)"}


def test_report_with_nothing_scored_yet_is_nan_not_an_error():
    report = agreement_report([CriterionScores("fluency", "Content", [], [])])
    assert math.isnan(report["pearson"]) and report["n/fluency"] == 0 and report["undefined"] == 1


def test_dataset_interval_resamples_items_jointly_across_criteria():
    rng = np.random.default_rng(3)
    human = rng.uniform(1, 5, (2, 60))
    judge = human + rng.normal(0, 1, (2, 60))
    criteria = [
        CriterionScores("fluency", "Content", judge[0], human[0]),
        CriterionScores("errors", "Integrity", -judge[1], human[1], sign=-1),
    ]
    report = agreement_report(criteria, aligned=True)
    expected = (stats.pearsonr(judge[0], human[0]).statistic + stats.pearsonr(judge[1], human[1]).statistic) / 2
    assert report["pearson"] == pytest.approx(expected)
    assert report["pearson_ci_low"] < expected < report["pearson_ci_high"]
    assert agreement_report(criteria, aligned=True)["pearson_ci_low"] == report["pearson_ci_low"]
    assert "pearson_ci_low" not in agreement_report(criteria)
    exact = [CriterionScores("fluency", "Content", human[0], human[0])]
    assert agreement_report(exact, aligned=True)["pearson_ci_low"] == pytest.approx(1.0)


def test_dataset_interval_refuses_criteria_of_different_items():
    from scorers.correlation import mean_pearson_interval

    with pytest.raises(ValueError, match="not item-aligned"):
        mean_pearson_interval(
            [
                CriterionScores("a", "Content", [1.0, 2, 3], [1.0, 2, 3]),
                CriterionScores("b", "Content", [1.0, 2], [1.0, 2]),
            ]
        )


def test_interval_is_nan_when_many_resamples_have_no_correlation():
    judge = [1.0] * 29 + [4.5]  # a nearly constant judge: most resamples leave out its one deviation
    human = list(np.linspace(1, 5, 30))
    estimate = correlation(judge, human)
    assert not math.isnan(estimate.value)
    assert math.isnan(estimate.low) and math.isnan(estimate.high)


def test_headline_interval_averages_the_same_criteria_in_every_resample():
    from scorers.correlation import mean_pearson_interval

    rng = np.random.default_rng(5)
    human = rng.uniform(1, 5, 60)
    steady = CriterionScores("coherence", "Content", human + rng.normal(0, 0.5, 60), human)
    # a binary criterion with one positive label in 60 (ROSCOE step-wise style): most resamples miss it
    rare_human = np.zeros(60)
    rare_human[7] = 1.0
    rare = CriterionScores("hallucination", "Integrity", rare_human.copy(), rare_human)
    notes: dict[str, str] = {}
    report = agreement_report([steady, rare], aligned=True, notes=notes)
    assert report["pearson"] == pytest.approx((stats.pearsonr(steady.judge, human).statistic + 1.0) / 2)
    # before: resamples without the positive label averaged coherence alone, so the interval mixed two means
    assert math.isnan(report["pearson_ci_low"]) and math.isnan(report["pearson_ci_high"])
    assert "hallucination" in notes["pearson_ci"] and "resamples" in notes["pearson_ci"]
    interval = mean_pearson_interval([steady])
    assert interval.reason is None and interval.low < stats.pearsonr(steady.judge, human).statistic < interval.high


def _reference_distribution(judge, human, method, n_resamples):
    """The bootstrap distribution as scipy.stats.bootstrap computed it before (one scipy statistic per method)."""
    statistic = {
        "pearson": lambda x, y, axis: stats.pearsonr(x, y, axis=axis).statistic,
        "spearman": lambda x, y, axis: (
            stats.pearsonr(stats.rankdata(x, axis=axis), stats.rankdata(y, axis=axis), axis=axis).statistic
        ),
        "kendall": lambda x, y, axis: stats.kendalltau(x, y, axis=axis).statistic,
    }[method]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.bootstrap(
            (judge, human),
            statistic,
            paired=True,
            vectorized=True,
            n_resamples=n_resamples,
            method="percentile",
            rng=np.random.default_rng(0),
        ).bootstrap_distribution


def _score_samples():
    """Continuous scores, mean ratings with many ties, and a nearly constant judge (resamples without a
    correlation)."""
    rng = np.random.default_rng(11)
    human = rng.uniform(1, 5, 40)
    tied_human = np.rint(rng.uniform(1, 5, (3, 60))).mean(axis=0)
    nearly_constant = np.full(25, 3.0)
    nearly_constant[[4, 17]] = [4.0, 1.0]
    return {
        "continuous": (human + rng.normal(0, 1, 40), human),
        "ties": (np.clip(np.rint(tied_human + rng.normal(0, 1, 60)), 1, 5), tied_human),
        "nearly constant": (nearly_constant, np.rint(rng.uniform(1, 5, 25))),
    }


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
@pytest.mark.parametrize("case", ["continuous", "ties", "nearly constant"])
@pytest.mark.parametrize("table_cells", [1 << 16, 0], ids=["from tables", "from the drawn scores"])
def test_resampled_correlations_are_scipys_bootstrap_distribution(monkeypatch, method, case, table_cells):
    """Kendall's tau-b from exact pair counts is scipy's bit for bit; Pearson and Spearman, from each resample's table
    of score counts or (past the table budget) from the drawn scores by pearsonr's steps, are held to rounding."""
    import scorers.correlation as correlation_module
    from scorers.correlation import resample_indices, resampled_correlations

    monkeypatch.setattr(correlation_module, "MAX_TABLE_CELLS", table_cells)
    judge, human = _score_samples()[case]
    resample_indices.cache_clear()
    expected = _reference_distribution(judge, human, method, 300)
    resampled = resampled_correlations(judge, human, (method,), n_resamples=300)[method]
    np.testing.assert_array_equal(np.isnan(resampled), np.isnan(expected))
    if method == "kendall":
        np.testing.assert_array_equal(resampled, expected)
    np.testing.assert_allclose(resampled, expected, rtol=0, atol=1e-12)
    if case == "nearly constant":
        assert np.isnan(expected).any()


@pytest.mark.parametrize("cells", [40 * 40, 40 * 40 - 1])
def test_kendall_equals_scipy_one_table_at_a_time_and_past_the_table_budget(monkeypatch, cells):
    import scorers.correlation as correlation_module

    judge, human = _score_samples()["continuous"]  # 40 distinct scores on each side: 1,600 cells a table
    expected = _reference_distribution(judge, human, "kendall", 50)
    monkeypatch.setattr(correlation_module, "MAX_TABLE_CELLS", cells)
    np.testing.assert_array_equal(
        correlation_module.resampled_correlations(judge, human, ("kendall",), 50)["kendall"], expected
    )


def _oriented_mean_of_resample(arrays, signs):
    """The headline interval's statistic on one resample, as it was computed before (one scipy call per
    criterion)."""
    values = []
    for index, sign in enumerate(signs):
        judge, human = arrays[2 * index], arrays[2 * index + 1]
        keep = np.isfinite(judge) & np.isfinite(human)
        judge, human = judge[keep], human[keep]
        if judge.size < 3 or np.all(judge == judge[0]) or np.all(human == human[0]):
            return math.nan
        values.append(sign * stats.pearsonr(judge, human).statistic)
    return float(np.mean(values))


@pytest.mark.parametrize("table_cells", [1 << 16, 0], ids=["from tables", "from the drawn scores"])
def test_headline_resamples_equal_the_per_resample_computation_to_rounding(monkeypatch, table_cells):
    import scorers.correlation as correlation_module
    from scorers.correlation import resampled_mean_pearson

    monkeypatch.setattr(correlation_module, "MAX_TABLE_CELLS", table_cells)

    rng = np.random.default_rng(8)
    human = np.rint(rng.uniform(1, 5, (3, 30)))
    judge = np.clip(np.rint(human + rng.normal(0, 1, (3, 30))), 1, 5)
    judge[0, [2, 9]] = np.nan  # unparsed answers
    human[1, [5, 6, 7]] = np.nan  # items without this criterion's label
    judge[2] = 2.0
    judge[2, [3, 20]] = [4.0, 5.0]  # rarely varies: some resamples have no correlation
    criteria = [
        CriterionScores(name, "Content", judge[row], human[row], sign)
        for row, (name, sign) in enumerate([("a", 1), ("b", -1), ("c", 1)])
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = stats.bootstrap(
            [values for scores in criteria for values in (scores.judge, scores.human)],
            lambda *sample: _oriented_mean_of_resample(sample, [1, -1, 1]),
            paired=True,
            vectorized=False,
            n_resamples=300,
            method="percentile",
            rng=np.random.default_rng(0),
        ).bootstrap_distribution
    resampled = resampled_mean_pearson(criteria, n_resamples=300, seed=0)
    assert 0 < np.isnan(expected).sum() < 300
    np.testing.assert_array_equal(np.isnan(resampled), np.isnan(expected))
    np.testing.assert_allclose(resampled, expected, rtol=0, atol=1e-12)


def test_resamples_without_a_pair_are_undefined():
    from scorers.correlation import resampled_correlations

    judge = np.array([1.0, np.nan, 3.0, np.nan])
    human = np.array([np.nan, 2.0, np.nan, 4.0])
    resampled = resampled_correlations(judge, human, n_resamples=20)
    assert all(np.isnan(values).all() and values.shape == (20,) for values in resampled.values())


def test_past_the_table_budget_only_pearson_takes_missing_scores(monkeypatch):
    import scorers.correlation as correlation_module

    monkeypatch.setattr(correlation_module, "MAX_TABLE_CELLS", 0)
    judge, human = np.array([1.0, 2.0, np.nan, 4.0, 5.0]), np.array([2.0, 1.0, 3.0, 5.0, 4.0])
    assert correlation_module.resampled_correlations(judge, human, ("pearson",), 10)["pearson"].shape == (10,)
    with pytest.raises(ValueError, match="only Pearson takes pairs with a missing score"):
        correlation_module.resampled_correlations(judge, human, ("pearson", "spearman"), 10)
