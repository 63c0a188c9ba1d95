"""G-Eval style rating: one prompt per criterion, several samples per prompt, raw answers kept for the scorer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspect_ai.model import GenerateConfig, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from judge_data.shared_options import RatingScoring
from solvers.judge import ANSWERS_STORE_KEY, PROMPTS_STORE_KEY, ask_prompts
from solvers.logprobs import ask_logprobs
from solvers.reading.formats import AnswerFormat
from solvers.reading.json_answers import answer_config, json_request
from solvers.reading.logprobs import max_tokens_for
from solvers.reading.shapes import AnswerShape


@dataclass(frozen=True)
class Criterion:
    """One evaluation criterion: its id, its display title, a definition and numbered evaluation steps."""

    name: str
    title: str
    definition: str
    steps: tuple[str, ...]


@dataclass(frozen=True)
class JudgePrompt:
    """How prompts of one kind of text introduce the task and label the context and the judged text."""

    task: str
    context_label: str
    text_label: str
    low: int = 1
    high: int = 5

    @property
    def shape(self) -> AnswerShape:
        """The ratings these prompts ask for: whole numbers from ``low`` to ``high``."""
        return AnswerShape("rating", self.low, self.high)

    def render(self, criterion: Criterion, text: str, context: str | None, answer_format: AnswerFormat = "text") -> str:
        """The full prompt; shared parts (task, context) first, varying parts (criterion, text) last."""
        parts = [self.task]
        if context:
            parts.append(f"### {self.context_label}\n{context}")
        steps = [*criterion.steps, f"Give a {criterion.title} score from {self.low} (worst) to {self.high} (best)."]
        numbered = "\n".join(f"{number}. {step}" for number, step in enumerate(steps, start=1))
        parts.append(
            f"### Criterion: {criterion.title} ({self.low}-{self.high})\n{criterion.title} means {criterion.definition}"
        )
        parts.append(f"### Evaluation steps\n{numbered}")
        parts.append(f"### {self.text_label}\n{text}")
        parts.append(self.request(criterion, answer_format))
        return "\n\n".join(parts)

    def request(self, criterion: Criterion, answer_format: AnswerFormat = "text") -> str:
        """The closing request for the score: the number alone, or a JSON object."""
        if answer_format == "json":
            return json_request(self.shape)
        return (
            f"Reply with the {criterion.title} score only: one number from {self.low} to {self.high}.\n"
            f"{criterion.title} score:"
        )


@solver
def rate_criteria(
    prompt: JudgePrompt,
    criteria: Sequence[Criterion],
    repeats: int = 5,
    temperature: float | None = 0.0,
    scoring: RatingScoring = "sample",
    answer_format: AnswerFormat = "text",
) -> Solver:
    """Rate the sample's text (metadata ``response``, with optional ``context``) on every criterion.

    Each criterion is asked in its own prompt; the judged text is always shown alone, never beside
    another variant. The raw answers (``repeats`` per criterion), or with ``scoring="logprobs"`` one
    short answer per criterion with its top log-probabilities, go to the sample store under
    ``judge_answers`` with the score range, and the prompts under ``judge_prompts``; reading them is the
    scorer's job. ``answer_format="json"`` asks for a JSON object and passes its schema to the provider.
    """
    config = GenerateConfig(temperature=temperature).merge(answer_config(prompt.shape, answer_format))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        text = state.metadata["response"]
        context = state.metadata.get("context")
        prompts = {criterion.name: prompt.render(criterion, text, context, answer_format) for criterion in criteria}
        state.store.set(PROMPTS_STORE_KEY, prompts)
        if scoring == "logprobs":
            stored = await ask_logprobs(model, prompts, max_tokens_for(prompt.high), config)
            state.store.set(
                ANSWERS_STORE_KEY, {"low": prompt.low, "high": prompt.high, "scoring": scoring, "logprobs": stored}
            )
            answers = {name: [entry["answer"]] for name, entry in stored.items()}
        else:
            answers = await ask_prompts(model, prompts, repeats, config)
            state.store.set(ANSWERS_STORE_KEY, {"low": prompt.low, "high": prompt.high, "answers": answers})
        summary = "\n".join(f"{name}: {texts}" for name, texts in answers.items())
        state.output = ModelOutput.from_content(model=str(model), content=summary)
        return state

    return solve
