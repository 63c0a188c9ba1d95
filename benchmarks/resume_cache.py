"""Benchmark: what a resumed ``judge-meta-eval run`` sends to the judge a second time, with the run's request cache
(the default) and without it (``--no-cache``).

    python benchmarks/resume_cache.py --shares 0.25 0.5 0.75 --runs 1

The judge is the tests' stand-in (``tests/support/fake_judge.py``, an OpenAI-compatible server on 127.0.0.1 that
answers after ``--delay`` seconds). Each measurement starts the quick preset's DHP and FBI suites (``--suites``)
in a new log folder, sends SIGINT to the command once ``share`` of the preset's requests were answered, SIGTERM 3 s
later if it still runs, then runs the same command again and counts the requests the judge received. A request
sent twice is one whose messages and settings the judge had already answered; the check that each run sends
before its tasks (``judge check`` in the dry run) is counted apart. Uses the installed ``judge-meta-eval``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO))  # the tests' stand-in judge

from judge_meta_eval.cli import CHECK_PROMPT  # noqa: E402
from tests.support.fake_judge import serve  # noqa: E402

COMMAND = str(Path(sys.executable).parent / "judge-meta-eval")


def answer(prompt: str) -> str:
    """A verdict for pairwise prompts, a rating for the others."""
    return "[[A]]" if "[Answer A]" in prompt else "Rating: [[3]]"


def command(log_root: Path, suites: str, data: Path, no_cache: bool) -> list[str]:
    return [
        COMMAND, "run", "--model", "openai-api/standin/judge-a", "--preset", "quick", "--suites", suites,
        "--data-root", str(data), "--log-dir", str(log_root / "logs"), "--report", str(log_root / "report"),
        "--display", "plain", *(["--no-cache"] if no_cache else []),
    ]  # fmt: skip


def environment(url: str, folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "STANDIN_BASE_URL": url,
        "STANDIN_API_KEY": "bench",
        "INSPECT_CACHE_DIR": str(folder / "inspect-cache"),  # inspect's shared cache, unused unless --cache
        "COLUMNS": "200",
    }


def planned_requests(suites: str, data: Path) -> int:
    """The dry run's total for the stand-in judge (the check included)."""
    with tempfile.TemporaryDirectory() as folder:
        printed = subprocess.run(
            [*command(Path(folder), suites, data, False), "--dry-run"],
            env=environment("http://127.0.0.1:9", Path(folder)),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    total = next(line for line in printed.splitlines() if line.startswith("total "))
    return int(re.split(r"\s{2,}", total)[2].replace(",", ""))


def is_check(call: dict) -> bool:
    return call["messages"][-1]["content"] == CHECK_PROMPT


def signature(call: dict) -> str:
    return json.dumps([call["messages"], call.get("n"), call.get("temperature"), call.get("max_tokens")])


def measure(share: float, planned: int, suites: str, data: Path, no_cache: bool, delay: float) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as folder, serve(answer, delay=delay) as (url, calls):
        root = Path(folder)
        first = subprocess.Popen(
            command(root, suites, data, no_cache),
            env=environment(url, root),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.monotonic() + 600
        while len(calls) < share * planned and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        interrupted_at = len(calls)
        os.killpg(first.pid, signal.SIGINT)
        try:
            first.wait(timeout=3)
        except subprocess.TimeoutExpired:
            os.killpg(first.pid, signal.SIGTERM)
            first.wait()
        time.sleep(0.5)  # the stand-in records a request after its delay: let the last ones land
        before = len(calls)
        second = subprocess.run(
            command(root, suites, data, no_cache), env=environment(url, root), capture_output=True, text=True
        )
        if second.returncode != 0:
            raise SystemExit(f"the resumed run failed:\n{second.stdout[-2000:]}\n{second.stderr[-2000:]}")
        judged = [call for call in calls if not is_check(call)]
        seen = Counter(map(signature, judged))
    return {
        "interrupted_at": interrupted_at,
        "answered_before_exit": sum(not is_check(call) for call in calls[:before]),
        "asked_by_resume": sum(not is_check(call) for call in calls[before:]),
        "sent_twice": sum(count - 1 for count in seen.values()),
        "checks": sum(map(is_check, calls)),
        "exit_status": first.returncode,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shares", type=float, nargs="+", default=[0.25, 0.5, 0.75])
    parser.add_argument("--runs", type=int, default=1, help="measurements per share and setting")
    parser.add_argument("--suites", default="dhp,fbi")
    parser.add_argument("--delay", type=float, default=0.05, help="seconds the stand-in takes per request")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    args = parser.parse_args()
    planned = planned_requests(args.suites, args.data)
    print(f"quick preset, --suites {args.suites}: {planned} requests planned (the dry run's total, check included)")
    print("| cache | SIGINT after | answered before the process ended | asked by the resumed run | sent twice | exit |")
    print("|---|---|---|---|---|---|")
    for share in args.shares:
        for no_cache in (False, True):
            for _ in range(args.runs):
                row = measure(share, planned, args.suites, args.data, no_cache, args.delay)
                setting = "--no-cache" if no_cache else "the run's own"
                print(
                    f"| {setting} | {row['interrupted_at']} ({share:.0%}) | "
                    f"{row['answered_before_exit']} | {row['asked_by_resume']} | {row['sent_twice']} | "
                    f"{row['exit_status']} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
