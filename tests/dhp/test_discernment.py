import math
import warnings

import numpy as np
import pytest
from scipy import stats

from scorers.discernment import (
    BOOTSTRAP_SEED,
    P_FLOOR,
    Combination,
    ScoreRecord,
    combine_p_values,
    discernment,
    discernment_report,
    level_balanced_mean,
    resampled_items,
    wilcoxon_greater,
    wilcoxon_greater_resampled,
)
from solvers.reading.shapes import Reading


def test_wilcoxon_matches_scipy_one_sided():
    original = [4.2, 3.8, 5.0, 4.4, 3.0, 4.6, 4.0, 3.4]
    perturbed = [3.0, 3.9, 4.0, 2.2, 3.2, 4.0, 2.6, 3.0]
    expected = stats.wilcoxon(original, perturbed, alternative="greater").pvalue
    assert wilcoxon_greater(original, perturbed) == pytest.approx(expected)


def test_wilcoxon_hand_computed_all_higher():
    # Six positive differences with distinct ranks: the exact null puts 1 of 2^6 sign patterns at W+ = 21.
    assert wilcoxon_greater([5, 5, 5, 5, 5, 5], [4, 3, 2, 1.5, 1.2, 1.1]) == pytest.approx(1 / 64)


def test_wilcoxon_with_zero_differences_matches_scipy():
    original = [4, 4, 5, 3, 4, 5, 2, 4, 4, 5]
    perturbed = [4, 3, 5, 2, 4, 3, 2, 1, 3, 4]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = stats.wilcoxon(original, perturbed, alternative="greater").pvalue
    assert wilcoxon_greater(original, perturbed) == pytest.approx(expected)


def test_wilcoxon_all_tied_is_one_and_no_pairs_is_undefined_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert wilcoxon_greater([3, 3, 3, 3], [3, 3, 3, 3]) == 1.0
        assert math.isnan(wilcoxon_greater([], []))


def test_wilcoxon_perturbed_higher_gives_large_p():
    assert wilcoxon_greater([1, 1, 1, 1, 1], [2, 3, 4, 5, 2.5]) > 0.95


def test_wilcoxon_rejects_unpaired_lengths():
    with pytest.raises(ValueError, match="differ in length"):
        wilcoxon_greater([1, 2], [1])


def _scipy_method(differences: np.ndarray) -> str:
    """Which of its three computations scipy's ``method="auto"`` chooses for these differences."""
    untied = np.unique(np.abs(differences)).size == differences.size and np.all(differences != 0)
    if differences.size <= 50 and untied:
        return "exact"
    return "permutation" if differences.size <= 13 else "asymptotic"


def _judge_like_differences(rng: np.random.Generator, n: int, answers: int) -> np.ndarray:
    """Original minus perturbed mean ratings of ``answers`` whole-number answers on 1-5: ties and zeros abound."""
    original = rng.integers(2, 6, size=(n, answers)).mean(axis=1)
    return original - np.clip(original - rng.integers(-1, 3, size=(n, answers)).mean(axis=1), 1, 5)


@pytest.mark.parametrize("method", ["exact", "permutation", "asymptotic"])
def test_point_estimates_are_scipys_on_tied_samples_of_every_method(method):
    rng = np.random.default_rng(11)
    checked = 0
    while checked < 12:
        n = int(rng.integers(2, 14)) if method == "permutation" else int(rng.integers(14, 60))
        if method == "exact":
            differences = rng.normal(0.3, 1.0, n)
        else:
            differences = _judge_like_differences(rng, n, int(rng.choice([1, 3, 5])))
        if _scipy_method(differences) != method:
            continue
        pairs = [(5.0, 5.0 - d) for d in differences]
        assert wilcoxon_greater(*zip(*pairs, strict=True)) == pytest.approx(_p_value_by_scipy(pairs), rel=1e-12)
        checked += 1


def test_point_estimates_do_not_enumerate_sign_flips_with_scipy(monkeypatch):
    # scipy's permutation test over 2^13 sign flips took a second a call: a run's metric must not call it
    def refused(*args, **kwargs):
        raise AssertionError("scipy.stats.wilcoxon called")

    monkeypatch.setattr(stats, "wilcoxon", refused)
    rng = np.random.default_rng(3)
    originals = rng.integers(3, 6, 13).astype(float)
    records = _records(list(originals), {"typos": ("character", list(originals - rng.integers(0, 2, 13)))})
    report = discernment_report(records, ["m"], bootstrap_resamples=50)
    assert 0 < report.perturbations["typos"].p_values["m"] < 1
    assert not math.isnan(report.intervals["D/typos"].low)


