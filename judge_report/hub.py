"""``judge-report --push-to-hub REPO``: the report where users look, on the Hugging Face Hub.

- **The results dataset** ``REPO`` (created if need be): every run's per-item values, one JSON line per item
  (``items/<judge>/<task>.jsonl``: the judge, the suite, the task and its version, the item's id and the score value
  the suite's scorer stored), ``report.json``, and a dataset card with the leaderboard.
- **The judges' model cards**, for judges that are Hub models (``hf/``, ``vllm/``, ``vllm-completions/``,
  ``sglang/`` with an ``owner/name`` model) whose owner is the token's account or one of its organisations: the
  ``model-index`` entries of the judge's headlines merged into the card (``huggingface_hub.metadata_update``, a value
  of the same metric replaced), and the ``.eval_results/*.yaml`` files of suites whose benchmark is a Hub dataset.
  Other judges are listed with the reason they are left out; their entries stay in ``exports/``.

The token is the environment's (``HF_TOKEN``, or the one ``hf auth login`` stored); ``HF_ENDPOINT`` names another
Hub (``huggingface_hub`` reads it). ``--dry-run`` prints what would be written and calls nothing.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from judge_data import DataError
from judge_report.exports import eval_results_files, judge_slug, model_card_data
from judge_report.items import read_samples
from judge_report.render import markdown_leaderboard
from judge_report.tables import Report

HUB_PROVIDERS = ("hf", "vllm", "vllm-completions", "sglang")
"""Providers whose model names are Hugging Face Hub repositories (``hf/<owner>/<name>``)."""

REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")

TAGS = ("judge-meta-eval", "llm-as-a-judge", "evaluation")


def hub_model(model: str) -> str | None:
    """The Hub repository of a judge's model name, where its provider loads one (``hf/Qwen/Qwen2.5-7B``:
    ``Qwen/Qwen2.5-7B``); ``None`` for API models and local folders."""
    provider, _, name = model.partition("/")
    return name if provider in HUB_PROVIDERS and REPO_ID.fullmatch(name) else None


@dataclass(frozen=True)
class CardUpdate:
    """What goes onto one judge's model card."""

    repo_id: str
    judge: str
    model_index: Mapping[str, Any]
    """``{"model-index": [...]}``, as ``metadata_update`` merges it."""
    files: Mapping[str, str] = field(default_factory=dict)
    """``.eval_results/<task>.yaml`` contents by path."""


@dataclass(frozen=True)
class Publication:
    """Everything a push writes: the dataset's files, the model cards' entries, and the judges left out."""

    dataset: str
    files: Mapping[str, bytes]
    cards: tuple[CardUpdate, ...]
    left_out: tuple[str, ...]

    def describe(self) -> str:
        """What would be written, file by file and card by card."""
        lines = [f"dataset {self.dataset} (created if it does not exist):"]
        lines += [f"  {path} ({len(content):,} bytes)" for path, content in self.files.items()]
        for card in self.cards:
            entries = sum(len(result.get("results", [])) for result in card.model_index.get("model-index", []))
            lines.append(
                f"model card {card.repo_id} ({card.judge}), if the token's account or one of its organisations "
                f"owns {card.repo_id.split('/')[0]}: model-index entries of {entries} task(s)"
            )
            lines += [f"  {path}" for path in card.files]
        lines += [f"left out: {reason}" for reason in self.left_out]
        return "\n".join(lines)


def item_lines(report: Report) -> tuple[dict[str, bytes], list[str]]:
    """Per run, its items as JSON lines, by path in the dataset; and a note per run without per-item values."""
    files: dict[str, list[str]] = {}
    notes = []
    for run, view, config in report.runs:
        samples = read_samples(run)
        name = report.name_of(run)
        if isinstance(samples, str):
            notes.append(f"per-item values of {name}'s {run.task}: {samples}")
            continue
        task = f"{run.task}_config{config}" if len(report.configs[run.task]) > 1 else run.task
        path = f"items/{judge_slug(name)}/{task}.jsonl"
        common: dict[str, Any] = {"judge": name, "model": run.model, "suite": view.name, "task": run.task}
        common |= {"task_version": run.task_version, "config": config, "log": run.location}
        files.setdefault(path, []).extend(
            json.dumps(_plain({**common, "item": sample.id, "value": sample.value}), default=str, allow_nan=False)
            for sample in samples
        )
    return {path: ("\n".join(lines) + "\n").encode() for path, lines in files.items()}, notes


