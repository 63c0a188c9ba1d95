"""The parsers against what real judges wrote: every answer in tests/data/judge_answers/ and ../shared/data/judge_answers/.

Each file is one source and one answer shape (see tests/data/judge_answers/PROVENANCE.md). The label is what the
source's authors parsed, kept only where the text agrees with it. Per file the parser must read at least 99 % of the
answers right and misread at most 0.3 %; every answer it leaves unread is listed below with the reason, so a change
that reads more, or less, shows up here.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from scorers.answer_parsing import parse_rating, parse_verdict, parse_yes_no
from tests.conftest import data_folder

CORPUS = Path(__file__).parent / "data" / "judge_answers"

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
