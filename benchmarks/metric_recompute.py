"""Benchmark: how long each suite's metric takes on partial results, at every preset's sizes.

    PYTHONPATH=. python benchmarks/metric_recompute.py --presets quick standard full

inspect recomputes a task's metrics on the event loop while the run is in progress (after a sample completes, at
most every 0.9 s or ten times the last recomputation's time, whichever is longer) and once at the end; while a
recomputation runs, no request is sent and no answer is read. For each task of each preset this builds the task as
the preset does (data from ``../shared/data``; CoEval's criteria task with the packaged all-MiniLM-L6-v2 embedder,
which its metric does not use), gives its samples judge-like score values made by the suite's own value code where
it has one, and times the task's own metric on the samples of the first k units, as a run that completes them in
order sees them, for k = 1 .. 16 and then every tenth of n (``--counts final``: k = 13 and n only). A unit is an
item with all its perturbations for DHP, a sample otherwise. The values:

- DHP: per metric the mean of ``repeats`` whole-number ratings on 1-5 (perturbed texts a little lower), so that
  small samples have the ties that make Wilcoxon tests expensive; log-likelihoods for ``scoring=perplexity``;
- FBI: ``scorers.fbi.judgments`` on bare answers (ratings on the task's scale, verdicts A, B or tie);
- adherence and CoEval scoring: per criterion the human mean plus noise, rounded to the criterion's range and
  averaged over ``repeats`` answers (continuous log-likelihoods for ``scoring=perplexity``), 2 % unparsed (NaN);
- CoEval criteria: CC, ICC and the expert match drawn at random.

It prints, per task, the units, the longest recomputation (wall seconds, and the CPU seconds this process used in
it: on shared cores the wall time includes waiting for them) and the k where it happened.
"""

from __future__ import annotations

import argparse
import logging
import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from inspect_ai import Task
from inspect_ai.scorer import SampleScore, Score

from judge_meta_eval.cli import build_task
from judge_meta_eval.presets import load_preset
from scorers import discernment
from scorers.fbi import EXPLANATION_KEYS, judgments

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
EMBEDDER = "sentence-transformers/all-MiniLM-L6-v2"
UNPARSED_SHARE = 0.02

Values = Callable[[np.random.Generator, Task, Mapping[str, Any]], dict[str, float]]


def item_counts(n: int, counts: str) -> list[int]:
    """Every count up to 16 (where scipy's exact and permutation tests live), then every tenth of ``n``; or 13 and n."""
    if counts == "final":
        return sorted({min(n, 13), n})
    return sorted({*range(1, min(n, 16) + 1), *(math.ceil(n * tenth / 10) for tenth in range(1, 11))})


def dhp_value(rng: np.random.Generator, task: Task, metadata: Mapping[str, Any]) -> dict[str, float]:
    """A DHP score value: per metric the mean rating and its answer counts (or a log-likelihood)."""
    original = metadata["perturbation"] == "original"
    repeats = int(task.metadata.get("repeats", 1))
    value: dict[str, float] = {}
    for name in task.metadata["metrics"]:
        if task.metadata.get("scoring") == "perplexity":
            value[name] = float(rng.normal(-2.0, 0.3) - (0.0 if original else abs(rng.normal(0.05, 0.1))))
            continue
        ratings = np.clip(rng.integers(3, 6, repeats) - (0 if original else rng.integers(0, 2, repeats)), 1, 5)
        value[name] = float(ratings.mean())
        value[f"answers/{name}"] = float(repeats)
        value[f"parse_failures/{name}"] = 0.0
    return value


def fbi_value(rng: np.random.Generator, task: Task, metadata: Mapping[str, Any]) -> dict[str, float]:
    """An FBI score value from bare answers, read by the suite's own ``judgments``."""
    paradigm, scale = task.metadata["paradigm"], task.metadata["scale"]
    if paradigm == "pairwise":
        answers = {
            name: str(rng.choice(["A", "B", "tie"], p=[0.6, 0.3, 0.1])) for name in ("gold_first", "gold_second")
        }
    else:
        names = ("perturbed",) if paradigm == "reference" else ("gold", "perturbed")
        answers = {name: str(rng.integers(max(1, scale - 3), scale + 1)) for name in names}
    value, _ = judgments(paradigm, answers, scale, bool(metadata["invariant"]))
    value.update(dict.fromkeys(EXPLANATION_KEYS, math.nan))
    return value


