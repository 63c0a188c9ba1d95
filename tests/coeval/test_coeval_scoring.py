"""CoEval criterion-level scoring: public items, prompts, the agreement metric, and real inspect runs."""

from __future__ import annotations

import json
import math
import re

import krippendorff
import numpy as np
import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import SampleScore, Score
from scipy import stats

from coeval_tasks import data
from coeval_tasks.definition import COEVAL_SCORING
from coeval_tasks.scoring import custom, eli5, scoring_task
from judge_data import DataError
from judge_data.options import OptionError
from scorers.agreement import alpha_interval
from scorers.coeval import coeval_agreement
from solvers.stepwise import OVERALL, scoring_turns
from tests.coeval.test_coeval_criteria import DATASETS, coeval_folder, served_public_copy
from tests.support.fake_judge import constant, reads_conversation
from tests.support.inspect_runs import eval_command, eval_in_process, metrics_of, run_command

# --- data -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dataset", DATASETS)
def test_public_items_are_the_shared_folders_items(dataset, tmp_path, monkeypatch):
    with served_public_copy(dataset, tmp_path, monkeypatch):
        public = data.load_human_scores(dataset)
    local = data.load_human_scores(dataset, coeval_folder(dataset))
    assert len(public.items) == 200
    assert public.items == local.items  # ids, texts, means, annotator scores and ids, ChatGPT's drafts in meta
    assert public.criteria == local.criteria
    assert public.task_description == local.task_description
    assert public.source == f"qtli/CoEval@{data.COEVAL_COMMIT}"
    assert all(data.LLM_ANNOTATOR not in item.annotator_ids for item in public.items)


# --- prompts ----------------------------------------------------------------------------------------------------


def test_step_by_step_asks_each_criterion_then_overall_and_direct_asks_once():
    source = data.load_human_scores("rocstories", coeval_folder("rocstories"))
    turns = scoring_turns("step_by_step", "Task: T\n\nInput:\nI\n\nOutput:\nO", source.criteria, 1, 5)
    assert [key for key, _ in turns] == [c.name for c in source.criteria] + [OVERALL]
    first, *middle, last = (text for _, text in turns)
    assert first.startswith("Task: T\n\nInput:\nI\n\nOutput:\nO\n\n") and "7 criteria" in first
    assert "Criterion: Clarity: The story should be clear" in first  # the list number is dropped
    assert all(text.startswith("Criterion: ") and "Output:" not in text for text in middle)
    assert all("explain" in text and '"Score: <number>"' in text for text in [first, *middle])
    assert "overall quality" in last and '"Overall score: <number>"' in last
    [(key, direct)] = scoring_turns("direct", "OPENING", source.criteria, 1, 5)
    assert key == OVERALL and direct.startswith("OPENING\n\n") and "Criterion" not in direct


# --- the metric on hand-made scores -----------------------------------------------------------------------------

JUDGE = [{"a": 1, "b": 2, OVERALL: 1}, {"a": 3, "b": 3, OVERALL: 4}, {"a": 4, "b": math.nan, OVERALL: 4}]
HUMAN = [{"a": 1.5, "b": 2.0}, {"a": 3.0, "b": 4.0}, {"a": 4.5, "b": 4.0}]
ANNOTATORS = [{"a": [1, 2], "b": [2, 2]}, {"a": [3, 3], "b": [4, 4]}, {"a": [4, 5], "b": [3, 5]}]


def _hand_scores() -> list[SampleScore]:
    scores = []
    for judge, human, annotators in zip(JUDGE, HUMAN, ANNOTATORS, strict=True):
        overall_by_annotator = [np.mean([annotators["a"][i], annotators["b"][i]]) for i in range(2)]
        scores.append(
            SampleScore(
                score=Score(value={**judge, "parse_failures": float(math.isnan(judge["b"]))}),
                sample_metadata={
                    "human": {**human, OVERALL: (human["a"] + human["b"]) / 2},
                    "annotators": {**annotators, OVERALL: overall_by_annotator},
                    "annotator_ids": ["X", "Y"],
                },
            )
        )
    return scores


