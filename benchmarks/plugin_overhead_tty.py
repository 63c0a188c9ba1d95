"""Benchmark: the plugin against bare inspect where a user sees it, in a terminal.

    python benchmarks/plugin_overhead_tty.py --n 20 --repeats 5 --runs 5

The same two tasks as ``benchmarks/plugin_overhead.py`` (``dhp_tasks/summeval`` on ``--n`` items with ``--repeats``
answers per prompt, and a bare inspect task making the same requests), the same stand-in judge (served by this
process on 127.0.0.1, so its threads are not counted), but each run in a process of its own whose standard input,
output and error are a pseudo-terminal (``--columns`` x ``--rows``), so inspect draws its live display as in a
user's terminal (``--display``, inspect's default ``full``; the metrics are recomputed while the run goes). The runs
alternate, plugin then bare. Per run it prints the load average before it, the wall and CPU seconds (user + system)
of the whole process from the rusage the kernel reports (start-up and imports included) and of the eval alone as
the process timed it, and the bytes the display wrote; then the ratios plugin / bare of the medians, and of the
least. Ablations: ``--no-score-display`` (both tasks: no metrics recomputed while the run goes), ``--headlines-only``
(the plugin's DHP metric keeps its headlines and their intervals, 17 values instead of 114); ``--profile DIR`` writes
each run's cProfile of its eval.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pty
import statistics
import struct
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO))  # the tests' stand-in judge; the suites come from the installed package or PYTHONPATH


def child(args: argparse.Namespace) -> None:
    """One run, in this process (started under the pseudo-terminal): write its eval's wall and CPU seconds."""
    import termios
    from fcntl import ioctl

    from inspect_ai import eval as inspect_eval
    from inspect_ai import task_with
    from inspect_ai.model import get_model

    from benchmarks.plugin_overhead import bare_task, plugin_task

    ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack("HHHH", args.rows, args.columns, 0, 0))
    plugin = plugin_task(args.data, args.n, args.repeats)
    task = plugin if args.child == "plugin" else bare_task(plugin, args.repeats)
    if args.child == "plugin" and args.headlines_only:
        task = task_with(plugin, scorer=headlines_only(plugin))
    model = get_model("openai-api/fakejudge/judge", base_url=args.url, api_key="bench", memoize=False)
    profile = cProfile.Profile() if args.profile else None
    start, start_cpu = time.perf_counter(), time.process_time()
    if profile is not None:
        profile.enable()
    inspect_eval(
        task,
        model=model,
        log_dir=args.log_dir,
        display=args.display,
        max_connections=args.max_connections,
        score_display=not args.no_score_display,
    )
    times = {"wall": time.perf_counter() - start, "cpu": time.process_time() - start_cpu}
    if profile is not None:
        profile.disable()
        profile.dump_stats(str(Path(args.profile) / f"{args.child}.pstats"))
    Path(args.result).write_text(json.dumps(times), encoding="utf-8")


def headlines_only(plugin: object):
    """An ablation: the plugin's scorer with DHP's metric keeping only its headlines and their intervals (about a
    dozen values, not a hundred), the same computation: what logging the details only on request would save."""
    from inspect_ai.scorer import metric, scorer

    from scorers.dhp import HEADLINES, dhp_discernment

    kept = tuple(HEADLINES) + tuple(f"{name}_ci_" for name in HEADLINES)

    @metric(name="dhp_headlines")
    def headlines() -> object:
        full = dhp_discernment(plugin.metadata["metrics"])  # type: ignore[attr-defined]

        def compute(scores: list) -> dict[str, float]:
            return {key: value for key, value in full(scores).items() if key.startswith(kept)}

        return compute

    @scorer(metrics=[headlines()], name="mean_ratings_headlines")
    def rated() -> object:
        return plugin.scorer[0]  # type: ignore[attr-defined]

    return rated()