def human_scored_value(rng: np.random.Generator, task: Task, metadata: Mapping[str, Any]) -> dict[str, float]:
    """An adherence or CoEval scoring value: the judge's mean rating (or log-likelihood) per criterion scored."""
    ranges = {name: spec["range"] for name, spec in (task.metadata.get("criteria") or {}).items()}
    repeats = int(task.metadata.get("repeats", 1))
    value: dict[str, float] = {"parse_failures": 0.0}
    for name, human in metadata["human"].items():
        low, high = ranges.get(name, (1, 5))
        if rng.random() < UNPARSED_SHARE:
            value[name], value["parse_failures"] = math.nan, value["parse_failures"] + 1
        elif task.metadata.get("scoring") == "perplexity":
            value[name] = float(rng.normal(-2.0, 0.4) + 0.1 * human)
        else:
            value[name] = float(np.clip(np.rint(human + rng.normal(0, 1, repeats)), low, high).mean())
    return value


def criteria_value(rng: np.random.Generator, task: Task, metadata: Mapping[str, Any]) -> dict[str, float]:
    """A CoEval criteria value: consistency and expert match of one task description's lists."""
    criteria = float(rng.integers(4, 9))
    matched = float(rng.integers(0, criteria + 1))
    return {
        "cc": float(rng.uniform(0.6, 0.95)),
        "icc": float(rng.uniform(0.6, 0.95)),
        "coverage": float(rng.uniform(0, 1)),
        "missed": float(rng.integers(0, 4)),
        "matched": matched,
        "criteria": criteria,
        "parse_failures": 0.0,
        "identical_lists": 0.0,
    }


def suite_values(task_name: str) -> Values:
    """The value maker for a preset entry's task."""
    if task_name.startswith("dhp_tasks/"):
        return dhp_value
    if task_name.startswith("fbi_tasks/"):
        return fbi_value
    if task_name == "coeval_tasks/criteria":
        return criteria_value
    return human_scored_value


def scored_units(task: Task, values: Values, seed: int = 0) -> list[list[SampleScore]]:
    """The task's sample scores by unit, in dataset order: a DHP item with its perturbations, or one sample."""
    rng = np.random.default_rng(seed)
    units: dict[Any, list[SampleScore]] = {}
    for sample in task.dataset:
        metadata: Mapping[str, Any] = sample.metadata or {}
        score = SampleScore(
            score=Score(value=values(rng, task, metadata)), sample_id=sample.id, sample_metadata=dict(metadata)
        )
        units.setdefault(metadata.get("item_id", sample.id), []).append(score)
    return list(units.values())


def longest_recomputation(task: Task, values: Values, counts: str) -> tuple[float, float, int, int]:
    """The longest time the task's metric took (wall and this process's CPU seconds), the unit count it took it at,
    and the number of units."""
    metric = task.metrics[0]
    for table in (getattr(discernment, name, None) for name in ("_tie_pattern_tails", "_untied_tail")):
        if table is not None:  # each task builds its sign-flip tables anew, as a fresh process does
            table.cache_clear()
    units = scored_units(task, values)
    longest, cpu, at = 0.0, 0.0, 0
    for k in item_counts(len(units), counts):
        scores = [score for unit in units[:k] for score in unit]
        start, start_cpu = time.perf_counter(), time.process_time()
        metric(scores)
        elapsed = time.perf_counter() - start
        if elapsed > longest:
            longest, cpu, at = elapsed, time.process_time() - start_cpu, k
    return longest, cpu, at, len(units)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presets", nargs="+", default=["quick", "standard", "full"])
    parser.add_argument("--suites", nargs="+", help="task name prefixes to time (default: every task)")
    parser.add_argument("--counts", choices=["scan", "final"], default="scan")
    parser.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the metrics name undefined values once per run; here they would repeat
    print("| preset | task | units | samples | longest recomputation s | its CPU s | at units |")
    print("|---|---|---|---|---|---|---|")
    for preset_name in args.presets:
        for entry in load_preset(preset_name).tasks:
            if args.suites and not any(entry.task.startswith(prefix) for prefix in args.suites):
                continue
            task = build_task(entry, args.data, {"embedder": EMBEDDER})
            longest, cpu, at, n_units = longest_recomputation(task, suite_values(entry.task), args.counts)
            label = f"{entry.task} ({', '.join(f'{k}={v}' for k, v in entry.args.items())})"
            print(
                f"| {preset_name} | {label} | {n_units} | {len(task.dataset)} | {longest:.3f} | {cpu:.3f} | {at} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
