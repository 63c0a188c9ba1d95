"""Benchmark: a whole ``judge-meta-eval`` preset on a real engine (vLLM on CPU, the bundled judge), suite by suite,
beside the engine's own limit for the same requests and beside what the papers' protocol would ask.

    python benchmarks/preset_vllm_cpu.py --preset quick --output docs/preset_quick_vllm_cpu.json

Uses the set-up of ``benchmarks/vllm_cpu.py`` (vLLM's own environment, the judge as an HF folder, the OpenAI-compatible
server with prefix caching on 127.0.0.1). For each suite it runs ``judge-meta-eval run --model vllm/smollm2
--suites <suite>`` (inspect's ``eval_set``, then the report) and reads from the server's ``/metrics`` the requests,
prompt and generated tokens and the prefix-cache hit rate, with the wall time. The server is then stopped and each
suite's requests, recorded from its logs, go to vLLM's offline ``LLM.generate`` (``vllm_offline_engine.py``): the
engine's limit. Tasks scored by likelihood are skipped (``vllm/`` is a chat provider), as the command says.

The papers' protocol for the same items is counted with the dry run (no judge): DHP's five ratings per prompt and
CoEval's sampled criteria lists as one request each, as the papers ask them; FBI and adherence ask as we do.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import tempfile
import time
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from vllm_cpu import (
    API_KEY,
    COUNTERS,
    SERVED_NAME,
    add_server_arguments,
    engine_limit,
    ensure_vllm_env,
    recorded_requests,
    scrape,
    start_server,
    stop_server,
)

from judge_data.local_judge import write_hf_folder
from judge_meta_eval import dry_run
from judge_meta_eval.cli import build_task, main, plan
from judge_meta_eval.presets import SUITES, Preset, PresetTask, load_preset

REPO = Path(__file__).resolve().parents[1]
PAPER_REPEATS = 5
"""DHP's ratings per prompt in the paper, each its own request."""


def papers_protocol(preset: Preset) -> Preset:
    """The preset's items asked as the papers ask them: DHP's rating prompts ``PAPER_REPEATS`` times."""
    tasks = tuple(
        dataclasses.replace(task, args={**task.args, "repeats": PAPER_REPEATS})
        if task.suite == "dhp" and task.scoring == "sample"
        else task
        for task in preset.tasks
    )
    return dataclasses.replace(preset, tasks=tasks)


def dry_counts(
    tasks: tuple[PresetTask, ...], data_root: Path, overrides: dict, tokenizer: Path
) -> dict[str, dict[str, float]]:
    """Requests and prompt tokens per suite the dry run counts when every answer is its own request (a provider
    that answers once per call, as the papers ask)."""
    counter = dry_run.token_counter("hf/judge", {"tokenizer": str(tokenizer)})
    totals: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as logs:
        for entry in tasks:
            task = build_task(entry, data_root, overrides)
            dry_run.REQUESTS.clear()
            inspect_eval(task, model=f"{dry_run.PROVIDER}/hf/judge", score=False, log_dir=logs, display="none")
            count = dry_run.task_count(entry.label(), len(task.dataset), dry_run.REQUESTS, counter)
            suite = totals.setdefault(entry.suite, {"requests": 0, "prompt_tokens": 0})
            suite["requests"] += count.requests
            suite["prompt_tokens"] += count.prompt_tokens
    return totals


def run_suite(args, suite: str, log_dir: Path) -> tuple[dict, list[dict]]:
    """One suite of the preset through the one command, with the server's counters around it."""
    before, load_before, start = scrape(args.port), os.getloadavg(), time.perf_counter()
    command = ["run", "--model", f"vllm/{SERVED_NAME}", "--preset", args.preset, "--suites", suite]
    command += ["--data-root", str(args.data_root), "--log-dir", str(log_dir), "--report", str(log_dir / "report")]
    command += ["--max-connections", str(args.max_connections), *sum((["-T", o] for o in args.task_option), [])]
    try:
        main(command)
    except SystemExit as exit_status:
        if exit_status.code:
            raise
    seconds, after = time.perf_counter() - start, scrape(args.port)
    served = {key: after[key] - before[key] for key in COUNTERS}
    logs = [read_eval_log(str(path)) for path in sorted(log_dir.rglob("*.eval"))]
    requests = [request for log in logs for request in recorded_requests(log, 0.0)]
    result = {
        "wall_seconds": seconds,
        "tasks": len(logs),
        "samples": sum(len(log.samples or []) for log in logs),
        **served,
        "prefix_cache_hit_rate": served["prefix_cache_hits"] / served["prefix_cache_queries"]
        if served["prefix_cache_queries"]
        else float("nan"),
        "load_before": load_before,
        "load_after": os.getloadavg(),
    }
    return result, requests