def test_metric_against_scipy_and_the_krippendorff_package():
    report = coeval_agreement(["a", "b"])(_hand_scores())
    assert report["pearson/a"] == pytest.approx(stats.pearsonr([1, 3, 4], [1.5, 3.0, 4.5]).statistic)
    assert report["spearman/a"] == pytest.approx(1.0)
    assert report["n/b"] == 2 and math.isnan(report["pearson/b"])  # the unparsed score drops out: 2 pairs
    assert report["pearson/overall"] == pytest.approx(stats.pearsonr([1, 4, 4], [1.75, 3.5, 4.25]).statistic)
    # three pairs: many resamples repeat one item, have no correlation, and so the interval is NaN
    assert math.isnan(report["pearson_ci_low/a"]) and math.isnan(report["pearson_ci_high/a"])
    # criterion level: units (item, criterion) in item order, a then b; the judge's NaN is a missing value
    annotators = [[1, 2, 3, 4, 4, 3], [2, 2, 3, 4, 5, 5]]
    judge = [1, 2, 3, 3, 4, np.nan]
    alpha = krippendorff.alpha(reliability_data=annotators, level_of_measurement="interval")
    with_judge = krippendorff.alpha(reliability_data=[*annotators, judge], level_of_measurement="interval")
    assert report["alpha/annotators"] == pytest.approx(alpha)
    assert report["alpha/with_judge"] == pytest.approx(with_judge)
    assert report["pearson/annotator/X"] == pytest.approx(stats.pearsonr(judge[:5], annotators[0][:5]).statistic)
    overall_x, overall_y = [1.5, 3.5, 3.5], [2.0, 3.5, 5.0]
    assert report["alpha/with_judge/overall"] == pytest.approx(
        krippendorff.alpha(reliability_data=[overall_x, overall_y, [1, 4, 4]], level_of_measurement="interval")
    )
    assert report["pearson/annotator/Y/overall"] == pytest.approx(stats.pearsonr([1, 4, 4], overall_y).statistic)
    assert report["parse_failures"] == 1
    # alpha's interval resamples the items, each with both its criterion units (units 0-1 are item 0, ...)
    for name, raters, items in [
        ("annotators", annotators, [0, 0, 1, 1, 2, 2]),
        ("with_judge", [*annotators, judge], [0, 0, 1, 1, 2, 2]),
        ("with_judge/overall", [overall_x, overall_y, [1, 4, 4]], [0, 1, 2]),
    ]:
        interval = alpha_interval(raters, items)
        assert report[f"alpha_ci_low/{name}"] == interval.low and report[f"alpha_ci_high/{name}"] == interval.high
        assert interval.low < report[f"alpha/{name}"] < interval.high


def test_direct_metric_has_no_criterion_correlations_and_copes_with_unscored_samples():
    scores = _hand_scores()
    scores.append(SampleScore(score=Score(value=math.nan), sample_metadata=None))  # not scored yet
    report = coeval_agreement(["a", "b"], criterion_scores=False)(scores)
    assert not {"pearson/a", "pearson/b", "spearman/a", "n/a", "pearson_ci_low/b"} & set(report)
    assert "alpha/with_judge" not in report and "alpha/annotators" in report
    assert {"pearson/overall", "alpha/with_judge/overall", "pearson/judge_vs_annotators/overall"} <= set(report)
    intervals = {name for name in report if name.startswith("alpha_ci_")}
    assert intervals == {
        f"alpha_ci_{side}/{name}" for side in ("low", "high") for name in ("annotators", *ALPHA_OVERALL)
    }


ALPHA_OVERALL = ("annotators/overall", "with_judge/overall")


def _package_alpha(*raters: list[float]) -> float:
    return float(krippendorff.alpha(reliability_data=list(raters), level_of_measurement="interval"))


def test_pair_alphas_on_partial_results_in_both_modes():
    scores = _hand_scores()
    only_y = {"a": [2], "b": [3], OVERALL: [2.5]}  # an item only annotator Y scored
    scores.append(
        SampleScore(
            score=Score(value={"a": 2, "b": 3, OVERALL: 2}),
            sample_metadata={"human": {"a": 2.0, "b": 3.0, OVERALL: 2.5}, "annotators": only_y, "annotator_ids": ["Y"]},
        )
    )
    scores.append(SampleScore(score=Score(value=math.nan), sample_metadata=None))  # not scored yet
    report = coeval_agreement(["a", "b"])(scores)
    # units (item, criterion), a then b; X did not score the fourth item, the judge left one score unparsed
    x, y = [1, 2, 3, 4, 4, 3, np.nan, np.nan], [2, 2, 3, 4, 5, 5, 2, 3]
    judge = [1, 2, 3, 3, 4, np.nan, 2, 3]
    assert report["alpha/pair/judge/X"] == pytest.approx(_package_alpha(judge, x), abs=1e-12)
    assert report["alpha/pair/judge/Y"] == pytest.approx(_package_alpha(judge, y), abs=1e-12)
    assert report["alpha/pair/X/Y"] == pytest.approx(_package_alpha(x, y), abs=1e-12)
    assert report["alpha/pair/judge/Y/overall"] == pytest.approx(
        _package_alpha([1, 4, 4, 2], [2.0, 3.5, 5.0, 2.5]), abs=1e-12
    )
    direct = coeval_agreement(["a", "b"], criterion_scores=False)(scores)
    pairs = [name for name in direct if name.startswith("alpha/pair/")]
    assert pairs == ["alpha/pair/X/Y", *(f"alpha/pair/{p}/overall" for p in ("judge/X", "judge/Y", "X/Y"))]
    assert direct["alpha/pair/X/Y"] == report["alpha/pair/X/Y"]