def test_answers_repeated_to_one_prompt_are_read_once(monkeypatch):
    from scorers import dhp

    read = []

    def counted(text, *args):
        read.append(text)
        return Reading(int(text) if text.isdigit() else None)

    monkeypatch.setattr(dhp, "read_answer", counted)
    value, ratings = dhp.rating_value({"coherence": ["4", "4", "2", "4", "no idea"]}, 1, 5, {"coherence": "Rate it."})
    assert sorted(read) == ["2", "4", "no idea"]
    assert ratings["coherence"]["scores"] == [4, 4, 2, 4, None]
    assert (value["coherence"], value["parse_failures/coherence"], value["answers/coherence"]) == (3.5, 1.0, 5.0)


def test_harmonic_mean_p_value_default():
    assert combine_p_values({"a": 0.1, "b": 0.2, "c": 0.4}) == pytest.approx(3 / (10 + 5 + 2.5))
    assert combine_p_values({"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}) == 1.0


def test_paper_formula_is_reciprocal_sum():
    assert combine_p_values({"a": 0.1, "b": 0.2, "c": 0.4}, method="paper") == pytest.approx(1 / (10 + 5 + 2.5))
    # As printed, the formula gives M metrics with no signal p = 1/M.
    assert combine_p_values({"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}, method="paper") == pytest.approx(0.25)


def test_paper_expert_weighted_mean_normalises_votes():
    # votes 4,1,5 of 10 experts -> weights 0.4, 0.1, 0.5 (the paper's example)
    p = {"coherence": 0.01, "consistency": 0.5, "fluency": 0.02}
    votes = {"coherence": 4, "consistency": 1, "fluency": 5}
    expected = 1 / (0.4 / 0.01 + 0.1 / 0.5 + 0.5 / 0.02)
    assert combine_p_values(p, votes) == pytest.approx(expected)
    assert combine_p_values(p, votes, method="paper") == pytest.approx(expected)


def test_metrics_without_pairs_are_left_out_of_the_combination():
    with_missing = {"a": 0.1, "b": math.nan, "c": 0.4}
    assert combine_p_values(with_missing) == pytest.approx(2 / (10 + 2.5))
    # as printed, the paper's formula then sums over the two metrics that have a p-value
    assert combine_p_values(with_missing, method="paper") == pytest.approx(1 / (10 + 2.5))
    weights = {"a": 1.0, "b": 8.0, "c": 1.0}
    assert combine_p_values(with_missing, weights) == pytest.approx(combine_p_values({"a": 0.1, "c": 0.4}))
    assert math.isnan(combine_p_values({"a": math.nan, "b": math.nan}))
    assert math.isnan(combine_p_values({}))
    # all the weight on the metric without pairs: the weighted p-value is undefined, not 1
    assert math.isnan(combine_p_values({"a": 0.01, "b": math.nan}, {"a": 0.0, "b": 1.0}))


def test_single_metric_combination_is_identity():
    assert combine_p_values({"answer_quality": 0.03}) == pytest.approx(0.03)
    assert combine_p_values({"answer_quality": 0.03}, {"answer_quality": 10}) == pytest.approx(0.03)


def test_expert_weights_must_cover_metrics():
    with pytest.raises(ValueError, match="no entry for metric"):
        combine_p_values({"a": 0.1, "b": 0.2}, {"a": 1.0})
    with pytest.raises(ValueError, match="sum to zero"):
        combine_p_values({"a": 0.1}, {"a": 0.0})


def _wilson_null_rejection_rates(n_metrics: int, draws: int, alphas: tuple[float, ...]) -> list[float]:
    rng = np.random.default_rng(7)
    names = [f"m{j}" for j in range(n_metrics)]
    combined = np.array(
        [
            combine_p_values(dict(zip(names, row, strict=True)), method="wilson")
            for row in rng.uniform(size=(draws, n_metrics))
        ]
    )
    return [float(np.mean(combined < alpha)) for alpha in alphas]


def test_wilson_hmp_is_calibrated_under_the_null_for_many_tests():
    """Wilson's asymptotically exact HMP: for many independent null p-values, P(p < a) is close to a."""
    alphas = (0.05, 0.2, 0.5)
    for alpha, rate in zip(alphas, _wilson_null_rejection_rates(200, 3000, alphas), strict=True):
        assert rate == pytest.approx(alpha, abs=0.02)


def test_wilson_hmp_is_conservative_for_few_tests():
    alphas = (0.05, 0.2)
    for alpha, rate in zip(alphas, _wilson_null_rejection_rates(4, 4000, alphas), strict=True):
        assert alpha - 0.04 < rate <= alpha + 0.01


def test_wilson_is_never_more_significant_than_paper_formula_for_many_metrics():
    p = {"a": 0.01, "b": 0.02, "c": 0.5, "d": 0.9}
    assert combine_p_values(p, method="wilson") > combine_p_values(p, method="paper")
    assert combine_p_values(p, method="wilson") > combine_p_values(p, method="hmp")


def test_unknown_combination_is_an_error():
    with pytest.raises(ValueError, match="unknown p-value combination"):
        combine_p_values({"a": 0.1}, method="fisher")


def test_discernment_values():
    assert discernment(0.05) == pytest.approx(1.0)
    assert discernment(0.0025) == pytest.approx(2.0)
    assert discernment(1.0) == 0.0
    assert discernment(0.0) == pytest.approx(math.log(P_FLOOR) / math.log(0.05))
    assert math.isfinite(discernment(0.0))
    assert math.isnan(discernment(math.nan))


def test_level_balanced_mean_weights_levels_equally():
    values = {"c1": 1.0, "c2": 3.0, "w1": 2.0, "s1": 5.0, "s2": 1.0, "s3": 0.0}
    levels = {"c1": "character", "c2": "character", "w1": "word", "s1": "sentence", "s2": "sentence", "s3": "sentence"}
    assert level_balanced_mean(values, levels) == pytest.approx((2.0 + 2.0 + 2.0) / 3)


def test_level_balanced_mean_skips_undefined_values():
    values = {"c1": 1.0, "c2": math.nan, "w1": math.nan, "s1": 4.0}
    levels = {"c1": "character", "c2": "character", "w1": "word", "s1": "sentence"}
    assert level_balanced_mean(values, levels) == pytest.approx((1.0 + 4.0) / 2)
    assert math.isnan(level_balanced_mean({"w1": math.nan}, {"w1": "word"}))


def _records(
    original: list[float], perturbed: dict[str, tuple[str, list[float]]], metric: str = "m"
) -> list[ScoreRecord]:
    records = [ScoreRecord(f"i{i}", "original", None, {metric: score}) for i, score in enumerate(original)]
    for name, (level, scores) in perturbed.items():
        records += [ScoreRecord(f"i{i}", name, level, {metric: score}) for i, score in enumerate(scores)]
    return records


def test_report_constant_judge_gives_zero_everywhere():
    records = [
        ScoreRecord(f"i{i}", v, lvl, {"a": 3, "b": 3})
        for i in range(6)
        for v, lvl in (("original", None), ("typos", "character"), ("reorder", "sentence"))
    ]
    report = discernment_report(records, ["a", "b"])
    assert report.D_avg == 0.0 and report.D_min == 0.0 and report.D_avg_EW == 0.0 and report.D_min_EW == 0.0
    assert all(result.p_values == {"a": 1.0, "b": 1.0} for result in report.perturbations.values())


def test_report_pairs_only_complete_items_and_skips_nan():
    records = _records(
        [5, 5, 5, 5, 5, 5, 5],
        {"typos": ("character", [4, 3, 2, 1.5, 1.2, 1.1, math.nan])},
    )
    records.append(ScoreRecord("orphan", "typos", "character", {"m": 1.0}))
    report = discernment_report(records, ["m"])
    result = report.perturbations["typos"]
    assert result.n_pairs == {"m": 6}
    assert result.p_values["m"] == pytest.approx(1 / 64)
    assert report.D_avg == pytest.approx(math.log(1 / 64) / math.log(0.05))


def test_report_levels_and_expert_weights():
    strong = [4, 3, 2, 1.5, 1.2, 1.1]
    records = [ScoreRecord(f"i{i}", "original", None, {"a": 5, "b": 5}) for i in range(6)]
    records += [ScoreRecord(f"i{i}", "typos", "character", {"a": s, "b": 5}) for i, s in enumerate(strong)]
    records += [ScoreRecord(f"i{i}", "reorder", "sentence", {"a": 5, "b": 5}) for i in range(6)]
    weights = {"typos": {"a": 0.0, "b": 1.0}, "reorder": {"a": 1.0, "b": 1.0}}
    report = discernment_report(records, ["a", "b"], weights)
    typos = report.perturbations["typos"]
    assert typos.p == pytest.approx(2 / (64 + 1))
    assert typos.p_ew == pytest.approx(1.0)  # all weight on the metric the judge did not lower
    assert typos.D_ew == 0.0
    assert report.perturbations["reorder"].D == 0.0
    assert report.D_min == 0.0
    assert report.D_avg == pytest.approx(discernment(2 / 65) / 2)
    metrics = report.as_metrics()
    assert metrics["p/typos/a"] == pytest.approx(1 / 64)
    assert metrics["n_pairs/typos/b"] == 6
    assert set(metrics) >= {"D_avg", "D_min", "D_avg_EW", "D_min_EW", "D/typos", "D_EW/reorder"}


def test_report_with_no_records_is_undefined():
    report = discernment_report([], ["m"])
    assert report.perturbations == {}
    assert all(math.isnan(value) for value in (report.D_avg, report.D_min, report.D_avg_EW, report.D_min_EW))
    assert report.n_undefined == 0


def test_report_without_pairs_is_undefined_not_zero():
    """A judge whose answers never parse has no D at all; one that rates every pair equal has D = 0."""
    strong = [4, 3, 2, 1.5, 1.2, 1.1]
    records = [ScoreRecord(f"i{i}", "original", None, {"a": 5, "b": 5}) for i in range(6)]
    # typos: metric b never parsed for the perturbed copies
    records += [ScoreRecord(f"i{i}", "typos", "character", {"a": s, "b": math.nan}) for i, s in enumerate(strong)]
    # deletion: nothing parsed at all
    records += [ScoreRecord(f"i{i}", "deletion", "character", {"a": math.nan, "b": math.nan}) for i in range(6)]
    # reorder: every pair rated equal
    records += [ScoreRecord(f"i{i}", "reorder", "sentence", {"a": 5, "b": 5}) for i in range(6)]
    weights = {"typos": {"a": 0.0, "b": 1.0}, "deletion": {"a": 1.0, "b": 1.0}, "reorder": {"a": 1.0, "b": 1.0}}
    report = discernment_report(records, ["a", "b"], weights)

    typos = report.perturbations["typos"]
    assert typos.n_pairs == {"a": 6, "b": 0} and typos.n_metrics_without_pairs == 1
    assert typos.p == pytest.approx(1 / 64)  # b is left out, not entered as p = 1
    assert math.isnan(typos.p_values["b"])
    assert math.isnan(typos.D_ew)  # all expert weight on b, which has no pairs
    deletion = report.perturbations["deletion"]
    assert deletion.n_metrics_without_pairs == 2 and math.isnan(deletion.D) and math.isnan(deletion.D_ew)
    assert report.perturbations["reorder"].D == 0.0

    assert report.n_undefined == 1 and report.n_undefined_EW == 2
    # levels: character has only typos defined, sentence has reorder (D = 0)
    assert report.D_avg == pytest.approx((discernment(1 / 64) + 0.0) / 2)
    assert report.D_min == 0.0
    assert report.D_avg_EW == 0.0 and report.D_min_EW == 0.0
    metrics = report.as_metrics()
    assert metrics["n_undefined"] == 1 and metrics["n_undefined_EW"] == 2
    assert metrics["n_metrics_without_pairs/typos"] == 1 and metrics["n_metrics_without_pairs/deletion"] == 2
    assert math.isnan(metrics["D/deletion"]) and math.isnan(metrics["p/deletion/a"])


def test_report_with_every_perturbation_undefined_is_nan():
    records = [ScoreRecord("i0", "original", None, {"m": math.nan}), ScoreRecord("i0", "typos", "character", {"m": 2})]
    report = discernment_report(records, ["m"])
    assert report.n_undefined == 1
    assert all(math.isnan(value) for value in (report.D_avg, report.D_min, report.D_avg_EW, report.D_min_EW))


def test_report_requires_a_level_for_perturbed_records():
    with pytest.raises(ValueError, match="level must be one of"):
        discernment_report([ScoreRecord("i", "typos", None, {"m": 1.0})], ["m"])


def _p_value_by_scipy(pairs: list[tuple[float, float]]) -> float:
    """The point estimate's rule, written out with scipy: no pairs NaN, all pairs equal 1, otherwise scipy's p."""
    if not pairs:
        return math.nan
    original, perturbed = (np.array(side, dtype=float) for side in zip(*pairs, strict=True))
    if np.all(original == perturbed):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p_value = float(stats.wilcoxon(original, perturbed, alternative="greater").pvalue)
    return 1.0 if math.isnan(p_value) else p_value


def slow_bootstrap(
    records: list[ScoreRecord],
    metrics: list[str],
    expert_weights: dict[str, dict[str, float]],
    combine: Combination,
    n_resamples: int,
    seed: int,
) -> dict[str, list[float]]:
    """Every discernment score on every item resample, recomputed one resample, perturbation and metric at a time
    with scipy.stats.wilcoxon, the combination, D and the summaries. Resamples drawing the same items (in any order)
    are computed once: the scores do not depend on the order of the items."""
    originals = {r.item_id: r.scores for r in records if r.perturbation == "original"}
    perturbed: dict[str, dict[str, dict]] = {}
    levels = {}
    for record in records:
        if record.perturbation != "original":
            perturbed.setdefault(record.perturbation, {})[record.item_id] = record.scores
            levels[record.perturbation] = record.level

    def pair(item: str, name: str, metric: str) -> tuple[float, float] | None:
        scores = perturbed[name].get(item)
        if item not in originals or scores is None:
            return None
        original, changed = originals[item].get(metric, math.nan), scores.get(metric, math.nan)
        return None if math.isnan(original) or math.isnan(changed) else (original, changed)

    items = sorted({item for name in perturbed for item in perturbed[name] for m in metrics if pair(item, name, m)})

    def one_resample(drawn: tuple[int, ...]) -> dict[str, float]:
        d, d_ew = {}, {}
        for name in perturbed:
            p_values = {}
            for metric in metrics:
                pairs = [pair(items[i], name, metric) for i in drawn]
                p_values[metric] = _p_value_by_scipy([found for found in pairs if found is not None])
            weights = expert_weights.get(name) or dict.fromkeys(metrics, 1.0)
            d[name] = discernment(combine_p_values(p_values, None, combine))
            d_ew[name] = discernment(combine_p_values(p_values, weights, combine))
        scores = {}
        for suffix, values in (("", d), ("_EW", d_ew)):
            defined = [value for value in values.values() if not math.isnan(value)]
            scores[f"D_avg{suffix}"] = level_balanced_mean(values, levels)
            scores[f"D_min{suffix}"] = min(defined) if defined else math.nan
            scores.update({f"D{suffix}/{name}": value for name, value in values.items()})
        return scores

    computed: dict[tuple[int, ...], dict[str, float]] = {}
    resampled: dict[str, list[float]] = {}
    for draw in resampled_items(len(items), n_resamples, seed):
        key = tuple(sorted(int(i) for i in draw))
        if key not in computed:
            computed[key] = one_resample(key)
        for name, value in computed[key].items():
            resampled.setdefault(name, []).append(value)
    return resampled


def _graded_records() -> list[ScoreRecord]:
    """Four items, two metrics, three perturbations: ties, zero differences, one rating that did not parse, and a
    perturbation the judge barely notices."""
    original = {"a": [5, 4, 5, 4.5], "b": [4, 4, 5, 3.5]}
    perturbed = {
        ("typos", "character"): {"a": [3, 4, 2, 2.5], "b": [4, 3, math.nan, 2.5]},
        ("swap", "word"): {"a": [5, 4, 4.5, 4.5], "b": [4, 4.5, 5, 3]},
        ("reorder", "sentence"): {"a": [2, 3, 4, 2], "b": [1, 2, 2, 3]},
    }
    records = [ScoreRecord(f"i{i}", "original", None, {m: original[m][i] for m in original}) for i in range(4)]
    for (name, level), scores in perturbed.items():
        records += [ScoreRecord(f"i{i}", name, level, {m: scores[m][i] for m in scores}) for i in range(4)]
    return records


WEIGHTS = {"typos": {"a": 1.0, "b": 3.0}, "swap": {"a": 0.0, "b": 1.0}}


def median_centred_bounds(values, estimate: float) -> tuple[float, float]:
    """The 95 % percentile bounds moved by the estimate minus the resamples' median, kept within 0 and D's largest
    value (236.47, D of the smallest positive double), written out here apart from the scorer's code."""
    defined = np.asarray(values, dtype=float)
    defined = defined[np.isfinite(defined)]
    low, median, high = np.percentile(defined, [2.5, 50, 97.5])
    largest = math.log(np.finfo(float).tiny) / math.log(0.05)
    return max(0.0, estimate - (median - low)), min(largest, estimate + (high - median))


def test_centring_moves_the_percentiles_by_the_resamples_lean():
    from scorers.correlation import percentile_interval

    resampled = np.arange(100.0)  # median 49.5; 2.5th and 97.5th percentiles 2.475 and 96.525
    assert percentile_interval(resampled, 0.95) == pytest.approx((2.475, 96.525))
    assert percentile_interval(resampled, 0.95, centre=49.5) == pytest.approx((2.475, 96.525))
    # the resamples lean 30 above the estimate: the interval keeps its arms (47.025 below, 47.025 above) around 19.5
    assert percentile_interval(resampled, 0.95, centre=19.5) == pytest.approx((-27.525, 66.525))
    # 50 zeros and 1, 4, ..., 2500: median 0.5, 2.5th percentile 0, 97.5th 2209 + 0.525 * (2304 - 2209) = 2258.875
    skewed = np.concatenate([np.zeros(50), np.arange(1.0, 51.0) ** 2])
    assert percentile_interval(skewed, 0.95, centre=10.0) == pytest.approx((9.5, 2268.375))


def test_d_intervals_stay_within_the_range_of_d():
    from scorers.discernment import MAX_DISCERNMENT, bootstrap_interval

    interval = bootstrap_interval(np.arange(100.0), 19.5, n_items=10, n_resamples=100)
    assert (interval.low, interval.high) == pytest.approx((0.0, 66.525))
    assert (
        bootstrap_interval(np.arange(100.0) + 200, 230.0, 10, 100).high
        == MAX_DISCERNMENT
        == pytest.approx(236.4685, abs=1e-4)
    )


def test_item_bootstrap_equals_a_slow_loop_over_the_same_resamples():
    records = _graded_records()
    report = discernment_report(records, ["a", "b"], WEIGHTS, bootstrap_resamples=300, bootstrap_seed=3)
    slow = slow_bootstrap(records, ["a", "b"], WEIGHTS, "hmp", 300, 3)
    assert set(report.resampled) == set(slow) == set(report.discernment_scores())
    for name, values in slow.items():
        assert report.resampled[name].tolist() == pytest.approx(values, rel=1e-12, nan_ok=True), name
        low, high = median_centred_bounds(values, report.discernment_scores()[name])
        assert (report.intervals[name].low, report.intervals[name].high) == pytest.approx((low, high), rel=1e-12)
    assert len(set(slow["D/typos"])) > 5  # the resamples do differ


def _counts(draws: np.ndarray, n_items: int) -> np.ndarray:
    counts = np.zeros((len(draws), n_items))
    np.add.at(counts, (np.arange(len(draws))[:, None], draws), 1.0)
    return counts


@pytest.mark.parametrize(
    ("differences", "draws"),
    [
        # 20 distinct items of 30 untied differences: scipy's exact distribution beyond 13 pairs
        (
            np.linspace(0.3, -0.1, 30) + np.arange(30) * 1e-3,
            [np.random.default_rng(b).permutation(30)[:20] for b in range(8)],
        ),
        # ties and zeros in up to 7 pairs: scipy's permutation test
        (np.array([1.0, 0.5, 0.0, 1.0, -0.5, 2.0, math.nan, 1.5]), resampled_items(8, 8, seed=1)),
        # about 60 pairs: scipy's normal approximation with the tie correction
        (np.tile([1.0, 0.5, 0.0, -0.5, 2.0, math.nan], 12), resampled_items(72, 8, seed=1)),
    ],
    ids=["exact", "permutation", "asymptotic"],
)
def test_resampled_p_values_are_scipys(differences, draws):
    expected = [_p_value_by_scipy([(d, 0.0) for d in differences[draw] if not math.isnan(d)]) for draw in draws]
    counts = _counts(np.array(draws), len(differences))
    assert wilcoxon_greater_resampled(differences, counts).tolist() == pytest.approx(expected, rel=1e-12)


def test_interval_holds_the_d_of_a_clearly_discerning_judge():
    rng = np.random.default_rng(0)
    original = rng.integers(4, 6, 25).astype(float)
    records = [ScoreRecord(f"i{i:02d}", "original", None, {"m": s}) for i, s in enumerate(original)]
    for name, level, drop in (("typos", "character", 1.0), ("reorder", "sentence", 1.5)):
        damaged = original - rng.choice([0.0, drop, 2 * drop], size=25, p=[0.2, 0.4, 0.4])
        records += [ScoreRecord(f"i{i:02d}", name, level, {"m": s}) for i, s in enumerate(damaged)]
    report = discernment_report(records, ["m"])
    for name, score in report.discernment_scores().items():
        interval = report.intervals[name]
        assert score > 1 and interval.low <= score <= interval.high and interval.reason is None, (name, interval)
    metrics = report.as_metrics()
    assert metrics["D_ci_low/typos"] == report.intervals["D/typos"].low
    assert {"D_avg_ci_high", "D_min_ci_low", "D_avg_EW_ci_low", "D_EW_ci_high/reorder"} <= set(metrics)


def test_intervals_of_degenerate_data():
    one_item = [ScoreRecord("i0", "original", None, {"m": 5.0}), ScoreRecord("i0", "typos", "character", {"m": 2})]
    report = discernment_report(one_item, ["m"])
    assert report.D_avg == pytest.approx(discernment(0.5))  # one pair gives a D; an interval needs two items
    interval = report.intervals["D_avg"]
    assert math.isnan(interval.low) and math.isnan(interval.high) and "1 item(s) with a pair" in str(interval.reason)
    assert report.undefined_intervals() == {}  # plain from the data, and how every run in progress starts

    constant = [
        ScoreRecord(f"i{i}", v, lvl, {"m": 3.0})
        for i in range(5)
        for v, lvl in (("original", None), ("typos", "character"))
    ]
    bounds = discernment_report(constant, ["m"]).as_metrics()
    assert (bounds["D_ci_low/typos"], bounds["D_ci_high/typos"], bounds["D_avg_ci_low"]) == (0.0, 0.0, 0.0)

    unparsed = [
        ScoreRecord(f"i{i}", v, lvl, {"m": math.nan})
        for i in range(5)
        for v, lvl in (("original", None), ("typos", "character"))
    ]
    assert all(
        math.isnan(value) for name, value in discernment_report(unparsed, ["m"]).as_metrics().items() if "_ci_" in name
    )

    # a perturbation only one of twenty items has: most resamples have no pair for it
    sparse = _records([5.0] * 20, {"typos": ("character", [1.0] * 20)})
    sparse += [ScoreRecord("i0", "reorder", "sentence", {"m": 1.0})]
    report = discernment_report(sparse, ["m"])
    assert not math.isnan(report.perturbations["reorder"].D) and math.isnan(report.intervals["D/reorder"].low)
    assert "of the item resamples draw no item with a pair" in str(report.intervals["D/reorder"].reason)
    assert not math.isnan(report.intervals["D/typos"].low)
    assert list(report.undefined_intervals().values()) == [["D/reorder", "D_EW/reorder"]]

    off = discernment_report(_graded_records(), ["a", "b"], bootstrap_resamples=0)
    assert off.resampled == {} and math.isnan(off.intervals["D_avg"].low)


def test_intervals_are_seeded():
    records = _graded_records()
    first, again = (discernment_report(records, ["a", "b"], WEIGHTS).as_metrics() for _ in range(2))
    other = discernment_report(records, ["a", "b"], WEIGHTS, bootstrap_seed=BOOTSTRAP_SEED + 1).as_metrics()
    bounds = [name for name in first if "_ci_" in name]
    assert [first[name] for name in bounds] == [again[name] for name in bounds]
    assert [first[name] for name in bounds] != [other[name] for name in bounds]