def under_pty(command: list[str]) -> tuple[float, float, int, int]:
    """Run ``command`` with a pseudo-terminal as its terminal, reading all it draws; its wall seconds, CPU seconds
    (user + system, from the kernel's rusage), exit status, and bytes written."""
    start = time.perf_counter()
    pid, master = pty.fork()
    if pid == 0:
        environment = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
        os.execve(command[0], command, {**environment, "TERM": "xterm-256color"})
    written = 0
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        written += len(chunk)
    _, status, usage = os.wait4(pid, 0)
    os.close(master)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status), written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20, help="SummEval items")
    parser.add_argument("--repeats", type=int, default=5, help="answers per prompt")
    parser.add_argument("--runs", type=int, default=5, help="runs of each task, alternating")
    parser.add_argument("--max-connections", type=int, default=32)
    parser.add_argument("--display", default="full", help="inspect's display (default full, as inspect eval)")
    parser.add_argument("--columns", type=int, default=120)
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument(
        "--headlines-only",
        action="store_true",
        help="ablation: the plugin's DHP metric returns only its headlines and their intervals",
    )
    parser.add_argument(
        "--no-score-display", action="store_true", help="both tasks: no metrics recomputed while the run goes"
    )
    parser.add_argument("--profile", metavar="DIR", help="write each run's cProfile of its eval to DIR")
    parser.add_argument("--child", choices=("plugin", "bare"), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--log-dir", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return

    from benchmarks.plugin_overhead import request_signature, stand_in_rating
    from tests.support.fake_judge import serve

    measured: dict[str, dict[str, list[float]]] = {name: {} for name in ("plugin", "bare")}
    requests: dict[str, Counter[str]] = {}
    with tempfile.TemporaryDirectory() as folder, serve(stand_in_rating) as (url, calls):
        for run in range(args.runs):
            for name in ("plugin", "bare"):
                calls.clear()
                result = Path(folder) / f"{name}{run}.json"
                command = [
                    sys.executable, str(Path(__file__).resolve()), "--child", name, "--url", url,
                    "--log-dir", str(Path(folder) / f"{name}{run}"), "--result", str(result), "--n", str(args.n),
                    "--repeats", str(args.repeats), "--max-connections", str(args.max_connections),
                    "--display", args.display, "--columns", str(args.columns), "--rows", str(args.rows),
                    "--data", str(args.data), *(["--headlines-only"] if args.headlines_only else []),
                    *(["--no-score-display"] if args.no_score_display else []),
                    *(["--profile", args.profile] if args.profile else []),
                ]  # fmt: skip
                load = os.getloadavg()[0]
                wall, cpu, status, written = under_pty(command)
                if status != 0 or not result.is_file():
                    raise SystemExit(f"the {name} run failed (exit status {status})")
                timed = json.loads(result.read_text(encoding="utf-8"))
                figures = {"wall": wall, "cpu": cpu, "eval_wall": timed["wall"], "eval_cpu": timed["cpu"]}
                for key, value in figures.items():
                    measured[name].setdefault(key, []).append(value)
                requests[name] = Counter(map(request_signature, calls))
                print(
                    f"run {run + 1} {name}: load {load:.2f}; process {wall:.2f} s wall, {cpu:.2f} s CPU; eval "
                    f"{timed['wall']:.2f} s wall, {timed['cpu']:.2f} s CPU; {len(calls)} requests; display wrote "
                    f"{written:,} bytes",
                    flush=True,
                )
    if requests["plugin"] != requests["bare"]:
        raise SystemExit("the two tasks did not send the same requests")
    print(f"load average (1, 5, 15 min) at the end: {', '.join(f'{value:.2f}' for value in os.getloadavg())}")
    for key in ("wall", "cpu", "eval_wall", "eval_cpu"):
        plugin, bare = measured["plugin"][key], measured["bare"][key]
        print(
            f"{key}: plugin / bare of the medians {statistics.median(plugin) / statistics.median(bare):.3f} "
            f"(plugin {statistics.median(plugin):.2f} s, bare {statistics.median(bare):.2f} s), of the least "
            f"{min(plugin) / min(bare):.3f}; runs' ratios "
            + ", ".join(f"{p / b:.2f}" for p, b in zip(plugin, bare, strict=True))
        )


if __name__ == "__main__":
    main()