PAPER_MATRIX = {
    "alpha/pair/judge/A08": 0.756,
    "alpha/pair/judge/A09": 0.756,
    "alpha/pair/judge/A10": 0.749,
    "alpha/pair/A08/A09": 0.967,
    "alpha/pair/A08/A10": 0.959,
    "alpha/pair/A09/A10": 0.968,
}
"""The cells of the agreement matrix the paper prints as Figure 5 that the released annotations reproduce: its A3-A5
are ROCStories' A08-A10 and its LLM is ChatGPT. Its A1 and A2 (0.499 and 0.474 with ChatGPT, 0.881 together) match
no pair of the released data; ROCStories' A06 and A07 give 0.715, 0.704 and 0.887."""


def test_pair_alphas_reproduce_the_papers_matrix_on_rocstories():
    source = data.load_human_scores("rocstories", coeval_folder("rocstories"))
    drafts = {item.id: item.meta["llm_initial_scores_chatgpt"] for item in source.items}  # ChatGPT as the judge
    scores = [
        SampleScore(score=Score(value=dict(drafts[str(sample.id)])), sample_metadata=sample.metadata)
        for sample in scoring_task(source).dataset
    ]
    report = coeval_agreement([criterion.name for criterion in source.criteria])(scores)
    assert {name: round(report[name], 3) for name in PAPER_MATRIX} == PAPER_MATRIX


# --- the real inspect eval command against stand-in judges ------------------------------------------------------


def _criterion_names(dataset: str) -> dict[str, str]:
    """Criterion text as the prompt shows it (no list number) -> name."""
    document = json.loads((coeval_folder(dataset) / "criteria.json").read_text(encoding="utf-8"))
    return {re.sub(r"^\d+\.\s*", "", c["original_name"]).strip(): c["name"] for c in document["criteria"]}


def human_mean_judge(dataset: str):
    """Finds the item by its response (first message) and answers the human mean of what the last message asks."""
    source = data.load_human_scores(dataset, coeval_folder(dataset))
    names = _criterion_names(dataset)

    @reads_conversation
    def answer(messages: list[dict]) -> str:
        first, last = messages[0]["content"], messages[-1]["content"]
        [item] = [item for item in source.items if f"\n\nOutput:\n{item.response}\n\n" in first]
        asked = re.search(r"Criterion: (.*?)\n\n", last)
        if asked:
            value = item.human[names[asked.group(1)]]
            return f"Explanation: the annotators would agree.\nScore: {value:g}"
        return f"All considered.\nOverall score: {np.mean(list(item.human.values())):g}"

    return answer


@pytest.mark.integration
def test_judge_answering_the_human_mean_agrees_fully(tmp_path):
    log, calls = eval_in_process(
        "coeval_tasks/eli5", human_mean_judge("eli5"), tmp_path, f"data_dir={coeval_folder('eli5')}", "n=10"
    )
    metrics = metrics_of(log)
    criteria = list(log.eval.metadata["criteria"])
    assert len(criteria) == 5
    for key in [*criteria, OVERALL]:
        assert metrics[f"pearson/{key}"] == pytest.approx(1.0, abs=1e-9)
        assert metrics[f"spearman/{key}"] == pytest.approx(1.0, abs=1e-9)
        assert metrics[f"n/{key}"] == 10
    assert metrics["alpha/with_judge"] >= metrics["alpha/annotators"]
    assert metrics["alpha/with_judge/overall"] >= metrics["alpha/annotators/overall"]
    assert {f"pearson/annotator/A0{i}" for i in range(1, 6)} <= set(metrics)
    assert metrics["parse_failures"] == 0
    assert log.eval.task_version == COEVAL_SCORING.version and log.eval.metadata["mode"] == "step_by_step"
    # one conversation per item: 5 criteria then overall, each request carrying the whole history
    assert len(calls) == 10 * 6
    assert sorted(len(call["messages"]) for call in calls) == sorted([1, 3, 5, 7, 9, 11] * 10)
    last = max(calls, key=lambda call: len(call["messages"]))
    roles = [message["role"] for message in last["messages"]]
    assert roles == ["user", "assistant"] * 5 + ["user"]
    assert all(message["content"].startswith("Explanation:") for message in last["messages"][1:10:2])
    sample = log.samples[0]
    assert len(sample.messages) == 12
    assert set(sample.store["judge_samples"]) == {*criteria, OVERALL}


