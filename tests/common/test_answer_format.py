"""``-T answer_format=json``: the judge's answer as a JSON object whose schema the provider is given, read by its
field, with the text rules (counted) for answers that are not the asked object."""

from __future__ import annotations

import json
import re

import pytest

from dhp_tasks.definition import DHP
from judge_data.options import OptionError
from solvers.reading.json_answers import check_answer_format, json_request, response_schema
from solvers.reading.shapes import VERDICT, YES_NO, AnswerShape, Reading, read_answer
from tests.support.fake_judge import judged_text, reads_request
from tests.support.inspect_runs import eval_command, eval_in_process, metrics_of, originals_of, run_command

RATING = AnswerShape("rating", 1, 5)


@pytest.mark.parametrize(
    ("answer", "shape", "expected"),
    [
        ('{"reasoning": "Two typos, 3 facts right.", "score": 4}', RATING, Reading(4.0)),
        ('```json\n{"reasoning": "Fine.", "score": 5}\n```', RATING, Reading(5.0)),
        ('{"reasoning": "ok", "score": 4.5}', RATING, Reading(4.5)),
        ('{"reasoning": "B misses the unit.", "verdict": "A"}', VERDICT, Reading("A")),
        ('{"reasoning": "Same.", "verdict": "tie"}', VERDICT, Reading("tie")),
        ('{"reasoning": "It names the error.", "answer": "yes"}', YES_NO, Reading(True)),
        ('{"reasoning": "x", "answer": "NO"}', YES_NO, Reading(False)),
        ('{"reasoning": "x", "score": "4"}', RATING, Reading(4.0)),  # a number written as a string
        ('{"justification": "x", "verdict": "C"}', VERDICT, Reading("tie")),  # FBI's authors' shapes
        ('{"justification": "x", "verdict": "[[B]]"}', VERDICT, Reading("B")),
        ('{"reasoning": "x", "verdict": "Assistant B"}', VERDICT, Reading("B")),  # a string read on its own
        ('{"reasoning": "x", "score": "4/5"}', RATING, Reading(4.0)),
        # the asked object, but its field holds no allowed value: unparsable, never read from the reasoning
        ('{"reasoning": "I would give it a 4.", "score": 7}', RATING, Reading(None)),
        ('{"reasoning": "x", "score": true}', RATING, Reading(None)),
        ('{"reasoning": "A is better.", "verdict": "D"}', VERDICT, Reading(None)),
        ('{"reasoning": "A is better.", "verdict": "both unacceptable"}', VERDICT, Reading(None)),
        # not the asked object: read by the text rules, and counted
        ("Score: 3", RATING, Reading(3.0, json_fallback=True)),
        ('{"reasoning": "Both are fine."}', VERDICT, Reading(None, json_fallback=True)),
        ('{"reasoning": "cut off', VERDICT, Reading(None, json_fallback=True)),
        ("Answer B is wrong. [[A]]", VERDICT, Reading("A", json_fallback=True)),
        ('{"reasoning": "It says "42".", "score": 4}', RATING, Reading(4.0, json_fallback=True)),  # unescaped quotes
        ('{"reasoning": "x", "score": 2,}', RATING, Reading(2.0, json_fallback=True)),  # a trailing comma
        ('Here it is: {"reasoning": "x", "verdict": "A"}', VERDICT, Reading("A", json_fallback=True)),
        ('{"reasoning": "Names the error.\n", "answer": "yes"', YES_NO, Reading(True, json_fallback=True)),
    ],
)
def test_json_answers_are_read_by_their_field(answer, shape, expected):
    assert read_answer(answer, shape, None, "json") == expected


def test_json_answers_under_the_text_format_are_read_by_the_text_rules():
    assert read_answer('{"reasoning": "x", "score": 4}', RATING, None, "text") == Reading(4.0)
    assert read_answer('{"reasoning": "x", "score": 7}', RATING, None, "text") == Reading(None)


