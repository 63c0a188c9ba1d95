"""Reading your labels (``-T labels=``) and your eval's grades of unlabelled outputs (``-T unlabelled=``).

Labels and grades are read with inspect's own value conversion (:func:`scorers.grader.grade_value`: ``C`` 1, ``P``
0.5, ``I`` and ``N`` 0, yes/no, true/false, numbers, booleans). A label it cannot read is an error naming the file,
row and field; a grade it cannot read is no grade, counted.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from judge_data import DataError, OptionError, id_field, optional_text_field, read_jsonl, text_field
from scorers.grader import grade_value
from scorers.ppi import Summary

SINGLE_ANNOTATOR = "label"
"""The annotator's name where the rows name none (one label per id)."""

READABLE = "a value inspect's value_to_float reads: C, P, I, N, yes/no, true/false, a number or a boolean"


@dataclass
class LabelledOutput:
    """One labelled output: what the grader is shown, and each annotator's label as a number."""

    id: str
    input: str
    output: str
    target: str | None
    labels: dict[str, float] = field(default_factory=dict)
    row: int = 0
    """The first row of the id, for errors."""


def read_labels(path: str | None) -> tuple[list[LabelledOutput], str]:
    """The labelled outputs in file order (one per id, with every annotator's label) and the file's SHA-256."""
    if not path:
        raise OptionError("give your labels: -T labels=<file.jsonl>")
    source = Path(path).expanduser()
    if not source.is_file():
        raise OptionError(f"-T labels={path}: no such file")
    outputs: dict[str, LabelledOutput] = {}
    label_rows: dict[tuple[str, str], int] = {}
    for row_number, row in read_jsonl(source):
        item_id = id_field(row, "id", source, row_number)
        annotator = row.get("annotator")
        if annotator is not None:
            annotator = id_field(row, "annotator", source, row_number)
        name = annotator or SINGLE_ANNOTATOR
        labelled = LabelledOutput(
            item_id,
            text_field(row, "input", source, row_number),
            text_field(row, "output", source, row_number),
            optional_text_field(row, "target", source, row_number),
            row=row_number,
        )
        if "label" not in row or row["label"] is None:
            raise DataError(f"{source}, row {row_number}: field 'label' is missing")
        label = grade_value(row["label"])
        if label is None:
            raise DataError(f"{source}, row {row_number}: field 'label' is {row['label']!r}, not {READABLE}")
        known = outputs.setdefault(item_id, labelled)
        for name_of_field in ("input", "output", "target"):
            if getattr(known, name_of_field) != getattr(labelled, name_of_field):
                raise DataError(
                    f"{source}, row {row_number}: field {name_of_field!r} of id {item_id!r} differs from row "
                    f"{known.row}; every row of one output must show the grader the same {name_of_field}"
                )
        if (item_id, name) in label_rows:
            raise DataError(
                f"{source}, rows {label_rows[(item_id, name)]} and {row_number}: two labels of id {item_id!r} from "
                f"annotator {name!r}; give each label of an output its own annotator"
            )
        label_rows[(item_id, name)] = row_number
        known.labels[name] = label
    if not outputs:
        raise DataError(f"{source} has no rows")
    return list(outputs.values()), hashlib.sha256(source.read_bytes()).hexdigest()


def check_targets(outputs: list[LabelledOutput], path: str) -> None:
    """``-T target=gold`` needs a ``target`` in every row: the first row without one is an error."""
    missing = next((output for output in outputs if not output.target), None)
    if missing is not None:
        raise DataError(
            f"{path}, row {missing.row}: field 'target' is missing; -T target=gold gives each row's target to the "
            "scorer (give one per row, or run with -T target=none)"
        )


@dataclass(frozen=True)
class Unlabelled:
    """The grades of your eval's unlabelled outputs, as the corrected pass rate needs them, and where they came
    from."""

    grades: Summary
    metadata: dict[str, Any]


def read_unlabelled(value: str | None, scorer: str, labelled: Collection[str]) -> Unlabelled | None:
    """``-T unlabelled=``: the grades of the outputs whose id is not labelled, from an inspect log (the scorer
    named after ``@``, the only one, or the one named like ``scorer``; epochs averaged per sample) or a JSONL file
    of ``{"id", "grade"}``. An output without a readable grade is counted (``ungraded``) and left out."""
    if not value:
        return None
    path, chosen = Path(value).expanduser(), None
    if not path.is_file() and "@" in value:
        file_part, _, chosen = value.rpartition("@")
        path = Path(file_part).expanduser()
    if not path.is_file():
        raise OptionError(f"-T unlabelled={value}: no such file")
    if path.suffix == ".jsonl":
        grades, used = _jsonl_grades(path), None
    else:
        grades, used = _log_grades(path, chosen, scorer)
    overlap = sum(1 for item_id in grades if item_id in labelled)
    kept = [grade for item_id, grade in grades.items() if item_id not in labelled]
    summary = Summary.of(kept)
    metadata = {
        "file": str(path),
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "scorer": used,
        "outputs": len(kept),
        "ungraded": len(kept) - summary.n,
        "labelled_left_out": overlap,
    }
    if summary.n == 0:
        raise DataError(
            f"{path}: no graded output outside the labelled ids ({len(grades)} outputs, {overlap} of them labelled)"
        )
    return Unlabelled(summary, metadata)


def _jsonl_grades(path: Path) -> dict[str, float]:
    grades: dict[str, float] = {}
    for row_number, row in read_jsonl(path):
        item_id = id_field(row, "id", path, row_number)
        if item_id in grades:
            raise DataError(f"{path}, row {row_number}: duplicate id {item_id!r}")
        grade = grade_value(row.get("grade"))
        grades[item_id] = math.nan if grade is None else grade
    return grades


def _log_grades(path: Path, chosen: str | None, scorer: str) -> tuple[dict[str, float], str]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as error:
        raise DataError(f"{path}: not a readable inspect log ({error})") from error
    names = list(dict.fromkeys(name for sample in log.samples or [] for name in (sample.scores or {})))
    if not names:
        raise DataError(f"{path}: the log holds no scored sample")
    wanted = chosen or (names[0] if len(names) == 1 else scorer.rsplit("/", 1)[-1])
    if wanted not in names:
        raise DataError(
            f"{path}: the log holds scores of {', '.join(names)}; name the grader's as -T unlabelled={path}@<scorer>"
        )
    by_id: dict[str, list[float]] = {}
    for sample in log.samples or []:
        score = (sample.scores or {}).get(wanted)
        grade = None if score is None else grade_value(score.value)
        by_id.setdefault(str(sample.id), []).append(math.nan if grade is None else grade)
    means = {}
    for item_id, epochs in by_id.items():
        finite = [grade for grade in epochs if not math.isnan(grade)]
        means[item_id] = float(np.mean(finite)) if finite else math.nan
    return means, wanted
