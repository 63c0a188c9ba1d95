import pytest

from solvers.score_parsing import parse_rating, parse_verdict, parse_yes_no


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("4", 4.0),
        (" 3\n", 3.0),
        ("Score: 4", 4.0),
        ("Coherence score: 2", 2.0),
        ("4/5", 4.0),
        ("I'd give it 3 / 5.", 3.0),
        ("4 out of 5", 4.0),
        ("[[5]]", 5.0),
        ("Rating: [[2]]", 2.0),
        ("The summary repeats itself and jumps between topics. 2", 2.0),
        ("The ending fits the story well, so I rate it 4.", 4.0),
        ("3.5", 3.5),
        ("1. 5\n2.", 5.0),
        ("1. Read the summary.\n2. Check facts.\nScore: 3", 3.0),
        ("Fluency: 5", 5.0),
        ("Coherence score (1-5): 4", 4.0),
        ("Score: 4 (on a 1-5 scale)", 4.0),
        ("On a scale from 1 to 5, I give it a 2.", 2.0),
    ],
)
def test_parses_common_answer_forms(answer, expected):
    assert parse_rating(answer) == expected


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "   ",
        "The summary is fine.",
        "Score: 7",
        "0",
        "10/10",
        "[[6]]",
        "-",
        "Score: high",
        "One number from 1 to 5",
    ],
)
def test_missing_or_out_of_range_is_unparsable(answer):
    assert parse_rating(answer) is None


def test_other_scales():
    assert parse_rating("8", low=1, high=10) == 8.0
    assert parse_rating("Score: 3", low=1, high=3) == 3.0
    assert parse_rating("Score: 4", low=1, high=3) is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("A", "A"),
        ("[[B]]", "B"),
        ("[[C]]", "tie"),
        ("Verdict: A", "A"),
        ("Both are fine. Final verdict: [[A]]", "A"),
        ("Assistant B is better because it is accurate.", "B"),
        ("It's a tie.", "tie"),
        ("tie", "tie"),
        ("I first thought [[A]] but on reflection [[B]]", "B"),
    ],
)
def test_parses_verdicts(answer, expected):
    assert parse_verdict(answer) == expected


@pytest.mark.parametrize("answer", ["", "Both have merits.", "Answer A has a typo, answer B is long."])
def test_unclear_verdicts_are_unparsable(answer):
    assert parse_verdict(answer) is None


def test_parses_yes_no():
    assert parse_yes_no("[[YES]]") is True
    assert parse_yes_no("The explanation says nothing. [[NO]]") is False
    assert parse_yes_no("No, it does not.") is False
    assert parse_yes_no("maybe") is None
