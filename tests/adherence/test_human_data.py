"""The human-annotated data layout (judge_data/human.py) on the real shared data and on bad input."""

from __future__ import annotations

import json

import pytest

from judge_data import DataError
from judge_data.human import load_criteria, load_items
from tests.conftest import data_folder

EXPECTED_ITEMS = {
    "summeval": 1600,
    "topicalchat": 360,
    "opinsummeval": 1400,
    "hanna": 1005,
    "thenextchapter": 520,
    "roscoe": 756,
    "roscoe_stepwise": 2014,
    "coeval_eli5": 200,
    "coeval_rocstories": 200,
    "coeval_self_instruct": 200,
}


@pytest.mark.parametrize("dataset", sorted(EXPECTED_ITEMS))
def test_every_shared_dataset_loads_in_full(dataset):
    folder = data_folder("human", dataset)
    criteria, document = load_criteria(folder)
    items = load_items(folder, criteria)
    assert len(items) == EXPECTED_ITEMS[dataset]
    assert document["task_description"]
    names = {criterion.name for criterion in criteria}
    assert all(set(item.human) <= names for item in items)
    for criterion in criteria:
        scores = [item.human[criterion.name] for item in items if criterion.name in item.human]
        assert scores and all(criterion.low <= score <= criterion.high for score in scores)


def test_criteria_carry_scale_direction_group_and_levels():
    criteria, _ = load_criteria(data_folder("human", "topicalchat"))
    by_name = {criterion.name: criterion for criterion in criteria}
    understandable = by_name["understandable"]
    assert understandable.binary and (understandable.low, understandable.high) == (0, 1)
    assert list(understandable.rubric) == ["0", "1"]
    assert by_name["natural"].high == 3 and by_name["engaging"].group == "Engagement"
    stepwise, _ = load_criteria(data_folder("human", "roscoe_stepwise"))
    assert not any(criterion.higher_is_better for criterion in stepwise)


def test_annotator_scores_and_ids_line_up():
    folder = data_folder("human", "coeval_eli5")
    criteria, _ = load_criteria(folder)
    item = load_items(folder, criteria)[0]
    assert item.annotator_ids == ["A01", "A02", "A03", "A04", "A05"]
    assert item.annotator_scores["simple_language"] == [4.0, 4.0, 4.0, 4.0, 3.0]
    assert item.human["simple_language"] == pytest.approx(3.8)


CRITERIA = {
    "criteria": [
        {"name": "fluency", "range": [1, 5], "scale": "likert", "higher_is_better": True, "group": "Content"},
        {"name": "errors", "range": [0, 1], "scale": "binary", "higher_is_better": False, "group": "Integrity"},
    ]
}
GOOD_ROW = {"id": "a", "task": "Write.", "response": "Text.", "criteria": {"fluency": 4, "errors": 0}}


def _folder(tmp_path, rows, criteria=CRITERIA):
    (tmp_path / "criteria.json").write_text(json.dumps(criteria))
    (tmp_path / "items.jsonl").write_text(
        "".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows)
    )
    return tmp_path


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("[1, 2]", "row 2: expected a JSON object, got list"),
        ({**GOOD_ROW, "id": "b", "response": {"x": 1}}, "row 2: field 'response' must be a string"),
        ({**GOOD_ROW, "id": "b", "criteria": {"fluency": 7}}, "row 2: field 'criteria.fluency': 7 is outside"),
        ({**GOOD_ROW, "id": "b", "criteria": {"fluency": "4"}}, "row 2: field 'criteria.fluency': expected a number"),
        ({**GOOD_ROW, "id": "b", "criteria": {"fluency": True}}, "row 2: field 'criteria.fluency': expected a number"),
        (GOOD_ROW, "row 2: duplicate id 'a'"),
        (
            {**GOOD_ROW, "id": "b", "annotator_scores": {"fluency": [4, 5]}, "annotator_ids": ["x"]},
            "row 2: field 'annotator_scores.fluency' has 2 scores for 1 annotator_ids",
        ),
        (
            {**GOOD_ROW, "id": "b", "annotator_scores": {"fluency": [4]}, "annotator_ids": ["lab 1, room 2"]},
            "row 2: field 'annotator_ids[0]' is 'lab 1, room 2': a name must be non-empty and hold neither",
        ),
    ],
)
def test_bad_rows_name_file_row_and_field(tmp_path, row, message):
    folder = _folder(tmp_path, [GOOD_ROW, row])
    criteria, _ = load_criteria(folder)
    with pytest.raises(DataError, match="items.jsonl, " + message.replace("(", r"\(").replace("[", r"\[")):
        load_items(folder, criteria)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"group": "Style"}, r"criteria\[0\] \(fluency\): field 'group' must be one of"),
        ({"range": [5, 1]}, r"criteria\[0\] \(fluency\): field 'range' must be \[low, high\]"),
        ({"scale": "stars"}, r"criteria\[0\] \(fluency\): field 'scale' must be one of"),
        ({"higher_is_better": "yes"}, r"criteria\[0\]: field 'higher_is_better' is missing or not a bool"),
        ({"name": "fluency/style"}, r"criteria\[0\]: field 'name' is 'fluency/style': a name must be non-empty"),
        ({"name": "fluency, style"}, r"criteria\[0\]: field 'name' is 'fluency, style': a name must be non-empty"),
    ],
)
def test_bad_criteria_name_file_entry_and_field(tmp_path, change, message):
    broken = {"criteria": [{**CRITERIA["criteria"][0], **change}, CRITERIA["criteria"][1]]}
    folder = _folder(tmp_path, [GOOD_ROW], broken)
    with pytest.raises(DataError, match=message):
        load_criteria(folder)
