"""Human-annotated judge meta-evaluation data in one layout, shared by the adherence and CoEval suites.

A dataset folder holds ``criteria.json`` (``criteria``: name, original_name, range, scale, higher_is_better,
definition, rubric, group) and, where human scores exist, ``items.jsonl`` (``id``, ``task``, ``response``,
``criteria``: criterion -> human mean, optional ``annotator_scores`` / ``annotator_ids``, ``meta``).
Every problem is a :class:`DataError` naming the file, the row and the field.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from judge_data.io import DataError, read_jsonl
from judge_data.options import OptionError

CRITERIA_FILE = "criteria.json"
ITEMS_FILE = "items.jsonl"

GROUPS = ("Content", "Engagement", "Integrity", "Relevance")
"""The 4-group taxonomy of Murugadoss et al. (AAAI 2025)."""

SCALES = ("likert", "binary")


@dataclass(frozen=True)
class HumanCriterion:
    """One criterion the humans scored, with its scale, direction and (where the dataset has them) rubric levels."""

    name: str
    title: str
    low: float
    high: float
    scale: str
    higher_is_better: bool
    definition: str
    rubric: Mapping[str, str]
    group: str | None
    """Its group of the 4-group taxonomy; ``None`` for a criterion no group fits (an overall impression), which is
    reported alone and left out of the means."""

    @property
    def binary(self) -> bool:
        """Whether the humans answered yes/no (0/1) rather than on a Likert scale."""
        return self.scale == "binary"


@dataclass(frozen=True)
class HumanItem:
    """One judged response: its task text, the response, and the human scores per criterion."""

    id: str
    task: str
    response: str
    human: Mapping[str, float]
    annotator_scores: Mapping[str, Sequence[float | None]] | None = None
    annotator_ids: Sequence[str] | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)


def _key_name(value: str, where: str) -> str:
    """A criterion name or annotator id, checked: it becomes part of metric names (``pearson/<criterion>``,
    lm-eval's ``<metric>,<filter>`` keys) and of comma-separated options, so it may hold neither ``/`` nor ``,``."""
    if not value.strip() or "," in value or "/" in value:
        raise DataError(f"{where} is {value!r}: a name must be non-empty and hold neither ',' nor '/'")
    return value


def _criterion(entry: Any, path: Path, index: int) -> HumanCriterion:
    where = f"{path}, criteria[{index}]"
    if not isinstance(entry, Mapping):
        raise DataError(f"{where}: expected an object, got {type(entry).__name__}")

    def required(name: str, kind: type) -> Any:
        value = entry.get(name)
        if not isinstance(value, kind):
            raise DataError(f"{where}: field {name!r} is missing or not a {kind.__name__}")
        return value

    name = _key_name(required("name", str), f"{where}: field 'name'")
    score_range = required("range", list)
    if (
        len(score_range) != 2
        or not all(isinstance(v, (int, float)) for v in score_range)
        or score_range[0] >= score_range[1]
    ):
        raise DataError(f"{where} ({name}): field 'range' must be [low, high] with low < high, got {score_range}")
    scale = required("scale", str)
    if scale not in SCALES:
        raise DataError(f"{where} ({name}): field 'scale' must be one of {SCALES}, got {scale!r}")
    if scale == "binary" and list(score_range) != [0, 1]:
        raise DataError(f"{where} ({name}): a binary criterion has range [0, 1], got {score_range}")
    if "group" not in entry:
        raise DataError(f"{where} ({name}): field 'group' is missing (one of {GROUPS}, or null for none)")
    group = entry["group"]
    if group is not None and group not in GROUPS:
        raise DataError(f"{where} ({name}): field 'group' must be one of {GROUPS} or null, got {group!r}")
    rubric = entry.get("rubric") or {}
    if not isinstance(rubric, Mapping) or not all(isinstance(text, str) for text in rubric.values()):
        raise DataError(f"{where} ({name}): field 'rubric' must map score levels to text")
    return HumanCriterion(
        name=name,
        title=str(entry.get("original_name") or name.replace("_", " ")).strip(),
        low=float(score_range[0]),
        high=float(score_range[1]),
        scale=scale,
        higher_is_better=required("higher_is_better", bool),
        definition=str(entry.get("definition") or "").strip(),
        rubric={str(level): text.strip() for level, text in sorted(rubric.items(), key=lambda kv: float(kv[0]))},
        group=group,
    )


def load_criteria(folder: str | Path) -> tuple[list[HumanCriterion], dict[str, Any]]:
    """The criteria of a dataset folder, and the rest of ``criteria.json`` (task description and notes)."""
    path = Path(folder).expanduser() / CRITERIA_FILE
    if not path.is_file():
        raise DataError(f"{path}: missing criteria file (each dataset folder needs {CRITERIA_FILE})")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise DataError(f"{path}: not valid JSON ({error.msg})") from error
    entries = document.get("criteria") if isinstance(document, Mapping) else None
    if not isinstance(entries, list) or not entries:
        raise DataError(f"{path}: field 'criteria' must be a non-empty list")
    criteria = [_criterion(entry, path, index) for index, entry in enumerate(entries)]
    names = [criterion.name for criterion in criteria]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise DataError(f"{path}: duplicate criterion name(s) {duplicates}")
    return criteria, {key: value for key, value in document.items() if key != "criteria"}


def _score(value: Any, criterion: HumanCriterion, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise DataError(f"{where}: expected a number, got {value!r}")
    if not criterion.low <= value <= criterion.high:
        raise DataError(f"{where}: {value} is outside the criterion's range [{criterion.low:g}, {criterion.high:g}]")
    return float(value)


def _annotator_scores(
    row: Mapping[str, Any], criteria: Mapping[str, HumanCriterion], where: str
) -> tuple[dict[str, list[float | None]] | None, list[str] | None]:
    raw = row.get("annotator_scores")
    if raw is None:
        return None, None
    if not isinstance(raw, Mapping):
        raise DataError(f"{where}: field 'annotator_scores' must be an object or null")
    ids = row.get("annotator_ids")
    if ids is not None and (not isinstance(ids, list) or not all(isinstance(i, str) for i in ids)):
        raise DataError(f"{where}: field 'annotator_ids' must be a list of strings")
    for index, annotator in enumerate(ids or []):
        _key_name(annotator, f"{where}: field 'annotator_ids[{index}]'")
    scores: dict[str, list[float | None]] = {}
    for name, values in raw.items():
        if name not in criteria:
            continue
        if not isinstance(values, list):
            raise DataError(f"{where}: field 'annotator_scores.{name}' must be a list")
        if ids is not None and len(values) != len(ids):
            raise DataError(
                f"{where}: field 'annotator_scores.{name}' has {len(values)} scores for {len(ids)} annotator_ids"
            )
        scores[name] = [
            None if value is None else _score(value, criteria[name], f"{where}: field 'annotator_scores.{name}'")
            for value in values
        ]
    return scores, ids


def load_items(folder: str | Path, criteria: Sequence[HumanCriterion]) -> list[HumanItem]:
    """Every row of ``items.jsonl``, checked against the criteria (unknown criteria in a row are ignored)."""
    path = Path(folder).expanduser() / ITEMS_FILE
    if not path.is_file():
        raise DataError(f"{path}: missing items file")
    by_name = {criterion.name: criterion for criterion in criteria}
    items: list[HumanItem] = []
    seen: set[str] = set()
    for row_number, row in read_jsonl(path):
        where = f"{path}, row {row_number}"
        if not isinstance(row, Mapping):
            raise DataError(f"{where}: expected a JSON object, got {type(row).__name__}")
        texts = {}
        for name in ("id", "task", "response"):
            value = row.get(name)
            # an empty response is data (ROSCOE keeps one, rated worst); an empty id or task is not
            if not isinstance(value, str) or (name != "response" and not value.strip()):
                kind = "a string" if name == "response" else "a non-empty string"
                raise DataError(f"{where}: field {name!r} must be {kind}, got {value!r}")
            texts[name] = value
        if texts["id"] in seen:
            raise DataError(f"{where}: duplicate id {texts['id']!r}")
        seen.add(texts["id"])
        human = row.get("criteria")
        if not isinstance(human, Mapping):
            raise DataError(f"{where}: field 'criteria' must be an object of human scores")
        scores = {
            name: _score(value, by_name[name], f"{where}: field 'criteria.{name}'")
            for name, value in human.items()
            if name in by_name and value is not None
        }
        annotator_scores, annotator_ids = _annotator_scores(row, by_name, where)
        meta = row.get("meta") or {}
        items.append(
            HumanItem(
                id=texts["id"],
                task=texts["task"].strip(),
                response=texts["response"].strip(),
                human=scores,
                annotator_scores=annotator_scores,
                annotator_ids=annotator_ids,
                meta=meta if isinstance(meta, Mapping) else {"meta": meta},
            )
        )
    if not items:
        raise DataError(f"{path}: no rows")
    return items


def choose_criteria(
    criteria: Sequence[HumanCriterion], names: Sequence[str] | None, source: str
) -> list[HumanCriterion]:
    """The criteria named by a task's ``criteria`` option, in the order given (all of them for None)."""
    if names is None:
        return list(criteria)
    known = {criterion.name: criterion for criterion in criteria}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise OptionError(f"unknown criteria {unknown} for {source}; choose from {sorted(known)}")
    return [known[name] for name in names]


def exclude_systems(items: Sequence[HumanItem], systems: Sequence[str] | None, source: str) -> list[HumanItem]:
    """The items not written by ``systems`` (their ``meta.system``), in file order (all of them for None).

    A system no item names is an error, so that a misspelt name never leaves the data silently unchanged."""
    if not systems:
        return list(items)
    present = {system for system in map(item_system, items) if system is not None}
    if not present:
        raise OptionError(f"exclude_systems: the items of {source} name no system (meta.system) to leave out")
    unknown = sorted(set(systems) - present)
    if unknown:
        raise OptionError(
            f"exclude_systems: no item of {source} was written by {unknown}; its systems: {sorted(present)}"
        )
    return [item for item in items if item_system(item) not in systems]


def select_items(items: Sequence[HumanItem], n: int | None, seed: int) -> list[HumanItem]:
    """``n`` items drawn with ``seed``, kept in file order (all of them when ``n`` is None)."""
    if n is None or n >= len(items):
        return list(items)
    keep = sorted(random.Random(seed).sample(range(len(items)), n))
    return [items[index] for index in keep]


def select_documents(items: Sequence[HumanItem], documents: int | None, seed: int) -> list[HumanItem]:
    """Every response to ``documents`` documents drawn with ``seed`` (all of them when None), kept in file order.

    A document is what the responses answer, the item's ``task`` text (an article, a prompt, a conversation): drawing
    whole documents gives each drawn document every system's response to it, which system-level agreement needs.
    """
    names = list(dict.fromkeys(item.task for item in items))
    if documents is None or documents >= len(names):
        return list(items)
    chosen = {names[index] for index in random.Random(seed).sample(range(len(names)), documents)}
    return [item for item in items if item.task in chosen]


def item_system(item: HumanItem) -> str | None:
    """The system that wrote the response (``meta.system`` of items.jsonl), where the data names it."""
    system = item.meta.get("system")
    return None if system is None or isinstance(system, (dict, list)) else str(system)


def regroup(criteria: Sequence[HumanCriterion], groups: Mapping[str, str | None], source: str) -> list[HumanCriterion]:
    """The criteria with the taxonomy groups of ``groups`` (criterion -> group or ``None``), which names only criteria
    of the dataset and groups of the taxonomy; criteria it does not name keep theirs."""
    names = {criterion.name for criterion in criteria}
    unknown = sorted(set(groups) - names)
    if unknown:
        raise DataError(f"{source}: no criterion named {unknown} in this dataset; its criteria are {sorted(names)}")
    for name, group in groups.items():
        if group is not None and group not in GROUPS:
            raise DataError(f"{source}: field {name!r} must be one of {GROUPS} or null, got {group!r}")
    return [replace(c, group=groups[c.name]) if c.name in groups else c for c in criteria]


def read_groups(path: str | Path) -> dict[str, str | None]:
    """A ``-T groups=<file>`` file: a JSON object mapping criterion names to a taxonomy group or null."""
    source = Path(path).expanduser()
    try:
        groups = json.loads(source.read_text(encoding="utf-8"))
    except OSError as error:
        raise DataError(f"groups file {source}: {error.strerror or error}") from error
    except json.JSONDecodeError as error:
        raise DataError(f"groups file {source}: not valid JSON ({error.msg})") from error
    if not isinstance(groups, dict):
        raise DataError(f"groups file {source}: expected a JSON object mapping criterion names to groups")
    return groups
