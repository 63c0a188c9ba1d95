"""Leaderboard exports per judge, written to files ready to upload; nothing here touches the network.

- Hugging Face Hub, model card metadata: ``model-index`` entries built with ``huggingface_hub``'s
  :class:`~huggingface_hub.EvalResult` and :class:`~huggingface_hub.ModelCardData` (the YAML block of a README).
- Hugging Face Hub, ``.eval_results/*.yaml`` (the Hub's current eval-results format, shown on the model page and
  on the benchmark dataset's leaderboard): :class:`~huggingface_hub.EvalResultEntry` per headline metric, one file
  per task and setting, for suites whose benchmark is a dataset on the Hub.
- lm-eval: a results JSON with the harness's usual keys (``results`` with ``<metric>,none``, ``versions``,
  ``n-shot``, ``higher_is_better``, ``n-samples``, ``config``).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

from judge_data.views import SuiteView
from judge_report.runs import Run
from judge_report.suites import confidence_interval
from judge_report.tables import Report
from scorers.directions import higher_is_better, is_count

if TYPE_CHECKING:
    from huggingface_hub import ModelCardData

TASK_TYPE = "judge-meta-evaluation"
SOURCE_NAME = "judge-meta-eval"


def judge_slug(judge: str) -> str:
    """A folder name for a judge: its label with everything but letters, digits, ``.``, ``_`` and ``-`` replaced."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", judge).strip("_")


def _public(value: object) -> object:
    """A setting as a public card shows it: a local file or folder by its name alone (``/home/me/data/fbi`` ->
    ``fbi``), since exports are written to be published."""
    if isinstance(value, str) and (Path(value).is_absolute() or Path(value).expanduser().exists()):
        return Path(value).name
    return value


def _settings_note(report: Report, run: Run, config: int) -> str:
    settings = report.configs[run.task][config - 1]
    shown = {name: _public(value) for name, value in settings.items() if value not in (None, [], {}, "")}
    return ", ".join(f"{name}={json.dumps(value, default=str)}" for name, value in shown.items())


def _finite_headlines(run: Run, view: SuiteView) -> list[tuple[str, float]]:
    """The run's defined headline scores; counts such as unparsed answers stay in the report."""
    return [
        (name, run.metrics[name])
        for name in view.headlines(run)
        if not math.isnan(run.metrics[name]) and not is_count(name)
    ]


def model_card_metadata(report: Report, judge: str) -> str:
    """The model card YAML (``model-index``) with every headline of the judge's runs (``judge``: its identity)."""
    data = model_card_data(report, judge)
    return "" if data is None else data.to_yaml() + "\n"


def model_card_data(report: Report, judge: str) -> ModelCardData | None:
    """The model card's ``model-index`` entries, one per headline of the judge's runs; ``None`` without any."""
    from huggingface_hub import EvalResult, ModelCardData

    results = []
    for run, view, config in report.runs:
        if run.judge != judge:
            continue
        for metric, value in _finite_headlines(run, view):
            results.append(
                EvalResult(
                    task_type=TASK_TYPE,
                    task_name=view.title,
                    dataset_type=view.hub_dataset(run) or run.task,
                    dataset_name=run.task,
                    dataset_config=f"config {config}" if len(report.configs[run.task]) > 1 else None,
                    dataset_args={"task_version": run.task_version, "settings": _settings_note(report, run, config)},
                    metric_type=metric,
                    metric_name=metric,
                    metric_value=round(value, 6),
                )
            )
    if not results:
        return None
    return ModelCardData(model_name=report.judges[judge].name, eval_results=results)


def eval_results_files(report: Report, judge: str) -> dict[str, str]:
    """``.eval_results/<task>.yaml`` contents for the judge's runs whose benchmark is a Hub dataset."""
    import yaml
    from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml

    files: dict[str, list] = {}
    for run, view, config in report.runs:
        dataset = view.hub_dataset(run)
        if run.judge != judge or dataset is None:
            continue
        name = f"{run.task}_config{config}" if len(report.configs[run.task]) > 1 else run.task
        files.setdefault(name, []).extend(
            EvalResultEntry(
                dataset_id=dataset,
                task_id=f"{run.task}/{metric}",
                value=round(value, 6),
                date=run.created,
                notes=f"{SOURCE_NAME} {run.task} v{run.task_version}; {_settings_note(report, run, config)}",
            )
            for metric, value in _finite_headlines(run, view)
        )
    return {
        f"{name}.yaml": yaml.safe_dump(eval_result_entries_to_yaml(entries), sort_keys=False)
        for name, entries in files.items()
        if entries
    }


def lm_eval_results(report: Report, judge: str) -> dict:
    """The judge's numbers in lm-eval's results layout: every logged metric, standard errors where an interval
    exists (its half-width over 1.96) and ``N/A`` otherwise, as lm-eval writes."""
    results: dict[str, dict] = {}
    versions, higher, counts, model_args, model = {}, {}, {}, {}, judge
    for run, _, config in report.runs:
        if run.judge != judge:
            continue
        model, model_args = run.model, dict(run.model_args)
        name = f"{run.task}_config{config}" if len(report.configs[run.task]) > 1 else run.task
        values: dict[str, object] = {"alias": name}
        for metric, value in run.metrics.items():
            if "_ci_" in metric:
                continue
            interval = confidence_interval(run, metric)
            values[f"{metric},none"] = None if math.isnan(value) else value
            stderr = (interval[1] - interval[0]) / (2 * 1.96) if interval else math.nan
            values[f"{metric}_stderr,none"] = "N/A" if math.isnan(stderr) else stderr
        results[name] = values
        versions[name] = run.task_version
        higher[name] = {metric: higher_is_better(metric) for metric in run.metrics if "_ci_" not in metric}
        counts[name] = {"original": run.samples, "effective": run.samples}
    return {
        "results": results,
        "versions": versions,
        "n-shot": dict.fromkeys(results, 0),
        "higher_is_better": higher,
        "n-samples": counts,
        "config": {"model": model, "model_args": model_args},
    }


def write_exports(report: Report, folder: Path) -> list[Path]:
    """Per judge, in a folder named after its short name: ``model_card_metadata.yaml``, ``.eval_results/*.yaml``
    and ``lm_eval_results.json``."""
    written = []
    for judge in report.judges:
        target = folder / judge_slug(report.judges[judge].name)
        target.mkdir(parents=True, exist_ok=True)
        card = model_card_metadata(report, judge)
        if card:
            written.append(target / "model_card_metadata.yaml")
            written[-1].write_text(card, encoding="utf-8")
        for name, content in eval_results_files(report, judge).items():
            (target / ".eval_results").mkdir(exist_ok=True)
            written.append(target / ".eval_results" / name)
            written[-1].write_text(content, encoding="utf-8")
        written.append(target / "lm_eval_results.json")
        written[-1].write_text(json.dumps(lm_eval_results(report, judge), indent=2, default=str), encoding="utf-8")
    return written
