"""Runs of the real ``lm_eval`` command on the plugin's tasks, and the comparison of its numbers with inspect's."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

from lm_eval_tasks import TASK_DIR
from tests.support.commands import LM_EVAL, run_cli
from tests.support.fake_judge import Answer, serve

OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


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


def run_lm_eval_chat(judge: Answer, tasks: list[str], metadata: dict, tmp_path: Path) -> tuple[dict, list, float]:
    """:func:`run_lm_eval` through ``local-chat-completions`` against ``judge`` served on 127.0.0.1: the results
    JSON, the requests the judge received, and the wall time of the run."""
    started = time.perf_counter()
    with serve(judge) as (url, calls):
        results = run_lm_eval(
            tasks,
            metadata,
            tmp_path,
            "local-chat-completions",
            f"model=judge,base_url={url}/chat/completions,num_concurrent=1",
            ("--apply_chat_template",),
        )
    return results, calls, time.perf_counter() - started


def lm_eval_metrics(results: dict, task: str) -> dict[str, float]:
    """``{metric: value}`` of one task, from lm-eval's ``metric,filter`` keys (filter ``none``)."""
    return {
        key.removesuffix(",none"): value
        for key, value in results["results"][task].items()
        if key.endswith(",none") and "_stderr" not in key
    }


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9


def compare(inspect_metrics: dict[str, float], results: dict, name: str) -> list[tuple[str, str, float, float]]:
    """Every metric lm-eval reports for ``name`` equals inspect's (to 1e-9), or is NaN where inspect has none."""
    rows = []
    for metric, value in lm_eval_metrics(results, name).items():
        if metric in inspect_metrics:
            rows.append((name, metric, inspect_metrics[metric], value))
            assert same(inspect_metrics[metric], value), (name, metric, inspect_metrics[metric], value)
        else:
            assert math.isnan(value), (name, metric, value)
    return rows


def print_rows(rows: list[tuple[str, str, float, float]]) -> None:
    print(f"\n{'task':26} {'metric':56} {'inspect':>22} {'lm-eval':>22} {'difference':>11}")
    for name, metric, ours_value, theirs_value in rows:
        difference = 0.0 if math.isnan(ours_value) else theirs_value - ours_value
        print(f"{name:26} {metric:56} {ours_value:22.15g} {theirs_value:22.15g} {difference:11.3g}")
