"""End-to-end: the real ``inspect eval`` command against a stand-in judge served on 127.0.0.1."""

from __future__ import annotations

import json
import math
import threading
from functools import partial
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, read_eval_log

from dhp_tasks.data import DATASETS
from dhp_tasks.definition import DHP
from dhp_tasks.perturbations import PERTURBATIONS
from judge_data.inspect_private import PrerequisiteError
from scorers.discernment import discernment
from tests.support.commands import INSPECT, create_task, side_by_side
from tests.support.fake_judge import constant, judged_text, knows_originals
from tests.support.inspect_runs import eval_command, eval_in_process, metrics_of, originals_of, run_command, run_inspect

pytestmark = pytest.mark.integration


def test_constant_judge_has_no_discernment(tmp_path, dhp_data):
    """Run in this process: the rule-based rows and inspect score tests below run the command line."""
    log, calls = eval_in_process(
        "dhp_tasks/summeval", constant("3"), tmp_path, f"data_dir={dhp_data('summeval')}", "n=5", "repeats=2"
    )
    metrics = metrics_of(log)
    d_values = {name: value for name, value in metrics.items() if name.startswith("D")}
    assert set(d_values) >= {"D_avg", "D_min", "D_avg_EW", "D_min_EW", "D/typos_minor", "D_EW/sentence_reorder_major"}
    assert all(value == 0.0 for value in d_values.values()), d_values
    assert metrics["parse_failures"] == 0
    assert metrics["p/typos_major/coherence"] == 1.0
    # 5 items x (original + 6 perturbations) x 4 metrics, each asking for its 2 ratings as choices of one call
    assert len(calls) == 5 * 7 * 4
    assert {call.get("n") for call in calls} == {2}
    assert {call.get("temperature") for call in calls} == {0}


@pytest.mark.parametrize("dataset", sorted(DATASETS))
def test_judge_that_knows_the_originals_discerns_every_perturbation(tmp_path, dhp_data, dataset):
    folder = dhp_data(DATASETS[dataset].folder)
    originals = originals_of(dataset, folder, 6)
    log, _ = eval_in_process(
        f"dhp_tasks/{dataset}", knows_originals(originals), tmp_path, f"data_dir={folder}", "n=6", "repeats=1"
    )
    metrics = metrics_of(log)
    per_perturbation = {name: value for name, value in metrics.items() if name.startswith(("D/", "D_EW/"))}
    assert len(per_perturbation) == 2 * len(log.eval.metadata["perturbations"])
    assert all(value > 1 for value in per_perturbation.values()), per_perturbation
    assert metrics["D_min"] > 1 and metrics["D_min_EW"] > 1
    assert metrics["parse_failures"] == 0
    assert log.eval.task_version == DHP.version == log.eval.metadata["task_version"]

    sample = log.samples[0]
    assert set(sample.metadata) >= {"item_id", "perturbation", "level", "degree", "method", "response"}
    perturbations = {s.metadata["perturbation"] for s in log.samples}
    assert "original" in perturbations
    score = next(iter(sample.scores.values()))
    metrics = log.eval.metadata["metrics"]
    assert set(score.value) == {
        *metrics,
        *(f"answers/{name}" for name in metrics),
        *(f"parse_failures/{name}" for name in metrics),
    }


def test_unparsable_answers_are_counted_not_guessed(tmp_path, dhp_data):
    log, _ = eval_in_process(
        "dhp_tasks/storycloze",
        constant("I would rather not say."),
        tmp_path,
        f"data_dir={dhp_data('storycloze')}",
        "n=4",
        "repeats=3",
        "perturbations=typos,wrong_ending",
    )
    metrics = metrics_of(log)
    # 4 items x 3 variants x 3 metrics x 3 ratings, none parsable
    assert metrics["parse_failures"] == 4 * 3 * 3 * 3
    assert metrics["parse_failures/fluency"] == 4 * 3 * 3
    assert metrics["parse_failure_rate"] == 1.0 and metrics["parse_failure_rate/fluency"] == 1.0
    # no evidence is not "no discernment": D is undefined, with the reason counted
    for name in ("D_avg", "D_min", "D_avg_EW", "D_min_EW", "D/typos", "D_EW/wrong_ending", "p/typos/coherence"):
        assert math.isnan(metrics[name]), name
    assert metrics["n_undefined"] == 2 and metrics["n_undefined_EW"] == 2
    assert metrics["n_metrics_without_pairs/typos"] == 3
    assert metrics["n_pairs/typos/coherence"] == 0
    values = next(iter(log.samples[0].scores.values())).value
    assert all(math.isnan(values[name]) for name in ("coherence", "consistency", "fluency"))
    assert values["answers/fluency"] == 3 and values["parse_failures/fluency"] == 3
    # the log file itself keeps the NaN metrics (JSON NaN), so they read back as NaN
    raw = json.loads(Path(log.location).read_text())
    assert math.isnan(raw["results"]["scores"][0]["metrics"]["D_avg"]["value"])


