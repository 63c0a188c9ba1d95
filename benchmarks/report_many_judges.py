"""Benchmark: ``judge-report``'s wall time on twenty judges of HANNA's size, one core.

    pip install --no-deps . && python benchmarks/report_many_judges.py --data-dir ../shared/data/human/hanna

The HANNA report of recorded LLM judges has 20 judges on 1,005 stories x 6 criteria: its adherence column is 190
pairs of judges, each compared on the stories both answered, with the human ceiling table on the same footing. The
logs: one run of ``adherence_tasks/hanna`` (``setting=criterion``) against the tests' stand-in judge
(``tests/support/fake_judge.py``), copied 20 times with each copy's scores replaced by a simulated judge's (the
human mean plus noise of sd 0.6 to 1.74, rounded to 1-5, 0.5 % of the answers unparsed, every judge its own) and
its metrics recomputed by the suite's own function, so that every judge has its own value and unanswered stories.
Timed: the whole command (``judge-report LOGS --out DIR``, HTML and plots included) in a subprocess, and, in this
process, reading the logs, building the report (pooled cells, comparisons, references, the ceiling table) and the
comparisons alone. Numpy's BLAS is kept to one thread. Results: docs/benchmarks.md.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from inspect_ai.log import read_eval_log, write_eval_log  # noqa: E402

from adherence_tasks.report import adherence_pearson  # noqa: E402
from judge_data.views import Sample  # noqa: E402
from judge_report.items import CachedReader, headline_statistic  # noqa: E402
from judge_report.runs import Run, read_runs  # noqa: E402
from judge_report.tables import build_report  # noqa: E402
from scorers.paired import compare_all  # noqa: E402
from tests.support.commands import INSPECT  # noqa: E402
from tests.support.fake_judge import constant, serve  # noqa: E402

JUDGES = 20
UNPARSED = 0.005


def template_log(data_dir: Path, log_dir: Path) -> Path:
    """One run of the HANNA task over every story against the stand-in judge (its answers are replaced later)."""
    command = [
        INSPECT, "eval", "adherence_tasks/hanna", "--model", "openai-api/fakejudge/template",
        "-T", f"data_dir={data_dir}", "-T", "setting=criterion", "--log-dir", str(log_dir),
        "--display", "none", "--max-connections", "64",
    ]  # fmt: skip
    with serve(constant("Score: 3")) as (url, _):
        env = {**os.environ, "FAKEJUDGE_BASE_URL": url, "FAKEJUDGE_API_KEY": "test"}
        subprocess.run(command, env=env, check=True, cwd=log_dir)
    (log,) = log_dir.glob("*.eval")
    return log


def simulated_judges(template: Path, out: Path) -> None:
    """The template's copies, judge j's scores the human mean plus noise of sd 0.6 + 0.06 j (rounded, 1-5) and
    :data:`UNPARSED` of them NaN, its headline ``pearson`` recomputed as the suite computes it (the report reads the
    other metrics only for the suite tables)."""
    log = read_eval_log(str(template))
    criteria = log.eval.metadata["criteria"]
    rng = np.random.default_rng(0)
    for judge in range(JUDGES):
        noise = 0.6 + 0.06 * judge
        for sample in log.samples or []:
            score = next(iter((sample.scores or {}).values()))
            value = dict(score.value)  # type: ignore[arg-type]
            for name in criteria:
                human = float(sample.metadata["human"][name])
                rated = float(np.clip(np.rint(human + rng.normal(0, noise)), 1, 5))
                value[name] = float("nan") if rng.random() < UNPARSED else rated
            value["parse_failures"] = float(sum(np.isnan(value[name]) for name in criteria))
            score.value = value
        run = Run(str(template), "inspect", "adherence_hanna", "", "", {}, dict(log.eval.metadata), {}, {}, 0, "")
        samples = [Sample(str(s.id), s.metadata, next(iter(s.scores.values())).value, {}) for s in log.samples or []]
        pearson = adherence_pearson(run, samples).estimate()
        for metric in (log.results.scores[0].metrics if log.results else {}).values():
            if metric.name == "pearson":
                metric.value = pearson
        log.eval.model = f"openai-api/fakejudge/judge-{judge:02d}"
        write_eval_log(log, str(out / f"judge-{judge:02d}.eval"))
        print(f"judge {judge}: pearson {pearson:.3f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="HANNA's folder (items.jsonl, criteria.json)")
    parser.add_argument("--keep", type=Path, help="write the logs here and reuse them when they are there")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = args.keep or Path(folder)
        if not (root / "logs").is_dir():
            (root / "template").mkdir(parents=True)
            (root / "logs").mkdir()
            started = time.perf_counter()
            simulated_judges(template_log(args.data_dir.resolve(), root / "template"), root / "logs")
            print(f"logs written in {time.perf_counter() - started:.0f} s", flush=True)

        started = time.perf_counter()
        subprocess.run([str(Path(sys.executable).parent / "judge-report"), str(root / "logs"), "--out",
                        str(root / "report")], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
        command = time.perf_counter() - started

        started = time.perf_counter()
        runs, _ = read_runs([root / "logs"])
        reader = CachedReader()
        stories = len(reader(runs[0]))  # type: ignore[arg-type]
        for run in runs:
            reader(run)
        reading = time.perf_counter() - started
        started = time.perf_counter()
        report = build_report(runs, items=reader)
        building = time.perf_counter() - started
        statistics = {run.judge: [headline_statistic(run, "adherence", "pearson", reader)] for run in runs}
        started = time.perf_counter()
        compare_all(statistics)  # type: ignore[arg-type]
        comparing = time.perf_counter() - started
        column = report.leaderboard.columns[0]
        ranks = sorted(
            (row[0], report.leaderboard.cells[(row, column)].rank)
            for row in report.leaderboard.rows
            if row not in report.leaderboard.references
        )
    print(
        f"{len(runs)} judges x {stories} stories: judge-report {command:.1f} s; in this process: reading the logs' "
        f"samples {reading:.1f} s, building the report {building:.1f} s ({len(report.comparisons)} pairs compared; "
        f"the comparisons alone {comparing:.1f} s); ranks, least noisy judge first: {[rank for _, rank in ranks]}"
    )


if __name__ == "__main__":
    main()