def test_schema_lists_the_allowed_values_with_the_reasoning_first():
    schema = response_schema(AnswerShape("rating", 1, 10)).json_schema.model_dump(exclude_none=True)
    assert list(schema["properties"]) == ["reasoning", "score"]
    assert schema["properties"]["score"] == {"type": "integer", "enum": list(range(1, 11))}
    assert schema["required"] == ["reasoning", "score"] and schema["additionalProperties"] is False
    verdict = response_schema(VERDICT).json_schema.model_dump(exclude_none=True)
    assert verdict["properties"]["verdict"] == {"type": "string", "enum": ["A", "B", "tie"]}
    assert response_schema(AnswerShape("rating", 0.5, 2.5)).json_schema.properties["score"].type == "number"
    assert '"verdict", "A" if answer A is better' in json_request(VERDICT)


def test_json_is_refused_where_no_answer_is_written():
    check_answer_format("json", "sample")
    for scoring in ("logprobs", "perplexity"):
        with pytest.raises(OptionError, match=f"scoring={scoring}"):
            check_answer_format("json", scoring)
    with pytest.raises(OptionError, match="unknown answer_format 'yaml'"):
        DHP.check(answer_format="yaml")


# ---- end to end, against a stand-in that answers in the schema it is sent ----


PROSE = {"score": "Score: {}", "verdict": "Final verdict: [[{}]]", "answer": "[[{}]]"}
"""How the stand-in writes a value when it ignores the schema: the text forms the prompts of answer_format=text ask."""


def schema_judge(value_of, fallback_every: int = 0):
    """A stand-in that answers every request with a JSON object holding ``value_of(prompt)`` in the field its
    response schema names (and checks that a schema came); every ``fallback_every``-th request gets the value in
    prose instead, as a provider that ignores schemas may return."""
    count = 0

    @reads_request
    def answer(request: dict) -> str:
        nonlocal count
        count += 1
        prompt = request["messages"][-1]["content"]
        schema = request["response_format"]["json_schema"]["schema"]
        field = list(schema["properties"])[-1]
        value = value_of(prompt)
        assert value in schema["properties"][field]["enum"], (value, schema)
        if fallback_every and count % fallback_every == 0:
            return PROSE[field].format({"tie": "C"}.get(value, value))
        return json.dumps({"reasoning": "Checked it against the source.", field: value})

    return answer


@pytest.mark.integration
def test_dhp_json_run_through_the_inspect_command(tmp_path, dhp_data):
    folder = dhp_data("storycloze")
    originals = originals_of("storycloze", folder, 6)
    command = eval_command("dhp_tasks/storycloze", f"data_dir={folder}", "n=6", "repeats=1", "answer_format=json")
    judge = schema_judge(lambda prompt: 5 if judged_text(prompt) in originals else 1)
    _, calls = run_command(command, judge, tmp_path)
    log = sorted((tmp_path / "logs").glob("*.json"))[-1]
    metrics = json.loads(log.read_text())["results"]["scores"][0]["metrics"]
    assert all(metrics[name]["value"] > 1 for name in metrics if name.startswith("D/")), metrics
    assert metrics["json_fallbacks"]["value"] == 0 and metrics["parse_failures"]["value"] == 0
    assert json.loads(log.read_text())["eval"]["metadata"]["answer_format"] == "json"
    assert {call["response_format"]["type"] for call in calls} == {"json_schema"}
    assert all('"reasoning"' in call["messages"][-1]["content"] for call in calls)


_PAIR = re.compile(r"\[Answer A\]\n(.*?)\n\n\[Answer B\]", re.DOTALL)
_SINGLE = re.compile(r"\[Answer\]\n(.*?)\n\n", re.DOTALL)


@pytest.mark.integration
def test_fbi_json_runs_count_the_answers_that_fell_back_to_text(tmp_path, fbi_data):
    from tests.fbi.test_fbi_integration import CAP, N_ITEMS, golds

    known = golds(fbi_data)

    def verdict(prompt: str) -> str:
        return "A" if _PAIR.search(prompt).group(1) in known else "B"

    log, calls = eval_in_process(
        "fbi_tasks/pairwise",
        schema_judge(verdict, fallback_every=4),
        tmp_path,
        f"data_dir={fbi_data}",
        CAP,
        "answer_format=json",
        max_connections=1,
    )
    metrics = metrics_of(log)
    assert metrics["error_rate"] == 0.0 and metrics["parse_failures"] == 0
    assert len(calls) == 2 * N_ITEMS
    assert metrics["json_fallbacks"] == len(calls) // 4  # the prose answers, read by the text rules
