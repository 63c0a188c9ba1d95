"""``judge-meta-eval run``: every suite of a preset over one or more judges in one command, then the report.

Built on inspect's ``eval_set``: its retries, its resume (the same command run again continues where it stopped
and re-judges no finished sample), its progress display and its logs, one log folder per judge under
``--log-dir``. The command ends by writing ``judge-report`` for that folder. ``--dry-run`` calls no judge: it
counts the requests and tokens each task would send (:mod:`judge_meta_eval.dry_run`) and, with prices, the cost.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect as pyinspect
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval_set
from inspect_ai import eval as inspect_eval
from inspect_ai.model import GenerateConfig

from judge_data import DataError, OptionError
from judge_data.inspect_private import parse_cli_args
from judge_meta_eval import dry_run
from judge_meta_eval.presets import SUITES, Preset, PresetTask, load_preset, preset_names
from solvers.likelihood import gives_likelihoods
from solvers.logprob_scoring import gives_logprobs

DEFAULT_PRESET = "standard"
DEFAULT_LOG_DIR = "logs/judge-meta-eval"


@dataclass(frozen=True)
class Planned:
    """A preset's tasks for one judge: those it runs, and one line for each it skips."""

    tasks: tuple[PresetTask, ...]
    skipped: tuple[str, ...]


def plan(model: str, tasks: Sequence[PresetTask]) -> Planned:
    """The tasks ``model`` can run; a task that needs what its provider cannot give is skipped with a reason."""
    runnable, skipped = [], []
    for entry in tasks:
        if entry.scoring == "perplexity" and not gives_likelihoods(model):
            reason = "needs prompt log-likelihoods (hf/, vllm-completions/, openai-api-completions/)"
        elif entry.scoring == "logprobs" and not gives_logprobs(model):
            reason = "needs top log-probabilities, which this provider does not return"
        elif entry.task == "coeval_tasks/criteria" and importlib.util.find_spec("sentence_transformers") is None:
            reason = "needs sentence-transformers (pip install 'judge-meta-eval[coeval]')"
        else:
            runnable.append(entry)
            continue
        skipped.append(f"skipped {entry.label()} for {model}: {reason}")
    return Planned(tuple(runnable), tuple(skipped))


def build_task(entry: PresetTask, data_root: Path | None, overrides: Mapping[str, Any]) -> Task:
    """The inspect task of a preset entry: its options, the data under ``data_root``, the task options the user
    overrides (those the task takes), and the preset's bound on answer length."""
    package, name = entry.task.split("/", 1)
    function = getattr(importlib.import_module(f"{package}._registry"), name)
    args = dict(entry.args)
    if data_root is not None and entry.data:
        args["data_dir"] = str(data_root / entry.data)
    taken = set(pyinspect.signature(function).parameters)
    args.update({option: value for option, value in overrides.items() if option in taken})
    task = function(**args)
    if entry.max_tokens is not None:
        task.config = GenerateConfig(max_tokens=entry.max_tokens).merge(task.config)
    return task


def _pairs(values: Sequence[str] | None, flag: str) -> dict[str, Any]:
    """``name=value`` options, read as inspect reads ``-M`` and ``-T`` (YAML scalars, comma lists)."""
    malformed = [value for value in values or [] if "=" not in value or value.startswith("=")]
    if malformed:
        raise OptionError(f"{flag} takes name=value, got {malformed}")
    return parse_cli_args(list(values or []))


def _log_folder(log_dir: Path, model: str) -> Path:
    """One eval-set folder per judge: inspect keeps an eval set's folder to its own tasks."""
    return log_dir / re.sub(r"[^A-Za-z0-9._-]+", "_", model)


