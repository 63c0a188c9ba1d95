"""Asking a judge how it would evaluate a task, and reading the list of criteria out of its answer.

CoEval (Li et al., §4.1-4.2): the judge writes its evaluation criteria for a task once at temperature 0
(the reference list) and N more times by sampling; the scorer compares the lists.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field

from inspect_ai.model import GenerateConfig, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from judge_data import OptionError
from solvers.judge import sample_answers

CRITERIA_STORE_KEY = "criteria_answers"
"""Where :func:`ask_for_criteria` leaves ``{"prompt": ..., "reference": answer, "sampled": [answers]}``."""


def criteria_prompt(task: str, example_input: str | None = None, example_output: str | None = None) -> str:
    """Our prompt: the task, an optional worked example, and a request for a numbered list of criteria."""
    parts = [
        "You are setting up the evaluation of a text generation task. Do not perform the task yourself.",
        f"Task: {task}",
    ]
    if example_input or example_output:
        example = ["Here is one instance of the task, to show what inputs and outputs look like."]
        if example_input:
            example.append(f"Input: {example_input}")
        if example_output:
            example.append(f"Output: {example_output}")
        parts.append("\n".join(example))
    parts.append(
        "Which criteria should a careful evaluator use to judge how well an output accomplishes this task? "
        "Include qualities that matter for any well-written text as well as the requirements specific to this "
        "task. Write one criterion per numbered line: a short name, a colon, then one sentence on what the "
        "criterion demands."
    )
    parts.append("Evaluation criteria:")
    return "\n\n".join(parts)


@solver
def ask_for_criteria(samples: int = 10, temperature: float = 0.7) -> Solver:
    """The sample's prompt (metadata ``prompt``) answered once at temperature 0 and ``samples`` times sampled.

    The sampled answers are asked for as choices of one call where the provider supports it and
    topped up with further calls otherwise. The raw answers go to the store for the scorer.
    """
    if samples < 1:
        raise OptionError(f"samples must be at least 1, got {samples}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        prompt = state.metadata["prompt"]
        reference, sampled = await asyncio.gather(
            sample_answers(model, prompt, 1, GenerateConfig(temperature=0.0)),
            sample_answers(model, prompt, samples, GenerateConfig(temperature=temperature)),
        )
        state.store.set(CRITERIA_STORE_KEY, {"prompt": prompt, "reference": reference[0], "sampled": sampled})
        state.output = ModelOutput.from_content(model=str(model), content=reference[0])
        return state

    return solve


_MARKER = re.compile(
    r"^(?P<indent>[ \t]*)(?:#{1,6}\s*)?(?P<marker>\(?\d{1,2}[.):]\)?|\(?[a-zA-Z][.)]|[-*•●◦▪–+])\s+(?P<text>\S.*)$"
)
_TITLE = re.compile(r"^(?P<indent>[ \t]*)(?:#{1,6}\s*)?(?:\*\*|__)(?P<title>[^*_]+?)(?:\*\*|__)\s*(?P<rest>.*)$")
_HEADING = re.compile(r"^(?P<indent>[ \t]*)#{1,6}\s+(?P<title>\S.*)$")
_EMPHASIS = re.compile(r"\*\*|__|`")
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[a-z0-9]+")
ECHO_MIN_WORDS = 3
"""An item of at least this many words found verbatim in the prompt is an echo of the prompt, not a criterion."""


@dataclass
class _Item:
    indent: int
    text: str
    title_only: bool = False
    """A bare title (``**Clarity**``, ``### Clarity``, ``1. **Clarity**``): a description may follow after a blank."""
    unmarked: bool = False
    """A title line without a list marker: list items after it belong to it, whatever their indentation."""
    children: list[_Item] = field(default_factory=list)

    @property
    def is_heading(self) -> bool:
        """A heading over nested items (``Content:``, ``**General criteria**``) rather than a criterion."""
        return bool(self.children) and (self.text.endswith(":") or self.title_only or len(self.text.split()) <= 3)


@dataclass(frozen=True)
class CriteriaList:
    """The criteria read from one answer; ``criteria`` is empty when the answer holds no list."""

    criteria: tuple[str, ...]
    echoed: int = 0
    """Items dropped because they repeat text from the prompt (for instance a list in the example output)."""

    @property
    def parsed(self) -> bool:
        """Whether the answer held a list of criteria at all."""
        return bool(self.criteria)


def _titled(title: str, rest: str) -> tuple[str, bool]:
    """``Title: rest`` from a bold title and what follows it; a bare title is flagged as such."""
    title, rest = title.strip().rstrip(":").strip(), rest.strip().lstrip(":-–").strip()
    return (f"{title}: {rest}", False) if rest else (title, True)


def _line_item(line: str) -> _Item | None:
    """The list item a line starts (numbered, bulleted, bold-titled or a heading), else None."""
    if marked := _MARKER.match(line):
        indent = len(marked.group("indent").expandtabs(4))
        text = marked.group("text").strip()
        if bold := _TITLE.match(text):
            text, title_only = _titled(bold.group("title"), bold.group("rest"))
            return _Item(indent, text, title_only=title_only)
        return _Item(indent, text)
    if bold := _TITLE.match(line):
        rest = bold.group("rest").strip()
        if rest and not (rest.startswith((":", "-", "–")) or bold.group("title").strip().endswith(":")):
            return None  # bold words inside a sentence
        text, title_only = _titled(bold.group("title"), rest)
        return _Item(len(bold.group("indent").expandtabs(4)), text, title_only=title_only, unmarked=True)
    if heading := _HEADING.match(line):
        text, _ = _titled(heading.group("title"), "")
        return _Item(len(heading.group("indent").expandtabs(4)), text, title_only=True, unmarked=True)
    return None


def _items(answer: str) -> list[_Item]:
    """Top-level list items with their nested items and continuation lines."""
    top: list[_Item] = []
    current: _Item | None = None
    previous_blank = False
    for raw in answer.splitlines():
        line = raw.rstrip()
        if not line.strip():
            previous_blank = True
            continue
        item = _line_item(line)
        if item is not None:
            nested = current is not None and (
                item.indent > current.indent or (current.unmarked and not item.unmarked and current.title_only)
            )
            if nested and current is not None:
                current.children.append(item)
            else:
                current = item
                top.append(current)
        elif current is not None:
            indented = len(line) - len(line.lstrip()) > current.indent
            section_header = not indented and line.strip().endswith(":")
            describes = current.title_only and not current.children and not section_header
            if not section_header and (indented or not previous_blank or describes):
                target = current.children[-1] if current.children and indented else current
                joiner = ": " if target.title_only else " "
                target.text = f"{target.text}{joiner}{line.strip()}"
                target.title_only = False
            else:
                current = None
        previous_blank = False
    return top


def _clean(text: str) -> str:
    return _SPACES.sub(" ", _EMPHASIS.sub("", text)).strip(" -–")


def _words(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def parse_criteria_list(answer: str, prompt: str | None = None) -> CriteriaList:
    """The criteria of a numbered, bulleted or titled list in ``answer`` (preamble and closing remarks ignored).

    A top-level item that is only a heading over nested items (``1. Content:`` with ``- Accuracy: ...``
    under it) contributes the nested items; otherwise nested items elaborate their parent and are
    joined to it. Items repeating prompt text verbatim are dropped and counted. An answer without
    any list gives an empty result, which the caller counts as unparsable.
    """
    criteria: list[str] = []
    echoed = 0
    prompt_words = f" {_words(prompt)} " if prompt else ""
    for item in _items(answer):
        if item.is_heading:
            texts = [child.text for child in item.children]
        elif item.unmarked and item.title_only:
            continue  # a heading with nothing under it
        else:
            texts = ["; ".join([item.text, *(child.text for child in item.children)])]
        for text in texts:
            cleaned = _clean(text)
            words = _words(cleaned)
            if not words:
                continue
            if prompt_words and len(words.split()) >= ECHO_MIN_WORDS and f" {words} " in prompt_words:
                echoed += 1
                continue
            criteria.append(cleaned)
    return CriteriaList(tuple(criteria), echoed)
