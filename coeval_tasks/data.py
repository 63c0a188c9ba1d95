"""CoEval data from a local folder or the public source: task descriptions and curated criteria for the
criteria task, human-scored items for the scoring tasks.

Local folders have the layout of ``../shared/data/human/coeval_<dataset>/``: ``criteria.json``
(``task_description``, ``criteria[].original_name``), ``items.jsonl`` (``task``, ``response``,
``criteria``, ``annotator_scores``, ``annotator_ids``, ``meta.system``) and ``criteria_review_actions.json``.
Without a folder, the same content is read from the public repository ``qtli/CoEval`` at a pinned commit
(the files named in the folders' SOURCE.md).
"""

from __future__ import annotations

import json
import logging
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge_data import DataError, OptionError, download, field, read_jsonl
from judge_data.human import HumanCriterion, HumanItem, load_criteria, load_items

logger = logging.getLogger(__name__)

COEVAL_REPO = "qtli/CoEval"
COEVAL_COMMIT = "8b98295ac135c2a0a9367ff1e32be28670223078"
RAW_BASE = "https://raw.githubusercontent.com"
"""Files are fetched from ``{RAW_BASE}/{COEVAL_REPO}/{COEVAL_COMMIT}/{path}``."""
COMBINED_PATH = "data/combine_data.json"
"""Holds each dataset's ``task_info`` (the task description written by the authors)."""

DEMONSTRATION_SYSTEM = "human"
"""The demonstration output shown with each task is the human-written reference answer."""

REVIEW_ACTIONS = ("pass", "delete", "revise", "add")

LLM_ANNOTATOR = "chatgpt"
"""The repository lists ChatGPT's draft score beside the annotators'; it is not a human score."""

SCORE_RANGE = (1.0, 5.0)


@dataclass(frozen=True)
class CoevalDataset:
    """One of CoEval's datasets: where its files are in the pinned repository, and its criteria."""

    name: str
    folder: str
    """Folder name under ``shared/data/human/``."""
    scores_path: str
    """Annotator scores in the CoEval repository: prompt -> system -> prediction and criterion scores."""
    actions_path: str
    combined_key: str
    instruction_is_task: bool
    """Self-Instruct: each instruction is its own task description (the paper's §4.1); its ``Input:`` part is
    the demonstration input."""
    criteria: tuple[tuple[str, str], ...]
    """(short name, taxonomy group) of each scored criterion, in the source's numbered order; the names and
    groups of the shared folders' ``criteria.json``."""
    annotator_ids: tuple[str, ...]
    """The human annotators of the public scores (sorted), which name the per-annotator statistics."""


DATASETS = {
    dataset.name: dataset
    for dataset in (
        CoevalDataset(
            "eli5",
            "coeval_eli5",
            "webapp/evaluation_data/ELI5/eli5_annotator_scores.json",
            "webapp/evaluation_data/ELI5/eli5_criteria_to_action.json",
            "eli5",
            False,
            (
                ("simple_language", "Content"),
                ("relatable_examples", "Engagement"),
                ("factual_correctness", "Integrity"),
                ("easy_to_follow", "Content"),
                ("helpfulness", "Relevance"),
            ),
            ("A01", "A02", "A03", "A04", "A05"),
        ),
        CoevalDataset(
            "rocstories",
            "coeval_rocstories",
            "webapp/evaluation_data/ROCStories/roc_annotator_scores.json",
            "webapp/evaluation_data/ROCStories/roc_criteria_to_action.json",
            "roc",
            False,
            (
                ("clarity", "Content"),
                ("relevance", "Relevance"),
                ("coherence", "Content"),
                ("length", "Relevance"),
                ("engagement", "Engagement"),
                ("character_development", "Engagement"),
                ("grammaticality", "Content"),
            ),
            ("A06", "A07", "A08", "A09", "A10"),
        ),
        CoevalDataset(
            "self_instruct",
            "coeval_self_instruct",
            "webapp/evaluation_data/Self-Instruct/self_instruct_annotator_scores.json",
            "webapp/evaluation_data/Self-Instruct/self_instruct_criteria_to_action.json",
            "self_instruct",
            True,
            (
                ("relevance", "Relevance"),
                ("clarity", "Content"),
                ("correctness", "Integrity"),
                ("politeness", "Engagement"),
                ("completeness", "Relevance"),
            ),
            ("A05", "A10", "A11", "A12", "A13"),
        ),
    )
}


def raw_url(path: str) -> str:
    """The pinned raw URL of a file of the CoEval repository."""
    return f"{RAW_BASE}/{COEVAL_REPO}/{COEVAL_COMMIT}/{path}"


