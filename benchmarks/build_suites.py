"""Benchmark: build every DHP suite with the rule-based perturbations only (no perturber model).

Prints seconds per dataset (loading the pool, selecting n items, applying every rule-based
perturbation and writing the suite file), best of several repeats.

    python benchmarks/build_suites.py [--data ../shared/data/dhp] [--n 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from dhp_tasks.data import DATASETS
from dhp_tasks.perturbations import PERTURBATIONS
from dhp_tasks.suite import build_suite, write_suite


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "dhp"))
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'dataset':<20}{'items':>6}{'variants':>10}{'best s':>9}")
    with tempfile.TemporaryDirectory() as scratch:
        for dataset, spec in DATASETS.items():
            rule_ids = ",".join(p.id for p in PERTURBATIONS[dataset])
            timings = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                suite = asyncio.run(build_suite(dataset, str(Path(args.data) / spec.folder), args.n, 0, rule_ids))
                write_suite(suite, Path(scratch) / f"{dataset}.jsonl")
                timings.append(time.perf_counter() - start)
            variants = sum(len(v) for v in suite.variants.values())
            print(f"{dataset:<20}{len(suite.items):>6}{variants:>10}{min(timings):>9.3f}")


if __name__ == "__main__":
    main()
