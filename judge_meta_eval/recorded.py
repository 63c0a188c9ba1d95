"""``judge-meta-eval recorded``: judgments already made, meta-evaluated without calling their judge, then the report.

A judgments file (``docs/recorded_judgments.md``) may hold several judges and prompt labels; each pair becomes one
run of the task (``-T judgments=<file> -T judge=<judge> -T prompt=<label>``) under ``--model none``, all of them in
one inspect ``eval_set`` (run it again to resume), and the command ends by writing ``judge-report`` for the log
folder, with the published values ``--published`` names beside the measured ones.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval_set

from judge_data import OptionError
from judge_data.recorded import recorded_judges
from judge_suites import task_function as registered_task

NO_MODEL = "none"
"""inspect's model for tasks that call none."""

DEFAULT_LOG_DIR = "logs/recorded"


def add_parser(commands: Any) -> None:
    """The ``recorded`` command's arguments."""
    recorded = commands.add_parser(
        "recorded",
        help="meta-evaluate recorded judgments (a JSONL or CSV file): one run per judge and prompt label, then the "
        "report",
    )
    recorded.add_argument("judgments", help="the judgments file: one row per judgment (docs/recorded_judgments.md)")
    recorded.add_argument(
        "--task", required=True, help="the task they judge, as inspect names it (adherence_tasks/hanna)"
    )
    recorded.add_argument("-T", dest="task_options", action="append", metavar="NAME=VALUE", help="task option")
    recorded.add_argument("--log-dir", default=DEFAULT_LOG_DIR, help=f"where the logs go (default {DEFAULT_LOG_DIR})")
    recorded.add_argument("--report", default="judge-report", help="where the report goes (default judge-report)")
    recorded.add_argument(
        "--published",
        action="append",
        default=[],
        metavar="FILE",
        help="published values to show beside the measured ones (judge-report --published); repeatable",
    )
    recorded.add_argument("--max-tasks", type=int, default=4, help="runs at once (default 4)")
    recorded.add_argument("--display", help="inspect's progress display (default full)")


def task_function(task: str) -> Any:
    """The registered task function of ``<suite>_tasks/<task>``."""
    function = registered_task(task)
    if function is None:
        raise OptionError(f"--task {task}: not a task of this package; name it <suite>_tasks/<task>, as inspect does")
    return function


def recorded_tasks(judgments: Path, task: str, options: Mapping[str, Any]) -> list[Task]:
    """One task per judge and prompt label of the file, each reading that judge's rows under that label."""
    function = task_function(task)
    chosen = {name for name in ("judgments", "judge", "prompt") if name in options}
    if chosen:
        raise OptionError(f"-T {', '.join(sorted(chosen))}: the command sets them, one run per judge and prompt label")
    return [
        function(**options, judgments=str(judgments), judge=judge, **({"prompt": prompt} if prompt is not None else {}))
        for judge, prompt in recorded_judges(judgments)
    ]


def run_recorded(args: argparse.Namespace, options: Mapping[str, Any]) -> bool:
    """Every judge of the file through the task in one eval set, then the report; whether every run completed."""
    from judge_meta_eval.cli import writable_folder
    from judge_report.cli import run as write_report

    tasks = recorded_tasks(Path(args.judgments), args.task, options)
    log_dir = writable_folder(args.log_dir, "--log-dir")
    writable_folder(args.report, "--report")
    success, _ = eval_set(
        tasks,
        log_dir=str(log_dir),
        model=NO_MODEL,
        max_tasks=args.max_tasks,
        log_dir_allow_dirty=True,
        **({"display": args.display} if args.display else {}),
    )
    write_report([str(log_dir), "--out", args.report, *(f"--published={name}" for name in args.published)])
    return success
