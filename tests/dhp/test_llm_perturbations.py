import asyncio

import pytest

from dhp_tasks.llm_perturbations import (
    LLM_PERTURBATIONS,
    PerturberReport,
    clean_reply,
    perturb_with_model,
    perturber_prompt,
    rejection_reason,
)

ORIGINAL = "The mayor of Springfield opened a new library on Monday. It holds 40,000 books."
ROW, CHANGE = next(
    (row, change) for row, change in LLM_PERTURBATIONS["summeval"] if row.id == "fictional_entities_minor"
)
REWRITE = next(change for row, change in LLM_PERTURBATIONS["summeval"] if row.id == "rewrite_insert_major")


def test_table_rows_match_the_paper():
    def ids(dataset):
        return {(row.id, row.level, row.degree, row.method) for row, _ in LLM_PERTURBATIONS[dataset]}

    assert ids("summeval") == {
        ("fictional_entities_minor", "word", "minor", "llm"),
        ("fictional_entities_major", "word", "major", "llm"),
        ("grammar_errors_minor", "word", "minor", "llm"),
        ("grammar_errors_major", "word", "major", "llm"),
        ("rewrite_insert_minor", "sentence", "minor", "llm"),
        ("rewrite_insert_major", "sentence", "major", "llm"),
    }
    assert ids("storycloze") == {("fictional_entities", "word", None, "llm"), ("grammar_errors", "word", None, "llm")}
    for dataset in ("answer_equivalence", "wmt22_de_en", "wmt22_zh_en"):
        assert {row.family for row, _ in LLM_PERTURBATIONS[dataset]} == {"fictional_entities", "grammar_errors"}


def test_prompt_has_numbered_steps_and_task_wording():
    prompt = perturber_prompt(CHANGE, "translation", ORIGINAL)
    assert "translation" in prompt and "summary" not in prompt
    assert "exactly one" in prompt and "\n1. " in prompt and "\n4. " in prompt
    assert prompt.endswith(f"Translation:\n{ORIGINAL}\n\nChanged translation:")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("The mayor of Quibbleton opened a new library on Monday. It holds 40,000 books.", None),
        ("Revised summary: The mayor of Quibbleton opened a new library on Monday. It holds 40,000 books.", None),
        (
            'Here is the changed summary:\n\n"The mayor of Quibbleton opened a new library on Monday. It holds 40,000 books."',
            None,
        ),
        ("```\nThe mayor of Quibbleton opened a new library on Monday. It holds 40,000 books.\n```", None),
        ("", "empty"),
        ("Changed summary:   ", "empty"),
        (ORIGINAL, "unchanged"),
        ("  " + ORIGINAL.replace(" ", "  ") + " ", "unchanged"),
        ("Change: Replace exactly one of the key named entities\n\nSteps:\n1. Find", "prompt_echo"),
        (ORIGINAL + " " + ORIGINAL, "too_long"),
        ("The mayor.", "too_short"),
    ],
)
def test_replies_are_cleaned_and_validated(reply, expected):
    assert rejection_reason(ORIGINAL, clean_reply(reply), CHANGE) == expected


def test_insertion_must_lengthen_the_text():
    assert rejection_reason(ORIGINAL, ORIGINAL.replace("Monday", "Tuesday"), REWRITE) == "too_short"
    longer = ORIGINAL + " In short, a library opened in Springfield."
    assert rejection_reason(ORIGINAL, longer, REWRITE) is None


def test_retries_are_bounded_and_counted():
    replies = iter(
        [
            "",
            ORIGINAL,
            "Revised summary: The mayor of Quibbleton opened a new library on Monday. It holds 40,000 books.",
        ]
    )
    asked = []

    async def generate(prompt, attempt):
        asked.append(attempt)
        return next(replies)

    report = PerturberReport()
    text = asyncio.run(perturb_with_model(ROW, CHANGE, "summarization", ORIGINAL, generate, report))
    assert text.startswith("The mayor of Quibbleton")
    assert asked == [0, 1, 2]
    assert report.as_dict() == {"calls": 3, "rejected": {ROW.id: {"empty": 1, "unchanged": 1}}, "failed_items": {}}

    async def never(prompt, attempt):
        return ""

    assert (
        asyncio.run(perturb_with_model(ROW, CHANGE, "summarization", ORIGINAL, never, report, max_attempts=2)) is None
    )
    assert report.as_dict()["failed_items"] == {ROW.id: 1}
    assert report.as_dict()["rejected"][ROW.id]["empty"] == 3
