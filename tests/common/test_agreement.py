"""Krippendorff's alpha and Pearson agreement, checked against cases computed by hand."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest

from scorers.agreement import (
    NO_DISAGREEMENT,
    UNDEFINED_RESAMPLES,
    agreement_report,
    alpha_interval,
    alpha_resamples,
    interval_alpha,
    item_weighted_alpha,
    mean_pairwise_pearson,
    pairwise_alpha,
    pearson,
    pearson_with_each,
    weighted_interval_alpha,
)
from scorers.discernment import resampled_items


def test_alpha_two_raters_by_hand():
    # alpha = 1 - D_o / D_e with the interval metric (c - k)^2.
    # Units (1,1), (2,2), (3,4): n = 6 pairable values. Observed: only unit 3 disagrees, its two ordered
    # pairs give 2 * 1^2 / (m_u - 1 = 1) = 2, so D_o = 2 / 6.
    # Expected: all 6 values {1,1,2,2,3,4}; sum over ordered pairs of (v_i - v_j)^2 = 2 (n sum v^2 - (sum v)^2)
    # = 2 (6 * 35 - 13^2) = 82, so D_e = 82 / (6 * 5). alpha = 1 - (1/3) / (82/30) = 36/41.
    result = interval_alpha([[1, 2, 3], [1, 2, 4]])
    assert result.value == pytest.approx(36 / 41, abs=1e-12)
    assert result.reason is None and result.n_items == 3


def test_alpha_three_raters_with_missing_scores_by_hand():
    # Units: (1,1), (2,3,2), (3,3), (4,5) and a unit with one score only (not pairable, left out).
    # n = 9. Observed: unit 2 has m_u = 3; its ordered pairs give (1+1+0+0+1+1)/2 = 2; unit 4 gives 2 * 1 = 2.
    # D_o = 4/9. Expected: values {1,1,2,3,2,3,3,4,5}, sum 24, sum of squares 78:
    # 2 (9 * 78 - 24^2) = 252 over n(n-1) = 72 gives D_e = 3.5. alpha = 1 - (4/9) / 3.5 = 55/63.
    ratings = [
        [1, 2, None, 4, 1],
        [1, 3, 3, None, None],
        [None, 2, 3, 5, math.nan],
    ]
    result = interval_alpha(ratings)
    assert result.value == pytest.approx(55 / 63, abs=1e-12)
    assert result.n_items == 4


def test_alpha_perfect_agreement_is_one():
    assert interval_alpha([[1, 3, 5, 2], [1, 3, 5, 2], [1, 3, 5, 2]]).value == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("ratings", "reason"),
    [
        ([[1, 2, 3]], "two raters"),
        ([[1, None, None], [None, 2, None]], "no item has scores from two raters"),
        ([[4, 4, 4], [4, 4, None]], "same value"),
    ],
)
def test_alpha_undefined_cases_are_nan_with_reason(ratings, reason):
    result = interval_alpha(ratings)
    assert math.isnan(result.value)
    assert reason in result.reason


def test_ragged_ratings_are_rejected():
    with pytest.raises(ValueError, match="one entry per item"):
        interval_alpha([[1, 2, 3], [1, 2]])


def test_pearson_by_hand_and_missing_pairs():
    assert pearson([1, 2, 3], [2, 4, 6]).value == pytest.approx(1.0)
    assert pearson([1, 2, 3], [3, 2, 1]).value == pytest.approx(-1.0)
    # x = (1, 2, 3), y = (1, 3, 2): deviations (-1, 0, 1) and (-1, 1, 0); r = 1 / (sqrt 2 * sqrt 2) = 0.5
    result = pearson([1, 2, 3, 5], [1, 3, 2, None])
    assert result.value == pytest.approx(0.5)
    assert result.n_items == 3


def test_constant_judge_gives_nan_with_reason_not_a_crash():
    judge = [3, 3, 3, 3]
    annotators = {"A01": [1, 2, 3, 4], "A02": [2, 2, 3, 5]}
    correlations = pearson_with_each(judge, annotators)
    assert all(math.isnan(agreement.value) for agreement in correlations.values())
    assert "first rater gives every shared item the same score" in correlations["A01"].reason
    report = agreement_report(annotators, judge)
    assert not math.isnan(report["alpha/with_judge"].value)
    assert math.isnan(report["pearson/annotator/A02"].value)
    assert pearson([1, None], [2, 3]).reason.startswith("1 item(s)")


def test_report_names_and_pairwise_mean():
    annotators = {"A01": [1, 2, 3], "A02": [2, 4, 6], "A03": [3, 2, 1]}
    # pairs: (A01, A02) = 1, (A01, A03) = -1, (A02, A03) = -1
    assert mean_pairwise_pearson(annotators).value == pytest.approx(-1 / 3)
    report = agreement_report(annotators, judge=[1, 2, 3])
    pairs = ["judge/A01", "judge/A02", "judge/A03", "A01/A02", "A01/A03", "A02/A03"]
    assert set(report) == {
        "alpha/annotators",
        "alpha/with_judge",
        "pearson/annotator_pairs",
        "pearson/annotator/A01",
        "pearson/annotator/A02",
        "pearson/annotator/A03",
        "pearson/judge_vs_annotators",
        *(f"alpha/pair/{pair}" for pair in pairs),
    }
    assert report["pearson/annotator/A03"].value == pytest.approx(-1.0)
    # the judge equals A01: r = 1 with A01 and A02, -1 with A03 (Table 10's "LLM vs. HUE" is their mean)
    assert report["pearson/judge_vs_annotators"].value == pytest.approx(1 / 3)
    assert report["alpha/with_judge"].value == pytest.approx(interval_alpha([*annotators.values(), [1, 2, 3]]).value)


def _package_alpha(first, second) -> float:
    """The ``krippendorff`` package on two raters, the independent reference for the pair metrics."""
    data = [[math.nan if value is None else value for value in rater] for rater in (first, second)]
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="interval"))


def test_pair_alphas_of_three_raters_by_hand_and_by_the_package():
    annotators = {"B": [1, 2, 4, 3], "A": [1, 2, 3, None]}  # given out of order: names follow sorted ids
    judge = [2, 2, 3, 5]
    pairs = pairwise_alpha(annotators, judge)
    assert list(pairs) == ["alpha/pair/judge/A", "alpha/pair/judge/B", "alpha/pair/A/B"]
    # A/B: units (1,1), (2,2), (3,4), the fourth unit unpaired: the two-rater case above by hand, 36/41
    assert pairs["alpha/pair/A/B"].value == pytest.approx(36 / 41, abs=1e-12)
    assert pairs["alpha/pair/A/B"].n_items == 3
    assert pairs["alpha/pair/judge/A"].value == pytest.approx(_package_alpha(judge, annotators["A"]), abs=1e-12)
    assert pairs["alpha/pair/judge/B"].value == pytest.approx(_package_alpha(judge, annotators["B"]), abs=1e-12)
    assert all(pair.reason is None for pair in pairs.values())
    assert list(pairwise_alpha(annotators)) == ["alpha/pair/A/B"]  # without a judge: the annotator pairs


def test_pair_alpha_of_a_constant_rater_is_nan_with_reason_only_beside_the_same_constant():
    annotators = {"A01": [1, 2, 3, 4], "A02": [4, 4, 4, 4], "A03": [4, 4, None, 4]}
    pairs = pairwise_alpha(annotators, judge=[None, None, None, None])
    assert math.isnan(pairs["alpha/pair/A02/A03"].value)
    assert pairs["alpha/pair/A02/A03"].reason == NO_DISAGREEMENT
    # a constant rater beside one that varies: defined, and no better than chance
    assert pairs["alpha/pair/A01/A02"].value == pytest.approx(_package_alpha([1, 2, 3, 4], [4, 4, 4, 4]))
    assert pairs["alpha/pair/A01/A02"].value < 0
    assert math.isnan(pairs["alpha/pair/judge/A01"].value)  # a judge that scored nothing yet
    assert pairs["alpha/pair/judge/A01"].reason == "no item has scores from two raters"


def test_an_annotator_named_like_the_judge_is_refused():
    with pytest.raises(ValueError, match="may not be named 'judge'"):
        pairwise_alpha({"judge": [1, 2], "A01": [1, 2]}, judge=[1, 2])


# --- the item-bootstrap interval of alpha ------------------------------------------------------------------------

RATERS = np.array(
    [
        [1, 2, 4, 4, 5, 5, 2, 3, 3, 1, 4, 5, 2, 2],
        [1, 3, 4, 5, 5, 4, 2, 2, 3, 2, 5, 5, np.nan, np.nan],
        [2, 2, 3, 4, 4, 5, 3, 3, 2, 1, 4, 4, np.nan, np.nan],
    ]
)
"""Three raters of 7 items x 2 criteria (units item-major); the last item has one score per unit: not pairable."""
UNIT_ITEMS = np.repeat(np.arange(7), 2)


def test_alpha_resamples_draw_items_with_all_their_units_as_the_package_computes_alpha():
    resampled, n_items = alpha_resamples(RATERS, UNIT_ITEMS, n_resamples=200)
    assert n_items == 6  # item 6 has no unit with two scores: it is never drawn
    # independently: the package's alpha on the units of the drawn items, replicated as often as each is drawn
    for row, drawn in enumerate(resampled_items(6, 200)):
        columns = np.concatenate([np.flatnonzero(UNIT_ITEMS == item) for item in drawn])
        expected = krippendorff.alpha(reliability_data=RATERS[:, columns], level_of_measurement="interval")
        assert resampled[row] == pytest.approx(expected, abs=1e-12)


def test_item_weights_act_as_the_same_weight_on_each_of_the_items_units():
    weights = np.random.default_rng(0).integers(0, 3, (20, 7)).astype(float)
    by_item = item_weighted_alpha(RATERS, UNIT_ITEMS, 7)(weights)
    by_unit = weighted_interval_alpha(RATERS, weights[:, UNIT_ITEMS])
    assert np.isfinite(by_unit).all() and by_item == pytest.approx(by_unit, abs=1e-12)


def test_alpha_interval_is_the_bootstrap_interval_of_those_resamples():
    resampled, _ = alpha_resamples(RATERS, UNIT_ITEMS)
    estimate = interval_alpha(RATERS).value
    low, median, high = np.quantile(resampled, [0.025, 0.5, 0.975])
    interval = alpha_interval(RATERS, UNIT_ITEMS)
    assert interval.reason is None
    # the percentiles moved by the estimate minus the resamples' median
    assert interval.low == pytest.approx(estimate - (median - low), abs=1e-12)
    assert interval.high == pytest.approx(min(estimate + (high - median), 1.0), abs=1e-12)
    # near-perfect agreement: the moved upper bound would pass 1, alpha's largest value
    close = np.vstack([RATERS[0, :12], RATERS[0, :12], RATERS[0, :12] + (np.arange(12) == 3)])
    assert alpha_interval(close, UNIT_ITEMS[:12]).high == 1.0


def test_alpha_interval_is_nan_with_the_reason():
    same = alpha_interval([[3, 3, 3, 3], [3, 3, 3, 3]], [0, 0, 1, 1])
    assert math.isnan(same.low) and same.reason == f"alpha itself is undefined: {NO_DISAGREEMENT}"
    one_item = alpha_interval([[1, 5, 2], [2, 4, None]], [0, 0, 1])
    assert math.isnan(one_item.high) and one_item.reason == "1 item(s) with two scores; the item bootstrap needs 2"
    # one item of ten varies: a resample without it (about 35 % of them) has no disagreement
    rare = alpha_interval([[1] + [3] * 9, [5] + [3] * 9], list(range(10)))
    assert math.isnan(rare.low) and math.isnan(rare.high)
    share = np.mean([0 not in drawn for drawn in resampled_items(10, 1000)])
    assert 0.3 < share < 0.4 and rare.reason == f"{share:.1%} {UNDEFINED_RESAMPLES} (at most 1% may)"
    with pytest.raises(ValueError, match="3 unit items for 4 units"):
        alpha_interval([[1, 2, 3, 4], [1, 2, 3, 5]], [0, 1, 2])
