"""Parity: the same stand-in judge, on the same items, through the real ``inspect eval`` and the real ``lm_eval``.

Both harnesses reach the judge over its OpenAI-compatible chat API (inspect's ``openai-api/`` provider,
lm-eval's ``local-chat-completions``), must send it the same prompts, and must report the same numbers.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from pathlib import Path

import pytest

from dhp_tasks.prompts import TEXT_KINDS
from lm_eval_tasks import TASK_DIR
from tests.cli import LM_EVAL, run_cli
from tests.conftest import data_folder
from tests.fake_judge import Answer, judged_text, serve
from tests.test_adherence_integration import knows_the_humans, unambiguous_seed
from tests.test_inspect_integration import metrics_of, originals_of, run_inspect

pytestmark = pytest.mark.integration

OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def _draw(prompt: str, choices: int) -> int:
    """A number in ``range(choices)`` fixed by the prompt, so every harness and every repeat gets the same answer."""
    return int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % choices


def lm_eval_results(output_path: Path) -> dict:
    files = sorted(output_path.rglob("results_*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text())


def run_lm_eval(
    tasks: list[str], metadata: dict, tmp_path: Path, model: str, model_args: str, extra: tuple[str, ...] = ()
) -> dict:
    """Run the real ``lm_eval`` command on the plugin's tasks; return its results JSON."""
    command = [
        LM_EVAL, "--model", model, "--model_args", model_args, "--tasks", ",".join(tasks), "--include_path", TASK_DIR,
        "--metadata", json.dumps(metadata), "--output_path", str(tmp_path / "lm_eval"), *extra,
    ]  # fmt: skip
    run_cli(command, tmp_path, OFFLINE, timeout=900)
    return lm_eval_results(tmp_path / "lm_eval")


def lm_eval_metrics(results: dict, task: str) -> dict[str, float]:
    """``{metric: value}`` of one task, from lm-eval's ``metric,filter`` keys (filter ``none``)."""
    return {
        key.removesuffix(",none"): value
        for key, value in results["results"][task].items()
        if key.endswith(",none") and "_stderr" not in key
    }


def partly_discerning(originals: set[str]) -> Answer:
    """Rates originals 5 and every other text 3, 4 or 5, as its prompt happens to fall: some discernment."""
    return lambda prompt: "5" if judged_text(prompt) in originals else str(3 + _draw(prompt, 3))


def erratic_fbi_judge(prompt: str) -> str:
    """Ratings 1-10, verdicts A/B/tie, and now and then an answer with nothing to parse, fixed by the prompt."""
    if "[Answer A]" in prompt:
        return ["[[A]]", "Answer B. [[B]]", "[[C]]", "Hard to say."][_draw(prompt, 4)]
    draw = _draw(prompt, 11)
    return "No verdict." if draw == 10 else f"Some explanation. Rating: [[{draw + 1}]]"


def noisy(answer: Answer, low: float, high: float) -> Answer:
    """The human score plus or minus up to one point (kept on the scale), fixed by the prompt."""

    def noisy_answer(prompt: str) -> str:
        text = answer(prompt)
        if not text.startswith("Score: "):
            return text
        shifted = float(text.removeprefix("Score: ")) + (_draw(prompt, 5) - 2) / 2
        return f"Score: {min(high, max(low, shifted)):.6f}"

    return noisy_answer


def by_prompt(answers: dict[str, Answer]) -> Answer:
    """One server for several suites: the answer function is chosen by what the prompt looks like."""

    def answer(prompt: str) -> str:
        for marker, suite_answer in answers.items():
            if marker in prompt:
                return suite_answer(prompt)
        raise ValueError(f"no judge for prompt {prompt[:200]!r}")

    return answer


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9