@dataclass(frozen=True)
class TaskDescription:
    """One request for criteria: a task, optionally an example of it, and the criteria experts settled on."""

    id: str
    task: str
    example_input: str | None = None
    example_output: str | None = None
    curated: tuple[str, ...] = ()


@dataclass(frozen=True)
class CriteriaSource:
    """What a dataset contributes: its task descriptions, its curated criteria and the expert review rates."""

    dataset: str
    tasks: tuple[TaskDescription, ...]
    curated: tuple[str, ...]
    review_actions: dict[str, dict[str, float]]
    source: str


_LIST_NUMBER = re.compile(r"^\s*\d+\.\s*")
_INPUT_SPLIT = re.compile(r"\n\s*Input:\s*", re.IGNORECASE)


def curated_text(name: str) -> str:
    """A curated criterion without its list number: ``"3. Coherence: ..."`` -> ``"Coherence: ..."``."""
    return _LIST_NUMBER.sub("", name).strip()


def review_rate(value: Any, where: str) -> float:
    """One review-action rate. CoEval writes fractions with a stray percent sign ("0.87%" = 87 %).

    The four rates of a criterion sum to one, and their means over ELI5's and Self-Instruct's criteria
    reproduce the paper's Table 13 (81.16 % approval for ELI5), so the number is the fraction itself.
    """
    text = str(value).strip().removesuffix("%").strip()
    try:
        rate = float(text)
    except ValueError:
        raise DataError(f"{where}: review rate {value!r} is not a number") from None
    if not 0.0 <= rate <= 1.0:
        raise DataError(f"{where}: review rate {value!r} is not a fraction between 0 and 1")
    return rate


def review_actions(raw: Any, where: str) -> dict[str, dict[str, float]]:
    """``{curated criterion: {pass, delete, revise, add: fraction}}`` from a ``criteria_to_action`` mapping."""
    if not isinstance(raw, dict):
        raise DataError(f"{where}: expected an object mapping criteria to review rates")
    actions = {}
    for criterion, rates in raw.items():
        if not isinstance(rates, dict) or set(rates) != set(REVIEW_ACTIONS):
            raise DataError(f"{where}, criterion {criterion!r}: expected the rates {list(REVIEW_ACTIONS)}")
        actions[curated_text(criterion)] = {
            action: review_rate(rates[action], f"{where}, criterion {criterion!r}, field {action!r}")
            for action in REVIEW_ACTIONS
        }
    return actions


def _task_description(
    dataset: CoevalDataset, index: int, description: str, prompt: str, output: str | None, curated: tuple[str, ...]
) -> TaskDescription:
    if dataset.instruction_is_task:
        parts = _INPUT_SPLIT.split(prompt, maxsplit=1)
        instruction = parts[0].strip()
        example_input = parts[1].strip() if len(parts) > 1 else None
        return TaskDescription(f"{dataset.name}-{index:02d}", instruction, example_input, output, curated)
    return TaskDescription(f"{dataset.name}-{index:02d}", description, prompt, output, curated)


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise DataError(f"{path}: missing CoEval file")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise DataError(f"{path}: not valid JSON ({error.msg})") from error


def read_local(dataset: CoevalDataset, folder: Path) -> CriteriaSource:
    """A dataset from a folder in the shared layout (one task per distinct ``task`` of ``items.jsonl``)."""
    criteria_path = folder / "criteria.json"
    criteria_file = _read_json(criteria_path)
    description = field(criteria_file, "task_description", criteria_path, 1)
    curated = tuple(
        curated_text(field(entry, "original_name", criteria_path, number))
        for number, entry in enumerate(field(criteria_file, "criteria", criteria_path, 1), start=1)
    )
    actions_path = folder / "criteria_review_actions.json"
    actions = review_actions(_read_json(actions_path), str(actions_path))
    prompts: dict[str, str | None] = {}
    items_path = folder / "items.jsonl"
    if not items_path.is_file():
        raise DataError(f"{items_path}: missing CoEval file")
    for row_number, row in read_jsonl(items_path):
        prompt = field(row, "task", items_path, row_number)
        meta = row.get("meta")
        system = meta.get("system") if isinstance(meta, dict) else None
        prompts.setdefault(prompt, None)
        if system == DEMONSTRATION_SYSTEM:
            prompts[prompt] = field(row, "response", items_path, row_number)
    tasks = tuple(
        _task_description(dataset, index, description, prompt, output, curated)
        for index, (prompt, output) in enumerate(prompts.items())
    )
    return CriteriaSource(dataset.name, tasks, curated, actions, str(folder))