def _plain(value: Any) -> Any:
    """``value`` with NaN and infinities as ``null``, which JSON (and the Hub's dataset viewer) reads."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def dataset_card(report: Report) -> str:
    """The results dataset's card: its files and the leaderboard."""
    from huggingface_hub import DatasetCardData

    items = {"config_name": "items", "data_files": [{"split": "train", "path": "items/*/*.jsonl"}]}
    data = DatasetCardData(tags=list(TAGS), configs=[items])
    body = [
        "# Judge meta-evaluation results",
        "",
        "Written by `judge-report --push-to-hub` (judge-meta-eval): `items/<judge>/<task>.jsonl` holds each item's "
        "score values as the suite's scorer stored them, `report.json` every number of the report.",
        "",
        "```",
        markdown_leaderboard(report.leaderboard),
        "```",
    ]
    return f"---\n{data.to_yaml()}\n---\n\n" + "\n".join(body) + "\n"


def publication(report: Report, dataset: str, report_json: bytes) -> Publication:
    """What ``--push-to-hub dataset`` writes for ``report``."""
    if not REPO_ID.fullmatch(dataset):
        raise DataError(f"--push-to-hub {dataset!r}: give the dataset as owner/name")
    files, left_out = item_lines(report)
    files = {"README.md": dataset_card(report).encode(), "report.json": report_json, **files}
    cards = []
    for identity, judge in report.judges.items():
        repo_id = hub_model(judge.model)
        if repo_id is None:
            left_out.append(f"model card of {judge.name}: {judge.model} is not a Hub model")
            continue
        data = model_card_data(report, identity)
        if data is None:
            left_out.append(f"model card of {judge.name}: no defined headline to write")
            continue
        model_index = {"model-index": data.to_dict()["model-index"]}
        results = {f".eval_results/{name}": text for name, text in eval_results_files(report, identity).items()}
        cards.append(CardUpdate(repo_id, judge.name, model_index, results))
    return Publication(dataset, files, tuple(cards), tuple(left_out))


def push(published: Publication) -> list[str]:
    """Write ``published`` to the Hub with the environment's token; one line per thing written or left out."""
    from huggingface_hub import CommitOperationAdd, HfApi, get_token, metadata_update
    from huggingface_hub.errors import HfHubHTTPError

    token = get_token()
    if not token:
        raise DataError("--push-to-hub needs a Hub token with write access: set HF_TOKEN (or run hf auth login)")
    api = HfApi(token=token)
    try:
        account = api.whoami()
        owners = {account["name"], *(org["name"] for org in account.get("orgs", []))}
        api.create_repo(published.dataset, repo_type="dataset", exist_ok=True)
        commit = api.create_commit(
            published.dataset,
            [CommitOperationAdd(path, content) for path, content in published.files.items()],
            repo_type="dataset",
            commit_message="judge-report: per-item results and report",
        )
    except HfHubHTTPError as error:
        raise DataError(f"--push-to-hub {published.dataset}: the Hub refused ({_reason(error)})") from None
    lines = [f"dataset {published.dataset}: {len(published.files)} files ({commit.commit_url})"]
    for card in published.cards:
        owner = card.repo_id.split("/")[0]
        if owner not in owners:
            lines.append(f"model card of {card.judge}: {card.repo_id} belongs to {owner}, not to the token's account")
            continue
        try:
            metadata_update(
                card.repo_id,
                dict(card.model_index),
                overwrite=True,
                token=token,
                commit_message="judge-report: judge meta-evaluation results",
            )
            if card.files:
                api.create_commit(
                    card.repo_id,
                    [CommitOperationAdd(path, text.encode()) for path, text in card.files.items()],
                    commit_message="judge-report: .eval_results",
                )
        except HfHubHTTPError as error:
            lines.append(f"model card of {card.judge}: the Hub refused ({_reason(error)})")
            continue
        lines.append(f"model card {card.repo_id}: model-index entries and {len(card.files)} .eval_results files")
    return lines + [f"left out: {reason}" for reason in published.left_out]


def _reason(error: Exception) -> str:
    return " ".join(str(error).split())[:300]
