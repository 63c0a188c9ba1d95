"""Judge prompts for the instruction-adherence settings, written for this project.

Murugadoss et al. (AAAI 2025) give the judge more and more instruction about what to score: nothing
but a request for quality (``generic``), the criterion's name (``criterion``), or its name with the
definition and the meaning of each score level (``rubric``). Every prompt opens with what all prompts
of an item share (the dataset's task description, the task input, the response) and ends with the
question, so engines with prefix caching reuse the shared part across an item's criteria.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from judge_data.human import HumanCriterion
from solvers.judge_template import JudgeTemplate
from solvers.reading.formats import AnswerFormat
from solvers.reading.json_answers import json_request
from solvers.reading.shapes import YES_NO, AnswerShape

Setting = Literal["generic", "criterion", "rubric"]
SETTINGS: tuple[Setting, ...] = ("generic", "criterion", "rubric")
"""How much the prompt tells the judge: the paper's settings 2-4 (its setting 1, no prompt, is
``scoring=perplexity``)."""

PERPLEXITY_SETTING = "perplexity"
"""What a run with ``scoring=perplexity`` logs as its setting: the paper's setting 1, the judge's likelihood of the
response with no instruction at all (task names ``adherence_<dataset>_perplexity``)."""


@dataclass(frozen=True)
class Question:
    """One thing asked of the judge about an item, and how its answer is read."""

    key: str
    low: float
    high: float
    binary: bool
    ask: str
    """The closing part of the prompt (what to score and how to answer)."""
    higher_is_better: bool = True
    request: str = ""
    """How to answer, the last part of :attr:`ask` (a judge template's ``{request}``)."""
    criterion: str = "overall quality"
    """What is scored, as a judge template's ``{criterion}`` names it."""
    definition: str = ""

    @property
    def shape(self) -> AnswerShape:
        """How the answer to this question is read: yes/no, or a rating on its scale and direction."""
        return YES_NO if self.binary else AnswerShape("rating", self.low, self.high, self.higher_is_better)


def _scale_words(low: float, high: float, higher_is_better: bool = True) -> str:
    """The scale as the humans used it: for a lower-is-better criterion (``errors``) the low end is the best, so a
    judge that follows the prompt scores in the humans' direction and agrees with them positively."""
    if higher_is_better:
        return f"from {low:g} (worst) to {high:g} (best)"
    return f"from {low:g} (best) to {high:g} (worst)"


def _levels(criterion: HumanCriterion) -> str:
    """The rubric's score levels, unless they only restate yes/no."""
    if all(text.lower().strip(". ") in ("yes", "no") for text in criterion.rubric.values()):
        return ""
    return "\n".join(f"{level}: {text}" for level, text in criterion.rubric.items())


def _request(
    binary: bool,
    low: float,
    high: float,
    answer_format: AnswerFormat,
    label: str = "Score",
    higher_is_better: bool = True,
) -> str:
    """How the judge is asked to answer: the bare answer (the paper's protocol) or a JSON object."""
    if answer_format == "json":
        return json_request(YES_NO if binary else AnswerShape("rating", low, high, higher_is_better))
    return "Reply with yes or no only.\nAnswer:" if binary else f"Reply with the score only.\n{label}:"


def generic_question(low: float, high: float, binary: bool, answer_format: AnswerFormat = "text") -> Question:
    """The quality question with no criterion named, on the scale of the criteria it is compared with."""
    if binary:
        request = _request(True, low, high, answer_format)
        return Question(
            "generic/binary", low, high, True, f"Is this a good response to the task?\n{request}", True, request
        )
    request = _request(False, low, high, answer_format)
    ask = f"Rate the overall quality of the response {_scale_words(low, high)}.\n{request}"
    return Question(f"generic/{low:g}-{high:g}", low, high, False, ask, True, request)


def criterion_question(criterion: HumanCriterion, setting: Setting, answer_format: AnswerFormat = "text") -> Question:
    """The question about one criterion: its name only (``criterion``) or with definition and levels (``rubric``)."""
    title = criterion.title
    parts = []
    if setting == "rubric":
        if criterion.definition:
            parts.append(f"Criterion: {title}\n{criterion.definition}")
        levels = _levels(criterion)
        if levels:
            parts.append(f"Score levels:\n{levels}")
    if criterion.binary:
        request = _request(True, criterion.low, criterion.high, answer_format)
        if setting == "rubric" and criterion.definition:
            question = "Answer the criterion's question for this response."
        elif criterion.higher_is_better:
            question = f"Does the response satisfy the criterion '{title}'?"
        else:
            question = f"Does the response have a problem of the kind '{title}'?"
        parts.append(f"{question}\n{request}")
    else:
        request = _request(
            False, criterion.low, criterion.high, answer_format, f"{title} score", criterion.higher_is_better
        )
        scale = _scale_words(criterion.low, criterion.high, criterion.higher_is_better)
        parts.append(f"Rate the response for {title} {scale}.\n{request}")
    return Question(
        criterion.name,
        criterion.low,
        criterion.high,
        criterion.binary,
        "\n\n".join(parts),
        criterion.higher_is_better,
        request,
        title,
        criterion.definition or "",
    )


def questions_for(
    setting: Setting, criteria: Sequence[HumanCriterion], answer_format: AnswerFormat = "text"
) -> tuple[list[Question], dict[str, str]]:
    """The questions a prompted setting asks per item, and which question each criterion is compared with."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; the settings are {SETTINGS}")
    questions: dict[str, Question] = {}
    answered_by: dict[str, str] = {}
    for criterion in criteria:
        if setting == "generic":
            question = generic_question(criterion.low, criterion.high, criterion.binary, answer_format)
        else:
            question = criterion_question(criterion, setting, answer_format)
        questions.setdefault(question.key, question)
        answered_by[criterion.name] = question.key
    return list(questions.values()), answered_by


def render(
    question: Question, task_description: str, task: str, response: str, template: JudgeTemplate | None = None
) -> str:
    """The full prompt: shared parts first (task description, task input, response), the question last; or a judge
    template filled with them."""
    if template is not None:
        return template.render(
            task_description=task_description,
            task=task,
            response=response,
            criterion=question.criterion,
            definition=question.definition,
            low=f"{question.low:g}",
            high=f"{question.high:g}",
            request=question.request,
        )
    return "\n\n".join(
        [
            "You are evaluating a response that was written for the task below.",
            f"### Task description\n{task_description}",
            f"### Task input\n{task}",
            f"### Response\n{response}",
            f"### Evaluation\n{question.ask}",
        ]
    )