def _public_scores(dataset: CoevalDataset, scores_url: str, combined_url: str) -> tuple[dict, str]:
    """The dataset's annotator-score file (prompt -> system -> scores) and its task description, both downloaded."""
    scores = _read_json(download(scores_url))
    combined = _read_json(download(combined_url))
    try:
        description = combined[dataset.combined_key]["task_info"][0]
    except (KeyError, IndexError, TypeError):
        raise DataError(f"{combined_url}: no task_info for {dataset.combined_key!r}") from None
    if not isinstance(scores, dict) or not scores:
        raise DataError(f"{scores_url}: expected an object mapping prompts to systems")
    return scores, description


def read_public(dataset: CoevalDataset) -> CriteriaSource:
    """A dataset from the CoEval repository at the pinned commit, downloaded once into the ``datasets`` cache."""
    scores_url, actions_url, combined_url = (
        raw_url(path) for path in (dataset.scores_path, dataset.actions_path, COMBINED_PATH)
    )
    scores, description = _public_scores(dataset, scores_url, combined_url)
    curated: tuple[str, ...] = ()
    tasks = []
    for index, (prompt, systems) in enumerate(scores.items()):
        if not isinstance(systems, dict):
            raise DataError(f"{scores_url}, prompt {index}: expected an object mapping systems to scores")
        demonstration = systems.get(DEMONSTRATION_SYSTEM) or {}
        if not curated:
            first = next(iter(systems.values()))
            curated = tuple(curated_text(name) for name in first if name != "prediction")
        tasks.append(_task_description(dataset, index, description, prompt, demonstration.get("prediction"), curated))
    actions = review_actions(_read_json(download(actions_url)), actions_url)
    return CriteriaSource(dataset.name, tuple(tasks), curated, actions, f"{COEVAL_REPO}@{COEVAL_COMMIT}")


def read_tasks_file(path: str | Path) -> CriteriaSource:
    """A user's JSONL of task descriptions: ``{"id", "task"}`` per line, optionally ``input``, ``output``
    (a demonstration example) and ``criteria`` (a list of curated criteria for coverage)."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataError(f"{path}: tasks file not found")
    tasks, seen = [], set()
    for row_number, row in read_jsonl(path):
        task_id = str(field(row, "id", path, row_number))
        if task_id in seen:
            raise DataError(f"{path}, row {row_number}: field 'id' {task_id!r} repeats an earlier row")
        seen.add(task_id)
        curated = row.get("criteria") or []
        if not isinstance(curated, list) or not all(isinstance(text, str) and text.strip() for text in curated):
            raise DataError(f"{path}, row {row_number}: field 'criteria' must be a list of non-empty strings")
        tasks.append(
            TaskDescription(
                task_id,
                str(field(row, "task", path, row_number)),
                row.get("input") or None,
                row.get("output") or None,
                tuple(curated_text(text) for text in curated),
            )
        )
    if not tasks:
        raise DataError(f"{path}: no task descriptions")
    return CriteriaSource("custom", tuple(tasks), (), {}, str(path))


def load_source(
    dataset: str, data_dir: str | Path | None = None, tasks_file: str | Path | None = None
) -> CriteriaSource:
    """Task descriptions from a user's file, a local folder, or the public CoEval repository."""
    if tasks_file is not None:
        return read_tasks_file(tasks_file)
    if dataset not in DATASETS:
        raise OptionError(f"unknown CoEval dataset {dataset!r}; choose from {sorted(DATASETS)}")
    if data_dir is None:
        return read_public(DATASETS[dataset])
    folder = Path(data_dir).expanduser()
    if not folder.is_dir():
        raise DataError(f"data_dir {folder} is not a folder")
    return read_local(DATASETS[dataset], folder)


def select(tasks: tuple[TaskDescription, ...], n: int | None, seed: int) -> list[TaskDescription]:
    """``n`` task descriptions drawn with ``seed`` (kept in source order); all of them when ``n`` is None."""
    if n is None or n >= len(tasks):
        if n is not None and n > len(tasks):
            logger.warning("asked for %d task descriptions, only %d exist; using all of them", n, len(tasks))
        return list(tasks)
    keep = sorted(random.Random(seed).sample(range(len(tasks)), n))
    return [tasks[index] for index in keep]


@dataclass(frozen=True)
class HumanScores:
    """What a scoring task judges: the scored criteria, the task description, and the human-scored items."""

    dataset: str
    criteria: tuple[HumanCriterion, ...]
    task_description: str
    items: tuple[HumanItem, ...]
    source: str


