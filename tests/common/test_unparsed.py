"""What was dropped is shown: a warning at the end of a task when more than 5 % of the judge's answers did not parse."""

from __future__ import annotations

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, Target, scorer
from inspect_ai.solver import Generate, TaskState, solver

from scorers.unparsed import register_warning_hook, unparsed_record, unparsed_warning
from tests.support.fake_judge import reads_request
from tests.support.inspect_runs import eval_in_process, metrics_of


def test_the_warning_names_the_share_and_two_distinct_shortened_examples():
    assert unparsed_warning("t", 100, ["x"] * 5) is None  # 5 %: not more than the threshold
    long = "The ending fits the story. " * 10
    assert unparsed_warning("dhp_storycloze", 100, ["No idea.", "No idea.", long, "third"]) is None  # 4 %
    message = unparsed_warning("dhp_storycloze", 50, ["No idea.", "No idea.", long, "third"])
    assert message == (
        "dhp_storycloze: 4 of 50 judge answers (8%) did not parse and were left out of the statistics, e.g. "
        "'No idea.'; 'The ending fits the story. The ending fits the sto ... he ending fits the story.'"
    )
    assert unparsed_warning("t", 0, []) is None


def test_scorers_record_what_they_read():
    assert unparsed_record(["Score: 4", "hm", "3"], [4.0, None, 3.0]) == {
        "answers_read": 3,
        "unparsed_answers": ["hm"],
    }


@pytest.mark.integration
def test_an_inspect_run_ends_with_the_warning(tmp_path, dhp_data, caplog):
    count = 0

    @reads_request
    def judge(request: dict) -> str:
        nonlocal count
        count += 1
        return "Score: 4" if count % 4 else "It reads well but the ending is odd."

    log, calls = eval_in_process(
        "dhp_tasks/storycloze", judge, tmp_path, f"data_dir={dhp_data('storycloze')}", "n=3", "repeats=1"
    )
    failures = metrics_of(log)["parse_failures"]
    assert failures == len(calls) // 4
    assert f"dhp_storycloze: {failures:.0f} of {len(calls)} judge answers" in caplog.text
    assert "e.g. 'It reads well but the ending is odd.'" in caplog.text


def test_the_hook_counts_the_samples_as_they_end_and_does_not_read_the_log_back(tmp_path, monkeypatch, caplog):
    """inspect hands the hook the finished log with its samples unread; loading them takes seconds for a large log."""

    def read_back(*args, **kwargs):
        raise AssertionError("the hook read the log back although it saw every sample end")

    async def read_back_async(*args, **kwargs):
        read_back()

    monkeypatch.setattr("inspect_ai.log._recorders.eval._LazyLogData.load", read_back)
    monkeypatch.setattr("scorers.unparsed.read_eval_log_async", read_back_async)

    @scorer(metrics=[])
    def reads_answers():
        register_warning_hook()

        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=1, metadata=unparsed_record(["3", "no idea"], [3, None]))

        return score

    @solver
    def no_judge():
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            return state

        return solve

    task = Task(
        dataset=[Sample(input="a"), Sample(input="b")], solver=no_judge(), scorer=reads_answers(), name="standin"
    )
    inspect_eval(task, model="mockllm/model", log_dir=str(tmp_path), display="log")
    assert "standin: 2 of 4 judge answers (50%) did not parse" in caplog.text
