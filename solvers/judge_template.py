"""Your own judge prompt for a suite's rating, verdict and yes/no tasks: a template file with the task's named
placeholders (``{text}``, ``{question}``, ``{criterion}``, ...), checked when it is loaded and filled per judgment.

The suite's parser reads the answers on the scale the task states (``{low}`` to ``{high}``), so a template asks for
them as the suite's own prompts do (``{request}`` is the suite's own closing request, in the task's answer format).
The template's hash goes into the task metadata (``judge_template``), and from there into ``judge-report``'s
comparability: two templates never share a column.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge_data import OptionError
from solvers.geval import Criterion, JudgePrompt

TEMPLATE_METADATA = "judge_template"
"""Task-metadata key of the template's hash (``judge_template_file`` holds its path)."""


@dataclass(frozen=True)
class Placeholders:
    """The named placeholders a task fills: those a template must use and those it may."""

    required: tuple[str, ...]
    optional: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Every placeholder the task fills."""
        return (*self.required, *self.optional)

    def described(self) -> str:
        """The placeholders as an error message and the README list them."""
        optional = f"; may use {', '.join(f'{{{name}}}' for name in self.optional)}" if self.optional else ""
        return f"must use {', '.join(f'{{{name}}}' for name in self.required)}{optional}"


@dataclass(frozen=True)
class JudgeTemplate:
    """A loaded template: its file, text and hash."""

    path: str
    text: str
    sha256: str = field(repr=False)

    @property
    def short_hash(self) -> str:
        """The hash the log and ``judge-report`` carry."""
        return self.sha256[:12]

    def render(self, **values: Any) -> str:
        """The template with its placeholders filled (values it does not use are ignored)."""
        return self.text.format_map(values)

    def metadata(self) -> dict[str, str]:
        """What the task metadata records of the template."""
        return {TEMPLATE_METADATA: self.short_hash, f"{TEMPLATE_METADATA}_file": self.path}


def load_judge_template(path: str | None, placeholders: Placeholders, task: str) -> JudgeTemplate | None:
    """The template in ``path`` (``None`` without one), refused with one message naming the file and the
    placeholder when it uses one the task does not fill or lacks one it must use."""
    if path is None or path == "":
        return None
    file = Path(path).expanduser()
    if not file.is_file():
        raise OptionError(f"-T judge_template={path}: no such file")
    text = file.read_text(encoding="utf-8")
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError as error:
        raise OptionError(f"{file}: not a template ({error}); write a literal brace as {{{{ or }}}}") from error
    unknown = sorted({name for name in fields if name not in placeholders.names})
    if unknown:
        shown = ", ".join("{" + name + "}" for name in unknown)
        braces = "" if all(name.isidentifier() for name in unknown) else "; write a literal brace as {{ or }}"
        raise OptionError(f"{file}: unknown placeholder {shown}; a {task} template {placeholders.described()}{braces}")
    missing = [name for name in placeholders.required if name not in fields]
    if missing:
        shown = ", ".join("{" + name + "}" for name in missing)
        raise OptionError(f"{file}: missing placeholder {shown}; a {task} template {placeholders.described()}")
    return JudgeTemplate(str(file), text, hashlib.sha256(text.encode()).hexdigest())


def check_template_scoring(template: JudgeTemplate | None, scoring: str) -> None:
    """A template is a prompt: ``scoring=perplexity`` sends none."""
    if template is not None and scoring == "perplexity":
        raise OptionError("judge_template is a prompt; scoring=perplexity sends none (use sample or logprobs)")


DHP_PLACEHOLDERS = Placeholders(("text", "criterion"), ("context", "definition", "low", "high", "request"))
"""DHP: the judged text, the criterion's title; the text's context (source article, story, question), the
criterion's definition, the scale and the suite's request for the score."""


FBI_PLACEHOLDERS = {
    "single": Placeholders(("answer",), ("question", "low", "high", "request")),
    "pairwise": Placeholders(("answer_a", "answer_b"), ("question", "request")),
    "reference": Placeholders(("answer", "reference"), ("question", "low", "high", "request")),
}
"""FBI, per paradigm: the judged answer (or the two compared answers, and the reference), the user's request, the
scale and the strategy's own closing request."""


ADHERENCE_PLACEHOLDERS = Placeholders(
    ("response",), ("task_description", "task", "criterion", "definition", "low", "high", "request")
)
"""Instruction adherence: the judged response; the dataset's task description, the task input, the criterion (its
title, or "overall quality" under the generic setting) and definition, its scale, and the suite's request (a score or
yes/no)."""


@dataclass(frozen=True)
class TemplatePrompt(JudgePrompt):
    """DHP's G-Eval prompt replaced by a user's template, on the scale ``low`` to ``high``."""

    template: JudgeTemplate | None = None

    def render(self, criterion: Criterion, text: str, context: str | None, answer_format: Any = "text") -> str:
        """The template filled for one criterion and text."""
        assert self.template is not None
        return self.template.render(
            text=text,
            context=context or "",
            criterion=criterion.title,
            definition=criterion.definition,
            low=self.low,
            high=self.high,
            request=self.request(criterion, answer_format),
        )


def templated_prompt(prompt: JudgePrompt, template: JudgeTemplate | None, scale: int | None) -> JudgePrompt:
    """``prompt`` itself without a template; with one, the template on ``prompt``'s scale or 1 to ``scale``."""
    if template is None:
        if scale is not None:
            raise OptionError("scale sets the range a judge_template asks for; the suite's prompts rate 1-5")
        return prompt
    return TemplatePrompt(
        prompt.task, prompt.context_label, prompt.text_label, prompt.low, scale or prompt.high, template=template
    )