@pytest.mark.integration
def test_constant_judge_gives_nan_with_reason_not_a_crash(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # keep rich from wrapping the warnings
    command = eval_command("coeval_tasks/rocstories", f"data_dir={coeval_folder('rocstories')}", "n=5")
    result, _ = run_command(command, constant("It is fine.\nScore: 3"), tmp_path)
    log = read_eval_log(str(next((tmp_path / "logs").glob("*.json"))))
    assert log.status == "success"
    metrics = metrics_of(log)
    with_judge = {
        name: value
        for name, value in metrics.items()
        if name.startswith(("pearson/", "spearman/")) and "annotator_pairs" not in name  # humans alone: defined
    }
    assert len(with_judge) == 2 * (7 + 1) + 2 * (5 + 1)  # per criterion and overall; per annotator and their mean
    assert all(math.isnan(value) for value in with_judge.values()), with_judge
    assert not math.isnan(metrics["pearson/annotator_pairs"])
    assert not math.isnan(metrics["alpha/with_judge"]) and not math.isnan(metrics["alpha/annotators"])
    assert metrics["parse_failures"] == 0
    output = result.stdout + result.stderr
    assert "correlation for overall is undefined (NaN): the judge gave every item the same score (3)" in output
    assert "pearson/annotator/A06 is undefined (NaN): the judge gives every shared item the same score" in output
    assert "Traceback" not in output


@pytest.mark.integration
def test_direct_mode_asks_once_per_item(tmp_path):
    log, calls = eval_in_process(
        "coeval_tasks/custom",
        human_mean_judge("self_instruct"),
        tmp_path,
        f"data_dir={coeval_folder('self_instruct')}",
        "mode=direct",
        "n=6",
    )
    metrics = metrics_of(log)
    assert len(calls) == 6 and {len(call["messages"]) for call in calls} == {1}
    assert "Criterion" not in calls[0]["messages"][0]["content"]
    assert metrics["pearson/overall"] == pytest.approx(1.0, abs=1e-9)
    assert "pearson/relevance" not in metrics and "alpha/with_judge" not in metrics
    assert metrics["alpha/with_judge/overall"] >= metrics["alpha/annotators/overall"]
    assert log.eval.metadata["source"] == str(coeval_folder("self_instruct"))


@pytest.mark.integration
def test_unparsable_answers_are_counted_and_kept_in_the_history(tmp_path):
    log, calls = eval_in_process(
        "coeval_tasks/eli5",
        constant("I would rather not say."),
        tmp_path,
        f"data_dir={coeval_folder('eli5')}",
        "criteria=simple_language,helpfulness",
        "n=3",
    )
    metrics = metrics_of(log)
    assert metrics["parse_failures"] == 3 * 3
    assert math.isnan(metrics["pearson/helpfulness"]) and metrics["n/helpfulness"] == 0
    third = [call for call in calls if len(call["messages"]) == 5]
    assert len(third) == 3
    assert [m["content"] for m in third[0]["messages"][1::2]] == ["I would rather not say."] * 2


def test_options_are_checked_before_any_judge_call(tmp_path):
    with pytest.raises(OptionError, match="unknown mode"):
        eli5(mode="stepwise", data_dir=str(coeval_folder("eli5")))
    with pytest.raises(OptionError, match="unknown criteria"):
        eli5(criteria="brevity", data_dir=str(coeval_folder("eli5")))
    folder = tmp_path / "custom"
    folder.mkdir()
    criterion = {"range": [1, 5], "scale": "likert", "higher_is_better": True, "group": "Content"}
    (folder / "criteria.json").write_text(json.dumps({"criteria": [{"name": "overall", **criterion}]}))
    (folder / "items.jsonl").write_text(json.dumps({"id": "a", "task": "t", "response": "r", "criteria": {}}) + "\n")
    with pytest.raises(DataError, match="'overall' is reserved"):
        custom(data_dir=str(folder))