def markdown(results: dict) -> str:
    """The table of ``docs/benchmarks.md``: per suite, what the preset cost, the engine's limit, the papers'."""
    rows = [
        "| suite | samples | requests | prompt tokens | generated tokens | prefix-cache hit rate | wall s "
        "| load (1 min) | engine s | wall / engine | papers' protocol: requests | papers' protocol: prompt tokens |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for suite, entry in results["suites"].items():
        paper = results["papers_protocol"].get(suite, {})
        rows.append(
            f"| {suite} | {entry['samples']} | {entry['requests']:.0f} | {entry['prompt_tokens']:.0f} "
            f"| {entry['generated_tokens']:.0f} | {entry['prefix_cache_hit_rate']:.3f} | {entry['wall_seconds']:.1f} "
            f"| {entry['load_before'][0]:.1f} / {entry['load_after'][0]:.1f} | {entry['engine']['seconds']:.1f} "
            f"| {entry['wall_over_engine']:.2f} | {paper.get('requests', 0):.0f} "
            f"| {paper.get('prompt_tokens', 0):.0f} |"
        )
    total = results["total"]
    rows.append(
        f"| all | {total['samples']} | {total['requests']:.0f} | {total['prompt_tokens']:.0f} "
        f"| {total['generated_tokens']:.0f} | | {total['wall_seconds']:.1f} | | {total['engine_seconds']:.1f} "
        f"| {total['wall_over_engine']:.2f} | {total['papers_requests']:.0f} | {total['papers_prompt_tokens']:.0f} |"
    )
    return "\n".join(rows)


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="quick")
    parser.add_argument("--suites", default=",".join(SUITES))
    parser.add_argument("--data-root", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("-T", dest="task_option", action="append", default=[], help="task option override")
    add_server_arguments(parser, port=8771, work="preset-bench")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    preset = load_preset(args.preset)
    suites = [suite for suite in args.suites.split(",") if suite]

    python = ensure_vllm_env(args.venv)
    model_dir = write_hf_folder(args.model_dir)
    os.environ.update({"VLLM_BASE_URL": f"http://127.0.0.1:{args.port}/v1", "VLLM_API_KEY": API_KEY})
    started = time.perf_counter()
    server = start_server(python, model_dir, args.port, args.max_model_len, args.work / "server.log")
    results: dict = {"preset": preset.name, "version": preset.version, "suites": {}}
    results["server_start_seconds"] = time.perf_counter() - started
    requests = {}
    try:
        for suite in suites:
            log_dir = args.work / f"logs-{time.strftime('%Y%m%dT%H%M%S')}-{suite}"
            results["suites"][suite], requests[suite] = run_suite(args, suite, log_dir)
            print(suite, json.dumps(results["suites"][suite]), flush=True)
    finally:
        stop_server(server)
    engine = engine_limit(python, model_dir, args.max_model_len, None, requests, args.work)
    for suite, entry in engine.items():
        results["suites"][suite]["engine"] = entry
        results["suites"][suite]["wall_over_engine"] = results["suites"][suite]["wall_seconds"] / entry["seconds"]
    overrides = dict(option.split("=", 1) for option in args.task_option)
    paper = papers_protocol(dataclasses.replace(preset, tasks=preset.for_suites(suites)))
    served_tasks = plan(f"vllm/{SERVED_NAME}", paper.tasks).tasks
    results["papers_protocol"] = dry_counts(served_tasks, args.data_root, overrides, model_dir)
    entries = results["suites"].values()
    results["total"] = {
        "samples": sum(entry["samples"] for entry in entries),
        **{key: sum(entry[key] for entry in entries) for key in ("requests", "prompt_tokens", "generated_tokens")},
        "wall_seconds": sum(entry["wall_seconds"] for entry in entries),
        "engine_seconds": sum(entry["engine"]["seconds"] for entry in entries),
        "papers_requests": sum(entry["requests"] for entry in results["papers_protocol"].values()),
        "papers_prompt_tokens": sum(entry["prompt_tokens"] for entry in results["papers_protocol"].values()),
    }
    results["total"]["wall_over_engine"] = results["total"]["wall_seconds"] / results["total"]["engine_seconds"]
    print(markdown(results))
    if args.output:
        args.output.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main_benchmark()