def test_lm_eval_and_inspect_report_the_same_numbers(tmp_path, dhp_data, fbi_data):
    storycloze = dhp_data("storycloze")
    summeval = data_folder("human", "summeval")
    seed = unambiguous_seed("summeval", 20)
    dhp_judge = partly_discerning(originals_of("storycloze", storycloze, 4))
    adherence_judge = noisy(knows_the_humans("summeval", 20, seed), 1, 5)
    judge = by_prompt(
        {
            TEXT_KINDS["story"].prompt.task: dhp_judge,
            "### Task description": adherence_judge,
            "AI assistant": erratic_fbi_judge,
        }
    )
    runs = {
        "dhp_storycloze": ("dhp_tasks/storycloze", f"data_dir={storycloze}", "n=4", "repeats=5"),
        "fbi_single_vanilla": ("fbi_tasks/single", f"data_dir={fbi_data}", "per_category=1", "strategy=vanilla"),
        "fbi_pairwise": ("fbi_tasks/pairwise", f"data_dir={fbi_data}", "per_category=1", "strategy=pairwise"),
        "adherence_summeval_rubric": (
            "adherence_tasks/summeval",
            f"data_dir={summeval}",
            "n=20",
            f"seed={seed}",
            "setting=rubric",
        ),
    }
    inspect_metrics, inspect_prompts = {}, {}
    started = time.perf_counter()
    for name, (task, *args) in runs.items():
        log, calls = run_inspect(task, judge, tmp_path / "inspect" / name, *args)
        inspect_metrics[name] = metrics_of(log)
        inspect_prompts[name] = {json.dumps(call["messages"]) for call in calls}
    inspect_seconds = time.perf_counter() - started

    metadata = {
        "dhp_storycloze": {"data_dir": str(storycloze), "n": 4},
        "fbi": {"data_dir": str(fbi_data), "per_category": 1},
        "adherence_summeval_rubric": {"data_dir": str(summeval), "n": 20, "seed": seed},
    }
    started = time.perf_counter()
    with serve(judge) as (url, calls):
        results = run_lm_eval(
            list(runs),
            metadata,
            tmp_path,
            "local-chat-completions",
            f"model=judge,base_url={url}/chat/completions,num_concurrent=1",
            ("--apply_chat_template",),
        )
    lm_eval_seconds = time.perf_counter() - started

    lm_eval_prompts = {json.dumps(call["messages"]) for call in calls}
    assert lm_eval_prompts == set().union(*inspect_prompts.values())
    assert len(calls) == 4 * 5 * 3 * 5 + 23 * 2 + 23 * 2 + 20 * 4  # DHP asks each prompt 5 times, one call each

    rows = []
    for name in runs:
        ours, theirs = inspect_metrics[name], lm_eval_metrics(results, name)
        for metric, value in theirs.items():
            if metric in ours:
                rows.append((name, metric, ours[metric], value))
                assert same(ours[metric], value), (name, metric, ours[metric], value)
            else:  # rows that inspect leaves out, e.g. LLM-based perturbations without a suite
                assert math.isnan(value), (name, metric, value)
        assert results["versions"][name] == 1
    print(f"\n{'task':26} {'metric':40} {'inspect':>22} {'lm-eval':>22} {'difference':>11}")
    for name, metric, ours_value, theirs_value in rows:
        difference = 0.0 if math.isnan(ours_value) else theirs_value - ours_value
        print(f"{name:26} {metric:40} {ours_value:22.15g} {theirs_value:22.15g} {difference:11.3g}")
    print(f"wall time: inspect {inspect_seconds:.1f} s (4 runs), lm_eval {lm_eval_seconds:.1f} s (one run)")

    # lm-eval's usual keys, so leaderboards that read its results JSON take these as they are; a custom
    # aggregation has no stderr in lm-eval (the rates' bootstrap intervals are metrics of their own)
    assert {"D_avg,none", "D/typos,none", "error_rate,none", "pearson,none"} <= {
        key for task in runs for key in results["results"][task]
    }
    assert results["results"]["dhp_storycloze"]["D_avg_stderr,none"] == "N/A"
    assert results["higher_is_better"]["fbi_pairwise"]["error_rate"] is False

    dhp = lm_eval_metrics(results, "dhp_storycloze")
    assert 0 < dhp["D_min"] < dhp["D_avg"] < 236  # some discernment, not total: a real comparison
    fbi = lm_eval_metrics(results, "fbi_pairwise")
    assert 0 < fbi["flip_rate"] < 1 and fbi["parse_failures"] > 0
    assert 0 < lm_eval_metrics(results, "fbi_single_vanilla")["error_rate"] < 1
    assert 0.3 < lm_eval_metrics(results, "adherence_summeval_rubric")["pearson"] < 1
    assert len(rows) > 120
