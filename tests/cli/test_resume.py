"""Interrupting ``judge-meta-eval run`` and running the same command again: no crash, no finished sample judged
twice.

The crash this guards against (asyncio's ``IndexError: pop from an empty deque`` in ``base_events._run_once``) came
from the unparsed-answers hook reading the finished log with inspect's synchronous ``read_eval_log`` inside the
running event loop: inspect re-enters the loop through nest_asyncio, whose nested run drains the loop's ready queue
while the outer ``_run_once`` still counts on it, which happens when several tasks end together, as on a resume.
"""

from __future__ import annotations

import asyncio
import glob
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.hooks import TaskEnd
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver

from scorers.unparsed import UnparsedAnswers, unparsed_record
from tests.conftest import data_folder
from tests.support import fake_judge

COMMAND = str(Path(sys.executable).parent / "judge-meta-eval")


@scorer(metrics=[mean()])
def _reads_answers():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=1, metadata=unparsed_record(["3", "no idea"], [3, None]))

    return score


@solver
def _no_judge():
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return state

    return solve


def test_the_unparsed_hook_reads_a_header_only_log_without_reentering_the_event_loop(tmp_path, monkeypatch):
    """eval_set hands the hook the log's header only; the hook reads the samples with the loop's own reader."""
    samples = [Sample(input="a"), Sample(input="b")]
    task = Task(dataset=samples, solver=_no_judge(), scorer=_reads_answers(), name="dhp_tasks/standin")
    [log] = inspect_eval(task, model="mockllm/model", log_dir=str(tmp_path), display="log")
    header = read_eval_log(log.location, header_only=True)
    header.eval.task_registry_name = "dhp_tasks/standin"

    def reentered() -> None:
        raise AssertionError("the hook re-entered the running event loop (nest_asyncio)")

    monkeypatch.setattr("inspect_ai._util._async.init_nest_asyncio", reentered)
    warned = []
    monkeypatch.setattr("scorers.unparsed.warn_if_many_unparsed", lambda *counts: warned.append(counts))
    asyncio.run(UnparsedAnswers().on_task_end(TaskEnd(eval_set_id=None, run_id="r", eval_id="e", log=header)))
    assert warned == [("dhp_tasks/standin", 4, ["no idea", "no idea"])]


def _answer(prompt: str) -> str:
    return "[[A]]" if "[Answer A]" in prompt else "Rating: [[3]]"


# (suites, --limit, requests of a clean run): the quick preset's 5 FBI items, 2 requests each in both tasks (the dry
# run's count)
SELECTION = ("fbi", "5", 5 * 2 + 5 * 2)


def _run(tmp_path: Path, url: str) -> subprocess.Popen:
    command = [
        COMMAND,
        "run",
        "--model",
        "openai-api/standin/judge-a",
        "--preset",
        "quick",
        "--suites",
        SELECTION[0],
        "--limit",
        SELECTION[1],
        "--data-root",
        str(data_folder()),
        "--log-dir",
        str(tmp_path / "logs"),
        "--report",
        str(tmp_path / "report"),
        "--max-connections",
        "2",
        "--display",
        "plain",
    ]
    environment = {
        **os.environ,
        "STANDIN_BASE_URL": url,
        "STANDIN_API_KEY": "test",
        "INSPECT_CACHE_DIR": str(tmp_path / "cache"),
        "COLUMNS": "200",
    }
    return subprocess.Popen(
        command,
        cwd=tmp_path,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=_default_interrupt,
    )


def _default_interrupt() -> None:
    """SIGINT as a terminal delivers it, even where this process ignores it (a shell's background job does): a
    child started with SIGINT ignored keeps ignoring it, and the interrupted run would go on to the end."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.integration
@pytest.mark.parametrize("share", [0.25, 0.6])
def test_an_interrupted_run_resumes_without_a_traceback_or_judging_finished_samples_again(tmp_path, share):
    """SIGINT once ``share`` of the requests were answered, SIGTERM 3 s later if it still runs, then the same
    command: every task completes, nothing prints a traceback, and the resumed run asks only for what the
    interrupted logs do not hold (2 requests a sample in both FBI tasks)."""
    total = SELECTION[2]
    with fake_judge.serve(_answer, delay=0.05) as (url, calls):
        first = _run(tmp_path, url)
        deadline = time.monotonic() + 120
        while len(calls) < share * total and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        os.killpg(first.pid, signal.SIGINT)
        try:
            first_output, _ = first.communicate(timeout=3)
        except subprocess.TimeoutExpired:
            os.killpg(first.pid, signal.SIGTERM)
            first_output, _ = first.communicate()
        time.sleep(0.5)  # the stand-in records a request after its 0.05 s delay: let the interrupted run's last land
        sent_before = len(calls)
        second = _run(tmp_path, url)
        second_output, _ = second.communicate(timeout=300)
        asked_again = len(calls) - sent_before
    for output in (first_output, second_output):
        assert "Traceback" not in output and "pop from an empty deque" not in output, output[-3000:]
    assert first.returncode in (130, -signal.SIGTERM), first_output[-2000:]
    assert second.returncode == 0, second_output[-3000:]
    # What the resume sends again (with the run's request cache, the requests in flight at the interrupt) is measured
    # by benchmarks/resume_cache.py, not asserted here (see judge_meta_eval/README.md on resuming).
    assert sent_before + asked_again >= total, (sent_before, asked_again)
    finished = [read_eval_log(path, header_only=True) for path in glob.glob(str(tmp_path / "logs" / "*" / "*.eval"))]
    assert sorted(log.status for log in finished) == ["success", "success"]
    assert all(log.eval.config.limit == int(SELECTION[1]) for log in finished)
    assert (tmp_path / "report" / "report.json").is_file()
