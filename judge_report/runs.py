"""Finished runs, read from inspect eval logs (headers only) or lm-eval results JSON, as one shape for the report."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, cast

from judge_data import DataError
from judge_data.views import Run, judge_name
from lm_eval_tasks import JUDGMENTS_OPTION

RECORDED_METADATA = "recorded"
"""Task metadata of a run of recorded judgments: the file, its SHA-256, the judge and the prompt label it read."""

RECORDED_PROVIDER = "recorded"
"""The model name's provider part of a recorded judge (``recorded/ChatGPT``): never a live model's name."""


def recorded_model(recorded: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """A recorded judge as a model and its arguments: ``recorded/<judge>`` with its prompt label, so that two prompt
    labels of one judge are two judges, and a judge recorded in several files (one per suite) is one."""
    prompt = recorded.get("prompt")
    return f"{RECORDED_PROVIDER}/{recorded['judge']}", ({} if prompt is None else {"prompt": str(prompt)})


BASE_URL = "base_url"
"""The model argument a judge's base URL is listed under: one model name served from two URLs is two judges."""


def base_url(url: str | None) -> dict[str, str]:
    """``{"base_url": url}`` where the log records one (inspect's ``--model-base-url``), else nothing."""
    return {BASE_URL: url} if url else {}


def role_base_urls(roles: Mapping[str, Any] | None, models: list[str]) -> dict[str, str]:
    """The base URL of the model roles bound to the models a grader called (``--model-role grader=...`` with
    ``base_url=``), where the log records one; several are joined."""
    configs = [config for bound in (roles or {}).values() for config in (bound if isinstance(bound, list) else [bound])]
    urls = sorted({str(config.base_url) for config in configs if config.model in models and config.base_url})
    return {BASE_URL: ", ".join(urls)} if urls else {}


GRADER_METADATA = "grader"
"""Task metadata of the ``grader`` tasks: the scorer under test, its arguments and their hash."""


def grader_name(metadata: Mapping[str, Any]) -> str | None:
    """The grader under test as a judge is named after it: the scorer, and a hash of its arguments where it has any
    (``model_graded_fact #3f2a9c``); ``None`` for the suites' own judge prompts."""
    grader = metadata.get(GRADER_METADATA)
    if not isinstance(grader, Mapping):
        return None
    hashed = f" #{str(grader.get('scorer_args_hash', ''))[:6]}" if grader.get("scorer_args") else ""
    return f"{grader['scorer']}{hashed}"


def log_files(paths: Iterable[str | Path]) -> list[str]:
    """Inspect logs and lm-eval results files named directly or found under folders (recursively)."""
    from inspect_ai.log import list_eval_logs

    found: list[str] = []
    for path in paths:
        location = Path(path).expanduser()
        if location.is_dir():
            found.extend(info.name for info in list_eval_logs(str(location), recursive=True))
            found.extend(str(results) for results in sorted(location.rglob("results*.json")))
        elif location.is_file():
            found.append(str(location))
        else:
            raise DataError(f"{location}: no such log file or folder")
    return list(dict.fromkeys(found))


def read_runs(paths: Iterable[str | Path]) -> tuple[list[Run], list[str]]:
    """Every successful run under ``paths``, and a note for each log that was left out and why."""
    runs: list[Run] = []
    skipped: list[str] = []
    for location in log_files(paths):
        if _is_lm_eval_results(location):
            runs.extend(lm_eval_runs(location))
            continue
        run, reason = inspect_run(location)
        if run is None:
            skipped.append(f"{location}: {reason}")
        else:
            runs.append(run)
    return runs, skipped


def _is_lm_eval_results(location: str) -> bool:
    if not location.endswith(".json") or location.startswith("file://"):
        return False
    try:
        with open(location, encoding="utf-8") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return '"results"' in head and '"eval"' not in head[:200]


