"""Recorded judgments as the judge under test (``-T judgments=<file>``): judgments a judge already made, read from a
file instead of asking a model.

One row per judgment, JSONL or CSV with the same columns: ``id`` (the suite's item id), ``criterion`` where a task
rates several, ``judge``, an optional ``prompt`` label, the suite's key columns where it judges an item more than once
(DHP's ``perturbation``, FBI's ``judgment``), and exactly one of ``answer`` (the judge's raw text, read by the suite's
parser as a live answer) or the task's value column (``score``, ``verdict`` or ``grade``). Every problem with the file
is one :class:`~judge_data.io.DataError` naming the file, row and field, raised before any sample runs; what the rows
say is read by the suite's scorer (:mod:`solvers.reading.recorded`), so a value off the scale is a parse failure like
an unreadable answer, and an item without a row is counted as unanswered. ``docs/recorded_judgments.md`` documents
the format for every suite.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from judge_data.definitions import Option
from judge_data.io import DataError, file_sha256, id_field, read_jsonl
from judge_data.options import OptionError

JUDGMENTS_OPTIONS = (
    Option(
        "judgments",
        None,
        "recorded judgments to meta-evaluate instead of asking a model: a JSONL or CSV file, one row per judgment "
        "(`docs/recorded_judgments.md`); no model is called (`--model none`), `scoring=sample` only",
        shown_default="none: the model is asked",
        not_compared="it names the recorded judge under test, which the report sets beside the others",
    ),
    Option(
        "judge",
        None,
        "with `judgments`: the judge whose rows are read, where the file holds several",
        shown_default="the file's one judge",
        not_compared="it names the recorded judge under test, which the report sets beside the others",
    ),
    Option(
        "prompt",
        None,
        "with `judgments`: the prompt label whose rows are read, where the file holds several",
        shown_default="the file's one label",
        not_compared="it names the recorded judge's prompt, part of the judge the report sets beside the others",
    ),
)
"""Every rating, verdict, yes/no and grader task's ``-T judgments``, ``-T judge`` and ``-T prompt``, declared once."""

JUDGMENTS_OPTION_NAMES = tuple(option.name for option in JUDGMENTS_OPTIONS)
"""Their names, in the order each task's signature lists them (last)."""

ANSWER = "answer"
VALUE_COLUMNS = ("score", "verdict", "grade")
"""The value columns: a rating (or yes/no) on the task's scale, a pairwise verdict, a grader's grade."""

NO_PROMPT = "(none)"
"""How an error lists the rows without a prompt label beside the labelled ones."""