def _annotator_score(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(f"{where}: expected a number, got {value!r}")
    low, high = SCORE_RANGE
    if not low <= value <= high:
        raise DataError(f"{where}: {value} is outside the scale {low:g}-{high:g}")
    return float(value)


def _public_item(
    dataset: CoevalDataset,
    index: int,
    prompt: str,
    system: str,
    entry: Any,
    originals: tuple[str, ...],
    description: str,
    where: str,
) -> HumanItem:
    """One (prompt, system) of the annotator-score file in the shared layout: means over the human annotators,
    their scores by annotator id (sorted), ChatGPT's draft score in ``meta`` only."""
    where = f"{where}, prompt {index}, system {system!r}"
    if not isinstance(entry, dict) or not isinstance(entry.get("prediction"), str):
        raise DataError(f"{where}: expected an object with a 'prediction' text")
    by_criterion: dict[str, dict[str, Any]] = {}
    for (name, _), original in zip(dataset.criteria, originals, strict=True):
        raw = entry.get(original)
        if not isinstance(raw, dict):
            raise DataError(f"{where}: criterion {original!r} has no object of annotator scores")
        by_criterion[name] = raw
    annotator_ids = sorted({annotator for raw in by_criterion.values() for annotator in raw} - {LLM_ANNOTATOR})
    annotator_scores: dict[str, list[float | None]] = {}
    human: dict[str, float] = {}
    drafted: dict[str, float] = {}
    for name, raw in by_criterion.items():
        scores = [
            None if raw.get(annotator) is None else _annotator_score(raw[annotator], f"{where}, {name}, {annotator}")
            for annotator in annotator_ids
        ]
        annotator_scores[name] = scores
        given = [score for score in scores if score is not None]
        if given:
            human[name] = sum(given) / len(given)
        if raw.get(LLM_ANNOTATOR) is not None:
            drafted[name] = _annotator_score(raw[LLM_ANNOTATOR], f"{where}, {name}, {LLM_ANNOTATOR}")
    return HumanItem(
        id=f"{dataset.folder}-{index:02d}::{system}",
        task=prompt.strip(),
        response=entry["prediction"].strip(),
        human=human,
        annotator_scores=annotator_scores,
        annotator_ids=annotator_ids,
        meta={
            "prompt_index": index,
            "system": system,
            "n_annotators": len(annotator_ids),
            "task_info": description,
            "llm_initial_scores_chatgpt": drafted,
        },
    )


def read_public_items(dataset: CoevalDataset) -> HumanScores:
    """The human-scored items of a dataset from the CoEval repository at the pinned commit (downloaded once).

    Ids, texts, means and annotator scores are those of the shared folders (one item per prompt and system,
    systems in name order), so a run on the public source and one on ``-T data_dir=`` judge the same items.
    """
    scores_url, combined_url = raw_url(dataset.scores_path), raw_url(COMBINED_PATH)
    scores, description = _public_scores(dataset, scores_url, combined_url)
    first_systems = next(iter(scores.values()))
    if not isinstance(first_systems, dict) or not first_systems:
        raise DataError(f"{scores_url}, prompt 0: expected an object mapping systems to scores")
    originals = tuple(name for name in next(iter(first_systems.values())) if name != "prediction")
    if len(originals) != len(dataset.criteria):
        raise DataError(
            f"{scores_url}: expected {len(dataset.criteria)} criteria for {dataset.name}, found {len(originals)}"
        )
    low, high = SCORE_RANGE
    criteria = tuple(
        HumanCriterion(name, original.strip(), low, high, "likert", True, original.strip(), {}, group)
        for (name, group), original in zip(dataset.criteria, originals, strict=True)
    )
    items = []
    for index, (prompt, systems) in enumerate(scores.items()):
        if not isinstance(systems, dict):
            raise DataError(f"{scores_url}, prompt {index}: expected an object mapping systems to scores")
        for system in sorted(systems):
            items.append(
                _public_item(dataset, index, prompt, system, systems[system], originals, description, scores_url)
            )
    return HumanScores(dataset.name, criteria, description, tuple(items), f"{COEVAL_REPO}@{COEVAL_COMMIT}")


def read_local_items(name: str, folder: str | Path) -> HumanScores:
    """Human-scored items from a folder in the shared layout (``criteria.json`` and ``items.jsonl``)."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise DataError(f"data_dir {folder} is not a folder")
    criteria, document = load_criteria(folder)
    items = load_items(folder, criteria)
    description = str(document.get("task_description") or "").strip()
    return HumanScores(name, tuple(criteria), description, tuple(items), str(folder))


def load_human_scores(dataset: str, data_dir: str | Path | None = None) -> HumanScores:
    """A CoEval dataset's human-scored items from a local folder, or from the public repository without one."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown CoEval dataset {dataset!r}; choose from {sorted(DATASETS)}")
    if data_dir is None:
        return read_public_items(DATASETS[dataset])
    return read_local_items(dataset, data_dir)
