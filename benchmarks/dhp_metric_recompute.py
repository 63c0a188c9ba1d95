"""Benchmark: how long the DHP metric takes on partial results, at every preset's DHP sizes.

    python benchmarks/dhp_metric_recompute.py --presets quick standard full

inspect recomputes a task's metrics on the event loop while the run is in progress (after a sample completes, at
most every 0.9 s or ten times the last recomputation's time, whichever is longer) and once at the end; while a
recomputation runs, no request is sent and no answer is read. For each DHP task of each preset this builds the
task as the preset does (data from ``../shared/data``), gives its samples judge-like score values (mean ratings
of ``repeats`` whole-number answers on the task's scale, so that small samples have the ties that make Wilcoxon
tests expensive; log-likelihoods for ``scoring=perplexity``), and times the task's own metric on the samples of
the first k items, as a run that completes items in order sees them, for k = 1 .. 16 and then every tenth of n.
It prints, per task, the longest recomputation and the k where it happened.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from inspect_ai import Task
from inspect_ai.scorer import SampleScore, Score

from judge_meta_eval.cli import build_task
from judge_meta_eval.presets import load_preset
from scorers import discernment

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def item_counts(n: int) -> list[int]:
    """Every count up to 16 (where scipy's exact and permutation tests live), then every tenth of ``n``."""
    return sorted({*range(1, min(n, 16) + 1), *(math.ceil(n * tenth / 10) for tenth in range(1, 11))})


def judge_like_value(
    rng: np.random.Generator, metrics: Sequence[str], original: bool, repeats: int, likelihood: bool
) -> dict[str, float]:
    """A score value as the task's scorer makes it: per metric the mean rating and its answer counts."""
    value: dict[str, float] = {}
    for name in metrics:
        if likelihood:
            value[name] = float(rng.normal(-2.0, 0.3) - (0.0 if original else abs(rng.normal(0.05, 0.1))))
            continue
        ratings = np.clip(rng.integers(3, 6, repeats) - (0 if original else rng.integers(0, 2, repeats)), 1, 5)
        value[name] = float(ratings.mean())
        value[f"answers/{name}"] = float(repeats)
        value[f"parse_failures/{name}"] = 0.0
    return value


def sample_scores(task: Task, repeats: int, seed: int = 0) -> dict[str, list[SampleScore]]:
    """Each item's sample scores, items in dataset order."""
    rng = np.random.default_rng(seed)
    metrics = task.metadata["metrics"]
    likelihood = task.metadata.get("scoring") == "perplexity"
    by_item: dict[str, list[SampleScore]] = {}
    for sample in task.dataset:
        metadata: Mapping[str, Any] = sample.metadata or {}
        value = judge_like_value(rng, metrics, metadata["perturbation"] == "original", repeats, likelihood)
        by_item.setdefault(metadata["item_id"], []).append(
            SampleScore(score=Score(value=value), sample_id=sample.id, sample_metadata=dict(metadata))
        )
    return by_item


def longest_recomputation(task: Task, repeats: int) -> tuple[float, int, int]:
    """The longest time the task's metric took, the item count it took it at, and the number of items."""
    metric = task.metrics[0]
    for table in (getattr(discernment, name, None) for name in ("_tie_pattern_tails", "_untied_tail")):
        if table is not None:  # each task builds its sign-flip tables anew, as a fresh process does
            table.cache_clear()
    by_item = list(sample_scores(task, repeats).values())
    longest, at = 0.0, 0
    for k in item_counts(len(by_item)):
        scores = [score for item in by_item[:k] for score in item]
        start = time.perf_counter()
        metric(scores)
        elapsed = time.perf_counter() - start
        if elapsed > longest:
            longest, at = elapsed, k
    return longest, at, len(by_item)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presets", nargs="+", default=["quick", "standard", "full"])
    parser.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    args = parser.parse_args()
    print("| preset | task | items | perturbations | metrics | longest recomputation s | at items |")
    print("|---|---|---|---|---|---|---|")
    for preset_name in args.presets:
        for entry in load_preset(preset_name).tasks:
            if not entry.task.startswith("dhp_tasks/"):
                continue
            task = build_task(entry, args.data, {})
            repeats = int(entry.args.get("repeats", 1))
            longest, at, n_items = longest_recomputation(task, repeats)
            label = f"{entry.task} ({', '.join(f'{k}={v}' for k, v in entry.args.items())})"
            print(
                f"| {preset_name} | {label} | {n_items} | {len(task.metadata['perturbations'])} | "
                f"{len(task.metadata['metrics'])} | {longest:.3f} | {at} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