def test_custom_task_with_a_metric_subset(tmp_path):
    data = tmp_path / "mine"
    data.mkdir()
    texts = [
        f"The report covers item {j}. It lists the costs in detail. Every figure is checked twice. The team signs it off."
        for j in range(6)
    ]
    (data / "items.jsonl").write_text(
        "".join(
            json.dumps({"id": f"doc{j}", "text": text, "context": "An article."}) + "\n" for j, text in enumerate(texts)
        )
    )
    log, calls = eval_in_process(
        "dhp_tasks/custom",
        knows_originals(set(texts)),
        tmp_path,
        f"data_dir={data}",
        "kind=summarization",
        "metrics=coherence,fluency",
        "repeats=1",
    )
    metrics = metrics_of(log)
    assert log.eval.metadata["metrics"] == ["coherence", "fluency"]
    assert "p/typos_minor/coherence" in metrics and "p/typos_minor/relevance" not in metrics
    assert metrics["D_min"] > 1
    assert len(calls) == 6 * 7 * 2


def clean_failure(task: str, *task_args: str) -> str:
    """The message of the ``PrerequisiteError`` that stops creating the task, before any judge call, which
    ``inspect eval`` prints alone (tests/cli/test_user_errors.py runs the CLI); its words joined by single spaces."""
    with pytest.raises(PrerequisiteError) as raised:
        create_task(task, *task_args)
    return " ".join(str(raised.value.message).split())


def test_unknown_perturbation_fails_with_a_clear_message(dhp_data):
    output = clean_failure("dhp_tasks/storycloze", f"data_dir={dhp_data('storycloze')}", "perturbations=typo_minor")
    assert "unknown perturbation(s) ['typo_minor']" in output


def test_perturbations_that_select_nothing_are_an_error(dhp_data):
    output = clean_failure("dhp_tasks/storycloze", f"data_dir={dhp_data('storycloze')}", "perturbations=")
    assert "perturbations selects nothing" in output


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[1, 2]", "row 2: expected a JSON object, got list"),
        ('{"id": "b", "text": {"x": 1}}', "row 2: field 'text' must be a string, got dict"),
    ],
)
def test_bad_custom_rows_fail_before_any_judge_call_without_a_traceback(tmp_path, line, message):
    data = tmp_path / "mine"
    data.mkdir()
    (data / "items.jsonl").write_text('{"id": "a", "text": "A text. With two sentences."}\n' + line + "\n")
    output = clean_failure("dhp_tasks/custom", f"data_dir={data}")
    assert f"mine/items.jsonl, {message}" in output


def test_negative_expert_weights_fail_before_any_judge_call(tmp_path, dhp_data):
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"story": {"typos": {"coherence": 1, "consistency": -2, "fluency": 7}}}))
    output = clean_failure(
        "dhp_tasks/storycloze",
        f"data_dir={dhp_data('storycloze')}",
        "perturbations=typos",
        f"expert_weights={weights}",
    )
    assert "story.typos.consistency: weights must be non-negative numbers, got -2" in output


def test_all_perturbations_without_a_suite_judges_the_rule_based_rows(tmp_path, dhp_data):
    result, calls = run_command(
        eval_command("dhp_tasks/summeval", f"data_dir={dhp_data('summeval')}", "n=2", "repeats=1", "perturbations=all"),
        constant("3"),
        tmp_path,
    )
    log = read_eval_log(str(next((tmp_path / "logs").glob("*.json"))))
    rule_rows = [p.id for p in PERTURBATIONS["summeval"]]
    assert list(log.eval.metadata["perturbations"]) == rule_rows
    assert len(calls) == 2 * (1 + len(rule_rows)) * 4
    output = " ".join((result.stdout + result.stderr).split())
    assert "need a suite" in output and "rewrite_insert_major" in output