@dataclass(frozen=True)
class Columns:
    """What a task reads from a judgments file: its value column, the criteria a row may name, and its key columns
    with the values each may take. A criterion or key column with one allowed value may be left out."""

    value: str
    criteria: Sequence[str] = ()
    """The criteria a row may name (every criterion of the data, not only those a run chose); none: the task rates
    no criteria and the file has no ``criterion`` column."""
    keys: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Key column -> the values it may take (DHP's ``perturbation``: ``original`` and every perturbation id)."""
    answers: bool = True
    """Whether the judge's raw ``answer`` can be read (a grader's grade has no parser of the suite's)."""


@dataclass(frozen=True)
class Judgment:
    """One recorded judgment: its row, and the judge's raw answer or its value as the file holds it."""

    row: int
    answer: str | None = None
    value: Any = None

    def stored(self) -> dict[str, Any]:
        """The judgment as the solver keeps it in the sample's store: ``{"row", "answer"}`` or ``{"row", "value"}``."""
        if self.answer is not None:
            return {"row": self.row, ANSWER: self.answer}
        return {"row": self.row, "value": self.value}


Place = tuple[str, "str | None", tuple[str, ...]]
"""Where a judgment belongs: the item's id, its criterion (``None`` where the task rates none) and its key values in
the order of :attr:`Columns.keys`."""


@dataclass(frozen=True)
class RecordedJudgments:
    """One judge's recorded judgments under one prompt label, by place."""

    path: Path
    sha256: str
    judge: str
    prompt: str | None
    judgments: Mapping[Place, Judgment]

    def get(self, item: str, criterion: str | None = None, keys: tuple[str, ...] = ()) -> Judgment | None:
        """The judgment of an item (on a criterion, under key values), or ``None`` where the file has no row."""
        return self.judgments.get((item, criterion, keys))

    def metadata(self) -> dict[str, Any]:
        """What the task metadata records of the run's judge: ``judge-report`` names it after ``judge`` and
        ``prompt``."""
        return {
            "file": str(self.path),
            "sha256": self.sha256,
            "judge": self.judge,
            "prompt": self.prompt,
            "rows": len(self.judgments),
        }

    def for_items(self, items: Mapping[str, str], task: str) -> RecordedJudgments:
        """The judgments with each row's id replaced by the id of the item it names (``items``: every id a row may
        use for an item -> the item's id), or an error when no row names an item of ``task``. Rows of other items
        stay and are never asked for (a run of ``n`` items reads a file of all of them)."""
        placed: dict[Place, Judgment] = {}
        for (item, criterion, keys), judgment in self.judgments.items():
            place = (items.get(item, item), criterion, keys)
            if place in placed:
                raise DataError(
                    f"{self.path}, rows {placed[place].row} and {judgment.row}: both hold the judgment of item "
                    f"{place[0]!r}{_described(criterion, keys)}; keep one"
                )
            placed[place] = judgment
        if not any(item in items for item, _, _ in self.judgments):
            example_row = next(iter(self.judgments))[0]
            example_item = next(iter(items.values()), None)
            raise DataError(
                f"{self.path}: no row's id names an item of {task} (the file's ids look like {example_row!r}, the "
                f"task's items like {example_item!r}); the ids must be the items' ids in the suite's data"
            )
        return replace(self, judgments=placed)


def _described(criterion: str | None, keys: tuple[str, ...]) -> str:
    return (f", criterion {criterion!r}" if criterion else "") + "".join(f", {key!r}" for key in keys)


def check_judgments_options(options: Mapping[str, Any], scoring: str = "sample") -> None:
    """What the recorded-judgments options say together with the task's scoring, before any data is read: a
    selection needs a file, and recorded judgments stand in for written answers (``scoring=sample``)."""
    if options["judgments"] is None:
        for name in ("judge", "prompt"):
            if options[name] is not None:
                raise OptionError(
                    f"{name}={options[name]} selects rows of recorded judgments; pass the file with -T judgments=<file>"
                )
        return
    if scoring != "sample":
        raise OptionError(
            f"recorded judgments stand in for the judge's written answers (scoring=sample); scoring={scoring} "
            "needs a model to ask, so leave out -T judgments or -T scoring"
        )
    path = Path(str(options["judgments"])).expanduser()
    if not path.is_file():
        raise OptionError(f"judgments file {path} does not exist")


def read_judgments(options: Mapping[str, Any], columns: Columns) -> RecordedJudgments | None:
    """The judgments of the task options' ``judgments`` file (``None`` without one), checked row by row against
    ``columns``, and narrowed to the judge and prompt label ``judge`` and ``prompt`` select (the file's one judge or
    label where they select none)."""
    if options["judgments"] is None:
        return None
    path = Path(str(options["judgments"])).expanduser()
    rows: dict[tuple[str, str | None], dict[Place, Judgment]] = {}
    seen: dict[tuple[str, str | None, Place], int] = {}
    for number, row in _rows(path):
        judge, prompt, place, judgment = _judgment(row, number, path, columns)
        first = seen.setdefault((judge, prompt, place), number)
        if first != number:
            labelled = f", judge {judge!r}" + ("" if prompt is None else f", prompt {prompt!r}")
            raise DataError(
                f"{path}, rows {first} and {number}: both hold the judgment of id {place[0]!r}"
                f"{_described(place[1], place[2])}{labelled}; keep one"
            )
        rows.setdefault((judge, prompt), {})[place] = judgment
    if not rows:
        raise DataError(f"{path} has no rows")
    judge = _chosen("judge", options["judge"], [judge for judge, _ in rows], path)
    labels = [prompt for chosen, prompt in rows if chosen == judge]
    prompt = _chosen("prompt", options["prompt"], labels, path, f" of judge {judge!r}")
    return RecordedJudgments(path, file_sha256(path), judge, prompt, rows[(judge, prompt)])


def _chosen(name: str, wanted: Any, found: list[Any], path: Path, whose: str = "") -> Any:
    """The one judge (or prompt label) the option selects among those the file holds, or an error listing them."""
    listed = [NO_PROMPT if value is None else value for value in dict.fromkeys(found)]
    if wanted is not None:
        if str(wanted) not in found:
            raise OptionError(f"{name}={wanted}: {path} has no rows of that {name}{whose}; it holds {listed}")
        return str(wanted)
    if len(listed) > 1:
        raise OptionError(f"{path} holds the rows of several {name}s{whose}: {listed}; choose one with -T {name}=")
    return found[0]


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(row number, row)`` of a JSONL file (its line) or a CSV file (its row in a spreadsheet, the header being 1),
    with empty CSV cells and JSON nulls left out as absent."""
    if path.suffix.lower() != ".csv":
        for number, row in read_jsonl(path):
            yield number, {name: value for name, value in row.items() if value is not None}
        return
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        for number, row in enumerate(reader, start=2):
            yield number, {name: value for name, value in row.items() if name is not None and value not in (None, "")}


def _label(row: Mapping[str, Any], name: str, path: Path, number: int) -> str | None:
    """An optional text or whole-number label (a prompt label ``1``), as text."""
    value = row.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise DataError(f"{path}, row {number}: field {name!r} must be a string or an integer, got {value!r}")
    return str(value)


def _chosen_key(row: Mapping[str, Any], name: str, allowed: Sequence[str], path: Path, number: int) -> str | None:
    """A criterion or key column's value: one of ``allowed``, which it may leave out where there is one."""
    value = _label(row, name, path, number)
    if not allowed:
        if value is not None:
            raise DataError(f"{path}, row {number}: field {name!r}: this task takes no {name}")
        return None
    if value is None and len(allowed) == 1:
        return allowed[0]
    if value not in allowed:
        said = "is missing" if value is None else f"is {value!r}"
        raise DataError(f"{path}, row {number}: field {name!r} {said}; this task's rows name one of {list(allowed)}")
    return value


def _judgment(
    row: Mapping[str, Any], number: int, path: Path, columns: Columns
) -> tuple[str, str | None, Place, Judgment]:
    """One row checked: its judge, prompt label, place and judgment."""
    item = id_field(dict(row), "id", path, number)
    judge = _label(row, "judge", path, number)
    if judge is None:
        raise DataError(f"{path}, row {number}: field 'judge' is missing or empty")
    prompt = _label(row, "prompt", path, number)
    criterion = _chosen_key(row, "criterion", columns.criteria, path, number)
    keys = tuple(_chosen_key(row, name, allowed, path, number) or "" for name, allowed in columns.keys.items())
    read = f"{ANSWER!r} or {columns.value!r}" if columns.answers else repr(columns.value)
    for other in VALUE_COLUMNS:
        if other != columns.value and other in row:
            raise DataError(f"{path}, row {number}: field {other!r} is not read by this task, which reads {read}")
    if ANSWER in row and not columns.answers:
        raise DataError(
            f"{path}, row {number}: field {ANSWER!r}: this task reads what the grader gave ({columns.value!r}), "
            "not its text"
        )
    if ANSWER in row and columns.value in row:
        raise DataError(f"{path}, row {number}: fields {ANSWER!r} and {columns.value!r} are both given; keep one")
    if ANSWER in row:
        if not isinstance(row[ANSWER], str):
            raise DataError(f"{path}, row {number}: field {ANSWER!r} must be the judge's text, got {row[ANSWER]!r}")
        judgment = Judgment(number, answer=row[ANSWER])
    elif columns.value in row:
        judgment = Judgment(number, value=row[columns.value])
    else:
        raise DataError(f"{path}, row {number}: field {read} is missing")
    return judge, prompt, (item, criterion, keys), judgment


def recorded_judges(path: str | Path) -> list[tuple[str, str | None]]:
    """Every judge and prompt label a judgments file holds, in the order of their first rows (the file's rows are
    checked against a task when a task reads them)."""
    source = Path(path).expanduser()
    if not source.is_file():
        raise DataError(f"judgments file {source} does not exist")
    found: dict[tuple[str, str | None], None] = {}
    for number, row in _rows(source):
        judge = _label(row, "judge", source, number)
        if judge is None:
            raise DataError(f"{source}, row {number}: field 'judge' is missing or empty")
        found.setdefault((judge, _label(row, "prompt", source, number)), None)
    if not found:
        raise DataError(f"{source} has no rows")
    return list(found)
