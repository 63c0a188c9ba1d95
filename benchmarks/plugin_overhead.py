"""Benchmark: the DHP plugin's wall time against a bare inspect task making the same requests to the same judge.

    PYTHONPATH=. python benchmarks/plugin_overhead.py --n 20 --repeats 5 --runs 3

The judge is the tests' stand-in (``tests/support/fake_judge.py``: an OpenAI-compatible server on 127.0.0.1 answering at
once), so the wall time is the harness's own: inspect, the provider, and what the plugin adds (its solver, the
scorer's parsing, and the discernment metric, which inspect recomputes on partial results while the run
goes). The plugin run is ``dhp_tasks/summeval`` (``--n`` items, the six rule-based perturbations, four metrics,
``--repeats`` answers per prompt asked as choices of one request). The bare run is a plain inspect task over the
same prompts (rendered by the plugin's own prompt code), each sample sending its four prompts concurrently with
the same generation settings, a scorer that reads the first digit of each answer, and inspect's ``mean``
metric. Both run in this process with ``display="none"`` (inspect still recomputes metrics while running) and
``--max-connections``; the runs alternate, and the script checks that both sent the same requests (messages,
number of choices, temperature) and prints each run's wall time, the ratio of the best (shortest) runs, which is
the least disturbed by other work on the machine, the median of the ratios of runs made one after the other, and the
ratio of the least CPU time each used (steadier than wall time on busy cores; with a judge that answers at once,
this process's CPU is what the run waits for), and the same for the CPU time of the thread that runs inspect's event
loop alone (the stand-in judge's threads left out: steadier still). ``--no-score-display`` runs both tasks as
``inspect eval --no-score-display`` does: no metrics recomputed on partial results, the final ones the same.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig, ModelOutput, get_model
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO))  # the tests' stand-in judge; the suites come from the installed package or PYTHONPATH

from dhp_tasks.dhp import chosen_criteria, summeval  # noqa: E402
from dhp_tasks.prompts import TEXT_KINDS  # noqa: E402
from tests.support.fake_judge import serve  # noqa: E402

DIGIT = re.compile(r"\d")


def stand_in_rating(prompt: str) -> str:
    """A rating from 1 to 5 that depends on the prompt alone, so that both runs get the same answers."""
    return str(zlib.crc32(prompt.encode()) % 5 + 1)


def plugin_task(data: Path, n: int, repeats: int) -> Task:
    return summeval(data_dir=str(data / "dhp" / "summeval"), n=n, repeats=repeats)


def bare_task(plugin: Task, repeats: int) -> Task:
    """The plugin's samples with their prompts written out, asked and scored with inspect's own parts only."""
    kind = TEXT_KINDS[plugin.metadata["kind"]]
    criteria = chosen_criteria(kind, plugin.metadata["metrics"])
    samples = [
        Sample(
            id=sample.id,
            input=sample.metadata["response"],
            metadata={
                "prompts": [
                    kind.prompt.render(criterion, sample.metadata["response"], sample.metadata["context"])
                    for criterion in criteria
                ]
            },
        )
        for sample in plugin.dataset
    ]
    config = GenerateConfig(temperature=plugin.metadata["temperature"], num_choices=repeats)

    @solver
    def ask_each_prompt():
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            model = get_model()
            outputs = await asyncio.gather(
                *(model.generate(prompt, config=config) for prompt in state.metadata["prompts"])
            )
            answers = [choice.message.text for output in outputs for choice in output.choices]
            state.output = ModelOutput.from_content(model=str(model), content="\n".join(answers))
            return state

        return solve

    @scorer(metrics=[mean()])
    def first_digit():
        async def score(state: TaskState, target: Target) -> Score:
            digits = [int(found.group()) for found in map(DIGIT.search, state.output.completion.split("\n")) if found]
            return Score(value=sum(digits) / len(digits) if digits else 0.0)

        return score

    return Task(dataset=MemoryDataset(samples), solver=ask_each_prompt(), scorer=first_digit(), name="bare_summeval")


def timed_run(
    task: Task, url: str, max_connections: int, log_dir: Path, score_display: bool = True
) -> tuple[float, float, float]:
    """Wall and CPU seconds of one run: this process's CPU (the stand-in judge's threads included), and the CPU of
    this thread alone, which runs inspect's event loop."""
    model = get_model("openai-api/fakejudge/judge", base_url=url, api_key="bench", memoize=False)
    start, start_cpu, start_thread = time.perf_counter(), time.process_time(), time.thread_time()
    inspect_eval(
        task,
        model=model,
        log_dir=str(log_dir),
        display="none",
        max_connections=max_connections,
        score_display=score_display,
    )
    return time.perf_counter() - start, time.process_time() - start_cpu, time.thread_time() - start_thread


def request_signature(call: dict) -> str:
    return json.dumps([call["messages"], call.get("n"), call.get("temperature")], sort_keys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20, help="SummEval items")
    parser.add_argument("--repeats", type=int, default=5, help="answers per prompt")
    parser.add_argument("--runs", type=int, default=3, help="runs of each task, alternating")
    parser.add_argument("--max-connections", type=int, default=32)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument(
        "--no-score-display", action="store_true", help="no metrics recomputed on partial results (both tasks)"
    )
    args = parser.parse_args()

    plugin = plugin_task(args.data, args.n, args.repeats)
    bare = bare_task(plugin, args.repeats)
    times: dict[str, list[float]] = {"plugin": [], "bare": []}
    cpu: dict[str, list[float]] = {"plugin": [], "bare": []}
    loop_cpu: dict[str, list[float]] = {"plugin": [], "bare": []}
    with tempfile.TemporaryDirectory() as folder, serve(stand_in_rating) as (url, calls):
        requests: dict[str, Counter[str]] = {}
        for run in range(args.runs):
            for name in ("plugin", "bare"):
                calls.clear()
                task = plugin if name == "plugin" else bare
                wall, used, loop = timed_run(
                    task, url, args.max_connections, Path(folder) / f"{name}{run}", not args.no_score_display
                )
                times[name].append(wall)
                cpu[name].append(used)
                loop_cpu[name].append(loop)
                requests[name] = Counter(map(request_signature, calls))
                print(
                    f"run {run + 1} {name}: {wall:.2f} s, CPU {used:.2f} s (event loop's thread {loop:.2f} s), "
                    f"{len(calls)} requests",
                    flush=True,
                )
    if requests["plugin"] != requests["bare"]:
        raise SystemExit("the two tasks did not send the same requests")
    plugin_s, bare_s = min(times["plugin"]), min(times["bare"])
    paired = statistics.median(p / b for p, b in zip(times["plugin"], times["bare"], strict=True))
    print(
        f"{len(plugin.dataset)} samples, {sum(requests['plugin'].values())} identical requests each; best wall: "
        f"plugin {plugin_s:.2f} s, bare {bare_s:.2f} s, plugin / bare {plugin_s / bare_s:.2f} "
        f"(median of the runs' ratios {paired:.2f}); least CPU: plugin {min(cpu['plugin']):.2f} s, bare "
        f"{min(cpu['bare']):.2f} s, plugin / bare {min(cpu['plugin']) / min(cpu['bare']):.2f}; least CPU of the "
        f"event loop's thread: plugin {min(loop_cpu['plugin']):.2f} s, bare {min(loop_cpu['bare']):.2f} s, "
        f"plugin / bare {min(loop_cpu['plugin']) / min(loop_cpu['bare']):.2f}"
    )


if __name__ == "__main__":
    main()
