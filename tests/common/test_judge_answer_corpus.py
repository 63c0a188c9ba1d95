"""The parsers against what real judges wrote: every answer in tests/data/judge_answers/ and ../shared/data/judge_answers/.

Each file is one source and one answer shape (see tests/data/judge_answers/PROVENANCE.md). The label is what the
source's authors parsed, kept only where the text agrees with it. Per file the parser must read at least 99 % of the
answers right and misread at most 0.3 %; every answer it leaves unread is listed below with the reason, so a change
that reads more, or less, shows up here.

The JSON answers of the FBI authors' prompts (``{"justification": ..., "score": n}``, verdicts ``"A"``, ``"[[A]]"``,
``"C"`` for a tie, ``"D"`` for "both unacceptable") are built from real answers: each answer's reasoning (its lines
without a ``[[...]]`` answer) with its label, written in those shapes, well-formed and malformed.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from fbi_tasks.prompts import rating_shape
from solvers.reading.json_answers import json_request
from solvers.reading.ratings import parse_rating
from solvers.reading.shapes import VERDICT, read_answer
from solvers.reading.verdicts import parse_verdict
from solvers.reading.yes_no import parse_yes_no
from tests.conftest import data_folder

CORPUS = Path(__file__).resolve().parents[1] / "data" / "judge_answers"

MT_BENCH_PAIR = (
    'After providing your explanation, output your final verdict by strictly following this format: "[[A]]" if '
    'assistant A is better, "[[B]]" if assistant B is better, and "[[C]]" for a tie.'
)
MT_BENCH_SINGLE = (
    "After providing your explanation, you must rate the response on a scale of 1 to 10 by strictly following this "
    'format: "[[rating]]", for example: "Rating: [[5]]".'
)
"""The closing instructions of FastChat's ``pair-v2`` and ``single-v1`` judge prompts (lm-sys/FastChat,
``fastchat/llm_judge/data/judge_prompts.jsonl``, Apache-2.0), which the shared files' judges answered."""

SHARED = {
    "pairwise_verdicts.jsonl": ("pairwise_bracket", MT_BENCH_PAIR),
    "single_ratings.jsonl": ("rating_1_10", MT_BENCH_SINGLE),
}

KNOWN_UNREAD = {
    ("openqa_eval_gpt4_yes_no.jsonl", 309): "answers the yes/no check only by implication "
    '("The candidate provides a date, not a location."); reading yes or no into it would be a guess',
}
"""Answers left unread on purpose, by (file, 0-based row), with the reason."""

MIN_RIGHT = 0.99
MAX_MISREAD = 0.003


def _read(row: dict) -> object:
    answer, prompt, shape = row["answer"], row.get("instructions"), row["shape"]
    if shape.startswith("pairwise"):
        return parse_verdict(answer, prompt)
    if shape == "yes_no":
        return parse_yes_no(answer, prompt)
    return parse_rating(answer, row["low"], row["high"], prompt)


def _rows(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if path.name not in SHARED:
        return rows
    shape, instructions = SHARED[path.name]
    return [
        {
            "answer": row["answer"],
            "label": row.get("verdict", row.get("score")),
            "shape": shape,
            "low": row.get("scale_min"),
            "high": row.get("scale_max"),
            "instructions": instructions,
        }
        for row in rows
    ]


def _check(path: Path) -> None:
    rows = _rows(path)
    outcomes: Counter[str] = Counter()
    unread, misread = set(), []
    for number, row in enumerate(rows):
        value = _read(row)
        if value == row["label"]:
            outcomes["right"] += 1
        elif value is None:
            outcomes["unread"] += 1
            unread.add((path.name, number))
        else:
            outcomes["misread"] += 1
            misread.append((number, row["label"], value))
    assert outcomes["right"] / len(rows) >= MIN_RIGHT, outcomes
    assert outcomes["misread"] / len(rows) <= MAX_MISREAD, misread
    assert unread == {key for key in KNOWN_UNREAD if key[0] == path.name}


CORPUS_FILES = sorted(CORPUS.glob("*.jsonl"))


@pytest.mark.parametrize("path", CORPUS_FILES, ids=[path.stem for path in CORPUS_FILES])
def test_real_judge_answers(path):
    _check(path)


@pytest.mark.parametrize("name", sorted(SHARED))
def test_real_judge_answers_in_the_shared_data(name):
    _check(data_folder("judge_answers") / name)


def test_the_corpus_covers_judges_families_and_shapes():
    rows = [row for path in CORPUS_FILES for row in _rows(path)]
    shapes = Counter(row["shape"] for row in rows)
    assert set(shapes) == {
        "rating_1_5",
        "rating_1_10",
        "criterion_eval",
        "yes_no",
        "pairwise_bracket",
        "pairwise_other_brackets",
        "pairwise_prose",
    }
    assert len({row["judge"] for row in rows}) >= 5
    for row in rows:
        assert row["source"].count("@") == 1 and len(row["source"].split("@")[1].split(":")[0]) == 40, row["source"]
    assert all(key[0] in {path.name for path in CORPUS_FILES} for key in KNOWN_UNREAD)


def _reasoning(answer: str) -> str:
    return "\n".join(line for line in answer.split("\n") if "[[" not in line).strip()


def _fbi_json_answers(reasoning: str, field: str, value: object) -> list[str]:
    """One answer in the shapes a judge writes when asked for ``{"justification": ..., field: value}``."""
    quoted = json.dumps(value)
    return [
        json.dumps({"justification": reasoning, field: value}),
        "```json\n" + json.dumps({"justification": reasoning, field: value}, indent=2) + "\n```",
        "Here is my evaluation:\n" + json.dumps({"justification": reasoning, field: value}),
        '{"justification": "' + reasoning + f'", "{field}": {quoted}}}',  # quotes and line breaks left unescaped
        '{\n  "justification": ' + json.dumps(reasoning) + f',\n  "{field}": {quoted},\n}}',  # a trailing comma
        repr({"justification": reasoning, field: value}),  # a Python dict
    ]


def test_fbi_json_answers_built_from_real_ratings():
    shape = rating_shape(10)
    rows = [row for row in _rows(CORPUS / "fastchat_mtbench_gpt4_rating_1_10.jsonl") if _reasoning(row["answer"])]
    for row in rows:
        score = int(row["label"]) if float(row["label"]).is_integer() else row["label"]
        answers = _fbi_json_answers(_reasoning(row["answer"]), "score", score)
        for answer in answers:
            assert read_answer(answer, shape, json_request(shape), "json").value == row["label"], answer
        assert parse_rating(answers[0], 1, 10, row["instructions"]) == row["label"], answers[0]  # under text too


def test_fbi_json_verdicts_built_from_real_verdicts():
    rows = [row for row in _rows(CORPUS / "fastchat_mtbench_gpt4_pair.jsonl") if _reasoning(row["answer"])]
    letters = {"A": "A", "B": "B", "tie": "C"}
    for row in rows:
        reasoning, letter = _reasoning(row["answer"]), letters[row["label"]]
        for said, label in ((letter, row["label"]), ("D", None)):  # D, "both unacceptable", is not offered here
            answers = _fbi_json_answers(reasoning, "verdict", said)
            answers.append(json.dumps({"justification": reasoning, "verdict": f"[[{said}]]"}))
            for answer in answers:
                assert read_answer(answer, VERDICT, json_request(VERDICT), "json").value == label, answer