def _knows_originals_once(originals: set[str]):
    """Rates originals 5 and the rest 1 the first time a prompt is asked, and answers unparsably the second time."""
    asked: dict[str, int] = {}
    lock = threading.Lock()

    def answer(prompt: str) -> str:
        with lock:
            asked[prompt] = asked.get(prompt, 0) + 1
            first = asked[prompt] == 1
        if not first:
            return "I cannot decide."
        return "5" if judged_text(prompt) in originals else "1"

    return answer


def test_two_epochs_keep_every_parse_failure(tmp_path, dhp_data):
    """Every number the metric needs is in the score value, so the epoch reducer cannot drop a count."""
    folder = dhp_data("storycloze")
    originals = originals_of("storycloze", folder, 4)
    log, calls = eval_in_process(
        "dhp_tasks/storycloze",
        _knows_originals_once(originals),
        tmp_path,
        f"data_dir={folder}",
        "n=4",
        "repeats=2",
        "perturbations=typos,wrong_ending",
        epochs=2,
    )
    metrics = metrics_of(log)
    # 4 items x 3 variants x 3 metrics, each prompt asked once per epoch for 2 ratings; the second epoch never parses
    assert len(calls) == 4 * 3 * 3 * 2
    assert metrics["parse_failure_rate"] == 0.5 and metrics["parse_failure_rate/coherence"] == 0.5
    # counts are per epoch: 4 items x 3 variants x 3 metrics x 2 ratings failed over 2 epochs
    assert metrics["parse_failures"] == 4 * 3 * 3 * 2 / 2
    # the NaN-skipping mean reducer keeps the ratings of the epoch that parsed
    assert metrics["n_pairs/typos/fluency"] == 4 and metrics["n_undefined"] == 0
    assert metrics["D/typos"] == pytest.approx(discernment(1 / 16))
    reduced = {sample.sample_id: sample.value for sample in log.reductions[0].samples}
    assert reduced[f"{log.samples[0].metadata['item_id']}:original"]["coherence"] == 5.0
    assert {value["parse_failures/fluency"] for value in reduced.values()} == {1.0}


def _rescore(tmp_path: Path, log_path: Path, output: Path) -> tuple[EvalLog, list[dict]]:
    command = [
        INSPECT, "score", str(log_path), "--scorer", "scorers/mean_ratings", "--action", "overwrite",
        "--output-file", str(output), "--display", "log",
    ]  # fmt: skip
    _, calls = run_command(command, constant("3"), tmp_path)
    return read_eval_log(str(output)), calls


def test_inspect_score_reparses_a_log_without_calling_the_judge(tmp_path, dhp_data):
    folder = dhp_data("storycloze")
    log, _ = run_inspect(  # the CLI's log: inspect score finds its scorer under the installed package's name
        "dhp_tasks/storycloze", constant("Rating: 3"), tmp_path, f"data_dir={folder}", "n=4", "repeats=1",
        "perturbations=typos",
    )  # fmt: skip
    assert metrics_of(log)["D/typos"] == 0.0

    # Stored raw answers are all the scorer needs: rewrite them as a judge that saw the damage would have answered.
    raw = json.loads(Path(log.location).read_text())
    for sample in raw["samples"]:
        answer = "Score: 5" if sample["metadata"]["perturbation"] == "original" else "2 out of 5"
        stored = sample["store"]["judge_answers"]["answers"]
        stored.update({name: [answer] for name in stored})
        stored["fluency"] = ["no idea"]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(raw))
    # the log as it is and the edited one, rescored side by side
    (same, calls), (rescored, edited_calls) = side_by_side(
        partial(_rescore, tmp_path / "same", Path(log.location), tmp_path / "same.json"),
        partial(_rescore, tmp_path / "edited", edited, tmp_path / "rescored.json"),
    )
    assert calls == []
    assert metrics_of(same) == pytest.approx(metrics_of(log), nan_ok=True)
    assert edited_calls == []
    metrics = metrics_of(rescored)
    assert metrics["p/typos/coherence"] == pytest.approx(1 / 16)
    assert math.isnan(metrics["p/typos/fluency"]) and metrics["n_metrics_without_pairs/typos"] == 1
    assert metrics["D/typos"] == pytest.approx(discernment(1 / 16))
    assert metrics["parse_failures/fluency"] == 8 and metrics["parse_failures/coherence"] == 0