def parser() -> argparse.ArgumentParser:
    """The command line of ``judge-meta-eval``."""
    parse = argparse.ArgumentParser(
        prog="judge-meta-eval", description="Benchmark LLM judges: every suite of a preset in one command."
    )
    commands = parse.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a preset over one or more judges, then write the report")
    run.add_argument("--model", required=True, help="judge(s), comma-separated inspect model names")
    run.add_argument("--preset", default=DEFAULT_PRESET, help=f"{', '.join(preset_names())} or a preset file")
    run.add_argument("--suites", default=",".join(SUITES), help=f"comma list of {', '.join(SUITES)} (default all)")
    run.add_argument("--log-dir", default=DEFAULT_LOG_DIR, help=f"where the logs go (default {DEFAULT_LOG_DIR})")
    run.add_argument("--report", default="judge-report", help="where the report goes (default judge-report)")
    run.add_argument("--alias", action="append", default=[], metavar="MODEL=NAME", help="the report's name for a judge")
    run.add_argument("--data-root", help="a local copy of the data in the shared layout (default: public sources)")
    run.add_argument("--dry-run", action="store_true", help="count requests, tokens and cost; call no judge")
    run.add_argument("--price-in", type=float, help="$ per million prompt tokens (with --dry-run)")
    run.add_argument("--price-out", type=float, help="$ per million generated tokens (with --dry-run)")
    run.add_argument("-M", dest="model_args", action="append", metavar="NAME=VALUE", help="model argument")
    run.add_argument("-T", dest="task_options", action="append", metavar="NAME=VALUE", help="task option override")
    run.add_argument("--model-role", action="append", metavar="ROLE=MODEL", help="a model role (FBI's checker)")
    run.add_argument("--max-connections", type=int, help="concurrent requests per judge")
    run.add_argument("--max-tokens", type=int, help="bound on every answer's length (overrides the preset's)")
    run.add_argument("--max-tasks", type=int, default=4, help="tasks run at once (default 4)")
    return parse


def _suites(value: str) -> list[str]:
    chosen = [part.strip() for part in value.split(",") if part.strip()]
    unknown = sorted(set(chosen) - set(SUITES))
    if unknown or not chosen:
        raise OptionError(f"--suites: unknown suite(s) {unknown}; choose from {list(SUITES)}")
    return chosen


def run_preset(args: argparse.Namespace, preset: Preset, models: list[str]) -> bool:
    """Every judge through the preset (one eval set each), then the report; whether every task completed."""
    tasks = preset.for_suites(_suites(args.suites))
    data_root = Path(args.data_root) if args.data_root else None
    overrides = _pairs(args.task_options, "-T")
    log_dir = Path(args.log_dir)
    generate = {"max_tokens": args.max_tokens} if args.max_tokens else {}
    complete = True
    for model in models:
        planned = plan(model, tasks)
        for line in planned.skipped:
            print(line)
        if not planned.tasks:
            continue
        success, _ = eval_set(
            [build_task(entry, data_root, overrides) for entry in planned.tasks],
            log_dir=str(_log_folder(log_dir, model)),
            model=model,
            model_args=_pairs(args.model_args, "-M"),
            model_roles=_pairs(args.model_role, "--model-role") or None,
            max_connections=args.max_connections,
            max_tasks=args.max_tasks,
            metadata=preset.metadata(),
            log_dir_allow_dirty=True,
            **generate,
        )
        complete = complete and success
    if not complete:
        print("not every task completed; run the same command again to continue where it stopped")
    from judge_report.cli import run as write_report

    write_report([str(log_dir), "--out", args.report, *(f"--alias={alias}" for alias in args.alias)])
    return complete


def dry_run_preset(args: argparse.Namespace, preset: Preset, models: list[str]) -> list[dry_run.TaskCount]:
    """Per judge, what each task would ask of it, printed as a table; no judge is called."""
    tasks = preset.for_suites(_suites(args.suites))
    data_root = Path(args.data_root) if args.data_root else None
    overrides = _pairs(args.task_options, "-T")
    model_args = _pairs(args.model_args, "-M")
    generate = {"max_tokens": args.max_tokens} if args.max_tokens else {}
    counts: list[dry_run.TaskCount] = []
    for model in models:
        planned = plan(model, tasks)
        counter = dry_run.token_counter(model, model_args)
        judge_counts = []
        with tempfile.TemporaryDirectory() as logs:
            for entry in planned.tasks:
                task = build_task(entry, data_root, overrides)
                dry_run.REQUESTS.clear()
                inspect_eval(
                    task,
                    model=f"{dry_run.PROVIDER}/{model}",
                    score=False,
                    log_dir=logs,
                    display="none",
                    max_connections=64,
                    **generate,
                )
                judge_counts.append(dry_run.task_count(entry.label(), len(task.dataset), dry_run.REQUESTS, counter))
        print(dry_run.table(preset, model, judge_counts, counter, planned.skipped, args.price_in, args.price_out))
        counts += judge_counts
    return counts


def main(argv: list[str] | None = None) -> None:
    """``judge-meta-eval``: a bad input ends with one message naming it, not a traceback."""
    args = parser().parse_args(argv)
    try:
        preset = load_preset(args.preset)
        models = [model.strip() for model in args.model.split(",") if model.strip()]
        if args.dry_run:
            dry_run_preset(args, preset, models)
            return
        if not run_preset(args, preset, models):
            sys.exit(1)
    except (DataError, OptionError) as error:
        print(f"judge-meta-eval: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
