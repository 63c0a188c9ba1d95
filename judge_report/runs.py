"""Finished runs, read from inspect eval logs (headers only) or lm-eval results JSON, as one shape for the report."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge_data import DataError


@dataclass(frozen=True)
class Run:
    """One task run by one judge: what was run, with which options, and every metric it logged."""

    location: str
    harness: str
    task: str
    task_version: str
    model: str
    model_args: Mapping[str, Any]
    metadata: Mapping[str, Any]
    task_args: Mapping[str, Any]
    metrics: Mapping[str, float]
    samples: int
    created: str
    limit: Any = None
    epochs: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def judge(self) -> str:
        """The judge's identity: model name and model arguments (inspect's ``-M``, lm-eval's ``--model_args``)."""
        if not self.model_args:
            return self.model
        arguments = ", ".join(f"{name}={value}" for name, value in sorted(self.model_args.items()))
        return f"{self.model} ({arguments})"

    def setting(self, name: str) -> Any:
        """A run setting as logged: the task metadata first, then the task arguments."""
        if name in self.metadata:
            return self.metadata[name]
        return self.task_args.get(name)


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
    return (
        Run(
            location=location,
            harness="inspect",
            task=spec.task.split("/")[-1],
            task_version=str(spec.task_version),
            model=spec.model,
            model_args=dict(spec.model_args or {}),
            metadata=dict(spec.metadata or {}),
            task_args=dict(spec.task_args or {}),
            metrics=metrics,
            samples=log.results.completed_samples,
            created=str(spec.created),
            limit=spec.config.limit,
            epochs=spec.config.epochs,
        ),
        "",
    )


def lm_eval_runs(location: str) -> list[Run]:
    """One run per task of an lm-eval results file: ``results[task]['<metric>,<filter>']``, ``config.model``."""
    try:
        document = json.loads(Path(location).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise DataError(f"{location}: not a readable lm-eval results file ({error})") from error
    config = document.get("config") or {}
    model_args = config.get("model_args") or {}
    if isinstance(model_args, str):
        model_args = dict(part.split("=", 1) for part in model_args.split(",") if "=" in part)
    runs = []
    for task, values in (document.get("results") or {}).items():
        metrics = {}
        for key, value in values.items():
            name, _, _ = key.partition(",")
            if isinstance(value, (int, float)) and not isinstance(value, bool) and not name.endswith("_stderr"):
                metrics[name] = float(value)
        configs = (document.get("configs") or {}).get(task) or {}
        counts = (document.get("n-samples") or {}).get(task) or {}
        runs.append(
            Run(
                location=location,
                harness="lm-eval",
                task=task,
                task_version=str((document.get("versions") or {}).get(task)),
                model=str(config.get("model", "unknown")),
                model_args=model_args,
                metadata=dict(configs.get("metadata") or {}),
                task_args={},
                metrics=metrics,
                samples=int(counts.get("effective", 0) or 0),
                created=str(document.get("date", "")),
                limit=config.get("limit"),
            )
        )
    return runs