def inspect_run(location: str) -> tuple[Run | None, str]:
    """The run of one inspect log read header-only, or ``None`` with the reason it cannot be reported."""
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(location, header_only=True)
    except Exception as error:
        return None, f"not a readable inspect log ({error})"
    if log.status != "success":
        return None, f"status {log.status}, not success"
    if not log.results or not log.results.scores:
        return None, "no scores"
    metrics = {name: float(metric.value) for score in log.results.scores for name, metric in score.metrics.items()}
    spec = log.eval
    model, model_args = spec.model, {**dict(spec.model_args or {}), **base_url(spec.model_base_url)}
    grader = grader_name(spec.metadata or {})
    graded_by = sorted(log.stats.model_usage) if grader and log.stats else []
    if graded_by and graded_by != [model]:  # the scorer called models of its own (its model argument, a role)
        model, model_args = " + ".join(graded_by), role_base_urls(spec.model_roles, graded_by)
    recorded = (spec.metadata or {}).get(RECORDED_METADATA)
    if isinstance(recorded, Mapping):
        model, model_args = recorded_model(recorded)
    return (
        Run(
            location=location,
            harness="inspect",
            task=spec.task.split("/")[-1],
            task_version=str(spec.task_version),
            model=model,
            model_args=model_args,
            metadata=dict(spec.metadata or {}),
            task_args=dict(spec.task_args or {}),
            metrics=metrics,
            samples=log.results.completed_samples,
            created=str(spec.created),
            limit=spec.config.limit,
            epochs=spec.config.epochs,
            grader=grader,
            recorded=recorded if isinstance(recorded, Mapping) else None,
            registry_name=spec.task_registry_name,
        ),
        "",
    )


def lm_eval_runs(location: str) -> list[Run]:
    """One run per task of an lm-eval results file: ``results[task]['<metric>,<filter>']``, ``config.model``."""
    try:
        document = json.loads(Path(location).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise DataError(f"{location}: not a readable lm-eval results file ({error})") from error
    model, model_args = _lm_eval_model(document)
    runs = []
    for task, values in (document.get("results") or {}).items():
        metrics = {}
        for key, value in values.items():
            name, _, _ = key.partition(",")
            if isinstance(value, (int, float)) and not isinstance(value, bool) and not name.endswith("_stderr"):
                metrics[name] = float(value)
        configs = (document.get("configs") or {}).get(task) or {}
        counts = (document.get("n-samples") or {}).get(task) or {}
        metadata = dict(configs.get("metadata") or {})
        judge, judge_args, notes = model, model_args, cast(tuple[str, ...], ())
        if JUDGMENTS_OPTION in metadata:
            checked_run = _judge_of_checked_run(location, str(metadata[JUDGMENTS_OPTION]), model, model_args)
            judge, judge_args, notes = checked_run
        runs.append(
            Run(
                location=location,
                harness="lm-eval",
                task=task,
                task_version=str((document.get("versions") or {}).get(task)),
                model=judge,
                model_args=judge_args,
                metadata=metadata,
                task_args={},
                metrics=metrics,
                samples=int(counts.get("effective", 0) or 0),
                created=str(document.get("date", "")),
                limit=(document.get("config") or {}).get("limit"),
                notes=notes,
            )
        )
    return runs


_SAMPLES_FILE = re.compile(r"^samples_.+_(?P<date>\d{4}-\d{2}-\d{2}T[\d.-]+)\.jsonl$")
"""lm-eval's per-task samples file, ``samples_<task>_<date>.jsonl``, written beside ``results_<date>.json``."""


def _lm_eval_model(document: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The model name and model arguments (parsed from ``a=1,b=2`` when given as a string) of a results file."""
    config = document.get("config") or {}
    model_args = config.get("model_args") or {}
    if isinstance(model_args, str):
        model_args = dict(part.split("=", 1) for part in model_args.split(",") if "=" in part)
    return str(config.get("model", "unknown")), dict(model_args)


def _judge_of_checked_run(
    location: str, judgments: str, checker: str, checker_args: Mapping[str, Any]
) -> tuple[str, dict[str, Any], tuple[str, ...]]:
    """The judge whose explanations an ``fbi_explanations`` run checked: the model of the results file written
    with its judgments file. The checker is the model of this run; it is named in a note, not as the judge."""
    checked_by = judge_name(checker, checker_args)
    match = _SAMPLES_FILE.match(Path(judgments).name)
    results = Path(judgments).with_name(f"results_{match['date']}.json") if match else None
    if results is None or not results.is_file():
        note = (
            f"{location}: no results file of the judge run beside {judgments}; its explanation metrics are "
            f"listed under the checker, {checked_by}"
        )
        return checker, dict(checker_args), (note,)
    try:
        judge, judge_args = _lm_eval_model(json.loads(results.read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError) as error:
        raise DataError(f"{results}: not a readable lm-eval results file ({error})") from error
    return judge, judge_args, (f"{location}: explanations of {judge_name(judge, judge_args)} checked by {checked_by}",)
