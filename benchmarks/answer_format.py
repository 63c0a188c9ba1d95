"""Benchmark: ``answer_format=text`` against ``json`` on a real engine (vLLM on CPU, guided decoding).

    python benchmarks/answer_format.py --n 20 --per-category 2 --output results.json

Runs in the project's environment, with vLLM in its own (``benchmarks/vllm_cpu.py`` sets both up and serves the
bundled judge, SmolLM2-135M-Instruct). For DHP SummEval (``--n`` items, the six rule-based perturbations, one
answer per metric at temperature 0) and FBI ``single`` (strategy ``vanilla``, ``--per-category`` items per
category) it runs each task twice, ``answer_format=text`` and ``json``; under ``json`` inspect sends the response
schema, which vLLM enforces by guided decoding. It reports per run the requests, generated tokens (from the
server's counters), wall time and time per request, the share of answers that did not parse (and, under
``json``, how many were read as text), and the suite's result: D_avg and D_min, or FBI's error rate.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from vllm_cpu import (
    API_KEY,
    SERVED_NAME,
    add_server_arguments,
    ensure_vllm_env,
    scrape,
    start_server,
    stop_server,
)

from dhp_tasks.dhp import summeval
from fbi_tasks.fbi import single
from judge_data.local_judge import write_hf_folder
from scorers.unparsed import ANSWERS_READ, UNPARSED_ANSWERS

REPO = Path(__file__).resolve().parents[1]
FORMATS = ("text", "json")


def tasks(args, answer_format: str) -> dict:
    data = REPO.parent / "shared" / "data"
    return {
        "dhp_summeval": summeval(
            data_dir=str(data / "dhp" / "summeval"), n=args.n, repeats=1, answer_format=answer_format
        ),
        "fbi_single_vanilla": single(
            strategy="vanilla",
            data_dir=str(data / "fbi"),
            per_category=args.per_category,
            answer_format=answer_format,
        ),
    }


def unparsed_share(log: EvalLog) -> tuple[int, int]:
    """``(unparsed answers, answers read)`` from the scorers' metadata."""
    read = unparsed = 0
    for sample in log.samples or []:
        for score in sample.scores.values():
            read += int((score.metadata or {}).get(ANSWERS_READ, 0))
            unparsed += len((score.metadata or {}).get(UNPARSED_ANSWERS, []))
    return unparsed, read


def run_one(name: str, task, args, answer_format: str) -> dict:
    before = scrape(args.port)
    load_before = os.getloadavg()
    started = time.perf_counter()
    [log] = inspect_eval(
        task,
        model=f"vllm/{SERVED_NAME}",
        max_tokens=args.max_tokens,
        max_connections=args.max_connections,
        log_dir=str(args.work / f"{name}_{answer_format}"),
        display="none",
    )
    seconds = time.perf_counter() - started
    after = scrape(args.port)
    if log.status != "success":
        raise RuntimeError(f"{name} {answer_format}: eval {log.status}: {log.error}")
    metrics = {key: metric.value for key, metric in log.results.scores[0].metrics.items()}
    requests = after["requests"] - before["requests"]
    unparsed, read = unparsed_share(log)
    keep = ("D_avg", "D_min", "error_rate", "error_rate_ci_low", "error_rate_ci_high", "json_fallbacks")
    return {
        "task": name,
        "answer_format": answer_format,
        "samples": len(log.samples or []),
        "requests": requests,
        "prompt_tokens": after["prompt_tokens"] - before["prompt_tokens"],
        "generated_tokens": after["generated_tokens"] - before["generated_tokens"],
        "wall_seconds": seconds,
        "seconds_per_request": seconds / requests if requests else float("nan"),
        "unparsed": unparsed,
        "answers": read,
        **{key: metrics[key] for key in keep if key in metrics},
        "load_before": load_before,
        "load_after": os.getloadavg(),
    }


def markdown(rows: list[dict]) -> str:
    lines = [
        "| task | answer_format | requests | generated tokens | wall s | s per request | unparsed / answers "
        "| read as text (json) | result | load (1 min) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if "D_avg" in row:
            result = f"D_avg {row['D_avg']:.3f}, D_min {row['D_min']:.3f}"
        else:
            result = (
                f"error rate {row['error_rate']:.3f} [{row['error_rate_ci_low']:.3f}, {row['error_rate_ci_high']:.3f}]"
            )
        fallbacks = row.get("json_fallbacks")
        lines.append(
            f"| {row['task']} | {row['answer_format']} | {row['requests']:.0f} | {row['generated_tokens']:.0f} "
            f"| {row['wall_seconds']:.1f} | {row['seconds_per_request']:.3f} | {row['unparsed']} / {row['answers']} "
            f"| {'' if fallbacks is None else f'{fallbacks:.0f}'} | {result} "
            f"| {row['load_before'][0]:.1f} / {row['load_after'][0]:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20, help="SummEval items (7 texts x 4 metrics each)")
    parser.add_argument("--per-category", type=int, default=2, help="FBI items per category")
    parser.add_argument("--max-tokens", type=int, default=160, help="answer length (the json reasoning needs room)")
    add_server_arguments(parser, port=8772, work="answer-format-bench")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)

    python = ensure_vllm_env(args.venv)
    model_dir = write_hf_folder(args.model_dir)
    os.environ.update({"VLLM_BASE_URL": f"http://127.0.0.1:{args.port}/v1", "VLLM_API_KEY": API_KEY})
    server = start_server(python, model_dir, args.port, args.max_model_len, args.work / "server.log")
    rows = []
    try:
        for answer_format in FORMATS:
            for name, task in tasks(args, answer_format).items():
                rows.append(run_one(name, task, args, answer_format))
                print(json.dumps(rows[-1]), flush=True)
    finally:
        stop_server(server)
    print(markdown(rows))
    if args.output:
        args.output.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
