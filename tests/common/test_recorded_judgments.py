"""Recorded judgments (``-T judgments=``): the file read row by row with every check, and a recorded value or answer
read by the rules of a live answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_data import DataError, OptionError
from judge_data.recorded import Columns, Judgment, check_judgments_options, read_judgments
from solvers.reading.recorded import read_recorded, read_value
from solvers.reading.shapes import VERDICT, YES_NO, AnswerShape

LIKERT = AnswerShape("rating", 1, 5)
TEN = AnswerShape("rating", 1, 10)
ANSWERS = Path(__file__).parents[1] / "data" / "judge_answers"


@pytest.mark.parametrize(
    ("value", "shape", "read"),
    [
        (3.6666666666666665, LIKERT, 3.6666666666666665),  # a mean of three generations, HANNA's
        ("4", LIKERT, 4.0),  # a CSV cell
        (" 5.0 ", LIKERT, 5.0),
        (-1, LIKERT, None),  # the authors' failure codes
        (0, LIKERT, None),
        (0.33, LIKERT, None),
        (5.01, LIKERT, None),
        ("4/5", LIKERT, None),
        (True, LIKERT, None),
        (float("nan"), LIKERT, None),
        ([4], LIKERT, None),
        (10, TEN, 10.0),
        ("A", VERDICT, "A"),
        ("b", VERDICT, "B"),
        ("[[C]]", VERDICT, "tie"),
        ("tie", VERDICT, "tie"),
        ("D", VERDICT, None),
        ("Assistant A", VERDICT, None),
        (1, VERDICT, None),
        ("yes", YES_NO, 1.0),
        ("False", YES_NO, 0.0),
        (0.6667, YES_NO, 0.6667),  # a share of yes over generations
        (2, YES_NO, None),
        ("maybe", YES_NO, None),
    ],
)
def test_a_recorded_value_counts_only_on_the_tasks_scale(value, shape, read):
    assert read_value(value, shape) == read


def corpus(name: str) -> list[dict]:
    return [json.loads(line) for line in (ANSWERS / name).read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    ("name", "shape"),
    [
        ("fastchat_mtbench_gpt4_rating_1_10.jsonl", TEN),
        ("coeval_chatgpt_criteria.jsonl", LIKERT),
        ("fastchat_mtbench_gpt4_pair.jsonl", VERDICT),
    ],
)
def test_a_recorded_answer_is_read_as_the_parser_reads_a_live_one(name, shape):
    """Real judges' answers, as a user's file would hold them, read to the values their authors recorded."""
    rows = corpus(name)[:20]
    read = [read_recorded({"row": 1, "answer": row["answer"]}, shape, row["instructions"]).value for row in rows]
    assert read == [row["label"] if shape is VERDICT else float(row["label"]) for row in rows]


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def options(path: Path, judge=None, prompt=None) -> dict:
    return {"judgments": str(path), "judge": judge, "prompt": prompt}


RATINGS = Columns("score", ("relevance", "coherence"))


def test_csv_and_jsonl_files_with_the_same_columns_read_alike(tmp_path):
    rows = [
        {"id": "a", "criterion": "relevance", "judge": "J", "prompt": 1, "score": 3.5},
        {"id": "a", "criterion": "coherence", "judge": "J", "prompt": 1, "answer": 'Score: 4, "quoted", a, b'},
        {"id": 7, "criterion": "coherence", "judge": "J", "prompt": 1, "score": "-1"},
    ]
    jsonl = read_judgments(options(write(tmp_path / "j.jsonl", rows)), RATINGS)
    csv_path = tmp_path / "j.csv"
    csv_path.write_text(
        "id,criterion,judge,prompt,score,answer,note\n"
        "a,relevance,J,1,3.5,,\n"
        'a,coherence,J,1,,"Score: 4, ""quoted"", a, b",\n'
        "7,coherence,J,1,-1,,\n",
        encoding="utf-8",
    )
    from_csv = read_judgments(options(csv_path), RATINGS)
    assert jsonl is not None and from_csv is not None
    answer = 'Score: 4, "quoted", a, b'
    assert (jsonl.get("a", "coherence"), jsonl.get("a", "relevance")) == (Judgment(2, answer), Judgment(1, value=3.5))
    # a CSV row's number is its row in a spreadsheet, the header being row 1
    assert (from_csv.get("a", "coherence"), from_csv.get("a", "relevance")) == (
        Judgment(3, answer),
        Judgment(2, value="3.5"),
    )
    assert read_value(from_csv.get("7", "coherence").value, LIKERT) is None
    assert (jsonl.judge, jsonl.prompt, from_csv.prompt) == ("J", "1", "1")


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"criterion": "relevance", "judge": "J", "score": 3}], "row 1: field 'id' is missing"),
        ([{"id": "a", "criterion": "relevance", "score": 3}], "row 1: field 'judge' is missing"),
        ([{"id": "a", "judge": "J", "score": 3}], "row 1: field 'criterion' is missing; this task's rows name one of"),
        ([{"id": "a", "criterion": "fluency", "judge": "J", "score": 3}], "row 1: field 'criterion' is 'fluency'"),
        ([{"id": "a", "criterion": "relevance", "judge": "J"}], "row 1: field 'answer' or 'score' is missing"),
        (
            [{"id": "a", "criterion": "relevance", "judge": "J", "score": 3, "answer": "3"}],
            "row 1: fields 'answer' and 'score' are both given; keep one",
        ),
        (
            [{"id": "a", "criterion": "relevance", "judge": "J", "verdict": "A"}],
            "row 1: field 'verdict' is not read by this task, which reads 'answer' or 'score'",
        ),
        ([{"id": "a", "criterion": "relevance", "judge": "J", "answer": 3}], "row 1: field 'answer' must be the"),
        (
            [
                {"id": "a", "criterion": "relevance", "judge": "J", "prompt": 1, "score": 3},
                {"id": "b", "criterion": "relevance", "judge": "J", "prompt": 1, "score": 3},
                {"id": "a", "criterion": "relevance", "judge": "J", "prompt": "1", "answer": "Score: 2"},
            ],
            "rows 1 and 3: both hold the judgment of id 'a', criterion 'relevance', judge 'J', prompt '1'; keep one",
        ),
    ],
)
def test_a_malformed_row_is_one_error_naming_file_row_and_field(tmp_path, rows, message):
    path = write(tmp_path / "j.jsonl", rows)
    with pytest.raises(DataError) as raised:
        read_judgments(options(path), RATINGS)
    assert raised.value.message.startswith(str(path)), raised.value.message
    assert message in raised.value.message, raised.value.message


def test_a_file_of_several_judges_or_prompts_needs_a_selection_that_names_one(tmp_path):
    rows = [
        {"id": "a", "criterion": "relevance", "judge": judge, "prompt": prompt, "score": 3}
        for judge in ("J", "K")
        for prompt in (1, 2)
    ]
    rows.append({"id": "a", "criterion": "relevance", "judge": "K", "score": 3})
    path = write(tmp_path / "j.jsonl", rows)
    with pytest.raises(OptionError, match=r"several judges: \['J', 'K'\]; choose one with -T judge="):
        read_judgments(options(path), RATINGS)
    with pytest.raises(OptionError, match=r"several prompts of judge 'K': \['1', '2', '\(none\)'\]"):
        read_judgments(options(path, judge="K"), RATINGS)
    with pytest.raises(OptionError, match=r"judge=L: .* has no rows of that judge; it holds \['J', 'K'\]"):
        read_judgments(options(path, judge="L", prompt=1), RATINGS)
    chosen = read_judgments(options(path, judge="J", prompt=2), RATINGS)
    assert chosen is not None and (chosen.judge, chosen.prompt, len(chosen.judgments)) == ("J", "2", 1)


def test_a_file_whose_ids_name_no_item_of_the_task_is_one_error_with_an_example_of_each(tmp_path):
    path = write(tmp_path / "j.jsonl", [{"id": "story-1", "criterion": "relevance", "judge": "J", "score": 3}])
    judgments = read_judgments(options(path), RATINGS)
    assert judgments is not None
    with pytest.raises(DataError) as raised:
        judgments.for_items({"hanna-0000": "hanna-0000"}, "adherence_tasks/hanna")
    assert raised.value.message == (
        f"{path}: no row's id names an item of adherence_tasks/hanna (the file's ids look like 'story-1', the task's "
        "items like 'hanna-0000'); the ids must be the items' ids in the suite's data"
    )


def test_a_column_with_one_allowed_value_may_be_left_out_and_one_the_task_lacks_may_not(tmp_path):
    one = Columns("score", ("overall",), {"judgment": ("perturbed",)})
    judgments = read_judgments(options(write(tmp_path / "a.jsonl", [{"id": "x", "judge": "J", "score": 4}])), one)
    assert judgments is not None and judgments.get("x", "overall", ("perturbed",)) == Judgment(1, value=4)
    grades = Columns("grade", keys={"judgment": ("gold", "perturbed")}, answers=False)
    for row, message in [
        ({"id": "x", "judge": "J", "criterion": "c", "judgment": "gold", "grade": "C"}, "field 'criterion': this"),
        (
            {"id": "x", "judge": "J", "judgment": "gold", "answer": "GRADE: C"},
            r"reads what the grader gave \('grade'\), not its text",
        ),
    ]:
        with pytest.raises(DataError, match=message):
            read_judgments(options(write(tmp_path / "b.jsonl", [row])), grades)


def test_judge_and_prompt_need_a_file_and_a_file_needs_written_answers(tmp_path):
    with pytest.raises(OptionError, match="judge=J selects rows of recorded judgments; pass the file"):
        check_judgments_options({"judgments": None, "judge": "J", "prompt": None})
    path = write(tmp_path / "j.jsonl", [])
    with pytest.raises(OptionError, match="scoring=logprobs needs a model to ask"):
        check_judgments_options(options(path), "logprobs")
    with pytest.raises(OptionError, match="judgments file .*missing.jsonl does not exist"):
        check_judgments_options(options(tmp_path / "missing.jsonl"))
    with pytest.raises(DataError, match="has no rows"):
        read_judgments(options(path), RATINGS)
