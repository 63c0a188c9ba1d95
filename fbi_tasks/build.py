"""``fbi-build``: FBI-style perturbations of your own (question, answer) pairs, so a grader is tested in your domain.

A perturber model (any inspect model, through inspect's response cache, so a rebuild costs no calls) rewrites each
answer once per chosen category: one targeted error of that kind (FBI's 22 categories), or a harmless rewording
(``score_invariant``). A reply identical to the original answer (whitespace aside), empty, or repeating a line of
the prompt's own wording (a label, the change asked for) is refused and asked for again (up to ``--max-attempts``
times, the later attempts sampled); an answer whose replies are all refused is left out of that category and counted.
The asking, retries, cache, checksum and counts are the shared builder's (``solvers/perturber.py``,
``judge_data/suite_files.py``); this module gives the prompts and the item shape. The suite file is JSONL:

- line 1, the header: ``format``, ``provenance`` (perturber model and arguments, prompt version, seed, the input
  file's SHA-256), ``prompts`` (each category's instruction), ``report`` (calls, refused replies per category and
  reason, answers given up) and ``checksum`` (SHA-256 of the item lines);
- one line per answer and category: ``id``, ``category``, ``question``, ``gold`` (the original answer), ``perturbed``,
  ``reference`` (when the input has one).

Keys are sorted and nothing time-dependent is written, so the same inputs give the same bytes. ``fbi_tasks/grader``
reads it with ``-T suite=<file>``.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from fbi_tasks.data import CATEGORIES, SCORE_INVARIANT, FbiItem, FbiSelection
from judge_data import (
    DataError,
    OptionError,
    builder_model_args,
    id_field,
    names_option,
    optional_text_field,
    read_jsonl,
    text_field,
)
from judge_data.suite_files import read_suite_rows, suite_lines
from solvers.perturber import PerturberReport, PerturberSettings, Request, perturb_all

logger = logging.getLogger(__name__)

SUITE_FORMAT = "fbi-suite/1"
PROMPT_VERSION = 1
"""Bumped whenever :data:`INSTRUCTIONS` or :func:`perturber_prompt` change."""

INSTRUCTIONS: dict[str, str] = {
    "grammar": "Introduce a few grammatical mistakes (wrong verb agreement, tense or word order); keep the content.",
    "spelling": "Misspell a few words, as a careless typist would; change nothing else.",
    "consistency": "Make one statement contradict another part of the answer; leave the rest as it is.",
    "chronology": "Put the events or steps the answer describes out of their correct order.",
    "coherence": "Break the logical flow: shuffle or join sentences so that the ideas no longer connect.",
    "comprehensiveness": "Leave out one important point the answer needs, so it is less complete.",
    "contextual": "Add a detail that does not fit the question's context, stated as if it were relevant.",
    "entity": "Replace one named entity (a person, place, organisation or date) with a wrong one.",
    "incorrect_fact": "Change one fact so that it becomes false, keeping the wording plausible.",
    "number_errors": "Change one number so that it becomes wrong.",
    "opposite_fact": "Turn one statement into its opposite.",
    "remove_fact": "Delete one fact the question asks about, leaving the rest unchanged.",
    "do_less": "Do only part of what the question asks: leave out one of the things it requests.",
    "do_more": "Add content the question did not ask for, such as an extra section or example.",
    "ignore_format": "Ignore the format the question asks for (a list, a length, a style) while keeping the content.",
    "sequence_errors": "Do the question's requested steps or parts in the wrong order.",
    "assumptions": "Answer as if the question had said something it did not: add an unstated assumption.",
    "calculations": "Make one arithmetic mistake in a calculation and carry its result on.",
    "copying_numbers": "Copy one number from the question wrongly into the working and use it.",
    "final_errors": "Keep the working but state a wrong final answer.",
    "incorrect_units": "Give one quantity with a wrong or missing unit.",
    "wrong_formula": "Use a wrong formula or method for one step, and carry its result on.",
    SCORE_INVARIANT: "Reword the answer without changing its content, correctness, completeness or format.",
}
"""What the perturber is asked to do per category (written for this project, following the categories of FBI's
Table 2); the score-invariant edit must not deserve a lower score."""

CATEGORY_ABILITY = {category.id: category.ability for category in CATEGORIES}


INTRODUCTION = "You rewrite answers to make test cases for evaluators of AI answers."
CHANGE_LABEL = "Change to make:"
QUESTION_LABEL = "Question:"
REFERENCE_LABEL = "A correct reference answer, for the facts:"
ANSWER_LABEL = "Answer to rewrite:"
CLOSING = "Reply with the rewritten answer only, with no comment and no label."


def perturber_prompt(category: str, question: str, answer: str, reference: str | None) -> str:
    """The perturber's request for one answer and category: the change, the question, the answer, what to reply."""
    parts = [INTRODUCTION, f"{CHANGE_LABEL} {INSTRUCTIONS[category]}", f"{QUESTION_LABEL}\n{question}"]
    if reference:
        parts.append(f"{REFERENCE_LABEL}\n{reference}")
    parts.append(f"{ANSWER_LABEL}\n{answer}")
    parts.append(CLOSING)
    return "\n\n".join(parts)


def echoes_instructions(reply: str, category: str) -> bool:
    """Whether a reply repeats a line of the prompt's own wording (its introduction, a label, the change asked for,
    the closing request) rather than being the rewritten answer alone."""
    own = [INTRODUCTION, CHANGE_LABEL, QUESTION_LABEL, REFERENCE_LABEL, ANSWER_LABEL, CLOSING, INSTRUCTIONS[category]]
    lines = [line.strip().lower() for line in reply.splitlines() if line.strip()]
    return any(line.startswith(text.lower()) or text.lower() in line for line in lines for text in own)


@dataclass(frozen=True)
class OwnItem:
    """One of the user's (question, answer) pairs."""

    id: str
    question: str
    answer: str
    reference: str | None


def read_own_items(path: str | Path) -> list[OwnItem]:
    """The input JSONL, one ``{"id", "question", "answer", "reference"?}`` per line, checked as it is read."""
    source = Path(path).expanduser()
    if not source.is_file():
        raise DataError(f"{source} does not exist")
    items: list[OwnItem] = []
    for row_number, row in read_jsonl(source):
        item_id = id_field(row, "id", source, row_number)
        if any(item.id == item_id for item in items):
            raise DataError(f"{source}, row {row_number}: duplicate id {item_id!r}")
        items.append(
            OwnItem(
                item_id,
                text_field(row, "question", source, row_number),
                text_field(row, "answer", source, row_number),
                optional_text_field(row, "reference", source, row_number),
            )
        )
    if not items:
        raise DataError(f"{source} has no rows")
    return items


def chosen_categories(value: str | Sequence[str] | None) -> list[str]:
    """The categories to apply (all of :data:`INSTRUCTIONS` by default); an unknown id is an error."""
    names = names_option(value) or list(INSTRUCTIONS)
    unknown = sorted(set(names) - set(INSTRUCTIONS))
    if unknown:
        raise OptionError(f"unknown categories {unknown}; choose from {list(INSTRUCTIONS)}")
    return names


REFUSAL_WORDS = {"unchanged": "identical"}
"""The report's word for a reply that is the original answer again (refused by the shared builder)."""


def refusal(category: str, reply: str) -> str | None:
    """Why a perturber's reply is no perturbed answer beyond the shared reasons (empty, the answer itself): it
    repeats the prompt's own wording."""
    return "repeats the instructions" if echoes_instructions(reply, category) else None


def perturber_request(item: OwnItem, category: str) -> Request:
    """What the builder asks the perturber for one answer and category."""
    prompt = perturber_prompt(category, item.question, item.answer, item.reference)
    return Request(category, item.id, prompt, item.answer, partial(refusal, category))


def report_fields(report: PerturberReport) -> dict[str, Any]:
    """The builder's counts in the layout of an FBI suite's report: ``category: reason`` counts, and
    ``category/id`` of each answer given up."""
    refused = {
        f"{category}: {reason}": count
        for category, reasons in report.refused_by_change().items()
        for reason, count in reasons.items()
    }
    given_up = [f"{category}/{item}" for category, item in report.given_up]
    return {"calls": report.calls, "refused": dict(sorted(refused.items())), "given_up": given_up}


@dataclass(frozen=True)
class Built:
    """A suite file's lines, and how many of the perturber calls inspect's cache answered (not in the file, whose
    bytes do not depend on the cache)."""

    lines: list[str]
    cached_calls: int


async def build_suite(
    items_path: str,
    perturber: str,
    perturber_args: dict[str, Any] | None = None,
    categories: str | Sequence[str] | None = None,
    seed: int = 0,
    max_attempts: int = 3,
    max_tokens: int | None = None,
) -> Built:
    """The suite file's lines: the header, then one line per answer and category."""
    chosen = chosen_categories(categories)
    items = read_own_items(items_path)
    settings = PerturberSettings(perturber, perturber_args or {}, seed, max_attempts, max_tokens)
    report = PerturberReport()
    jobs = [(item, category) for item in items for category in chosen]
    requests = [perturber_request(item, category) for item, category in jobs]
    texts = await perturb_all(requests, settings, report, words=REFUSAL_WORDS)
    rows = []
    for item, category in jobs:
        if (text := texts.get((category, item.id))) is None:
            continue
        row = {"id": item.id, "category": category, "question": item.question, "gold": item.answer, "perturbed": text}
        rows.append(json.dumps({**row, **({"reference": item.reference} if item.reference else {})}, sort_keys=True))
    header = {
        "format": SUITE_FORMAT,
        "provenance": {
            **settings.provenance(PROMPT_VERSION),
            "input_sha256": hashlib.sha256(Path(items_path).expanduser().read_bytes()).hexdigest(),
            "n_items": len(items),
        },
        "prompts": {category: INSTRUCTIONS[category] for category in chosen},
        "report": report_fields(report),
    }
    return Built(suite_lines(header, rows), report.cached)


def read_suite(path: str | Path) -> tuple[dict[str, Any], list[FbiItem]]:
    """A suite file's header and items, its checksum verified; every problem names the file, row and field."""
    source, header, rows = read_suite_rows(path, SUITE_FORMAT, "an FBI")
    items = []
    for row_number, row in rows:
        category = text_field(row, "category", source, row_number)
        if category not in INSTRUCTIONS:
            raise DataError(f"{source}, row {row_number}: unknown category {category!r}")
        ability = CATEGORY_ABILITY[category]
        items.append(
            FbiItem(
                id=id_field(row, "id", source, row_number),
                ability=ability,
                category=category,
                question=text_field(row, "question", source, row_number),
                gold=text_field(row, "gold", source, row_number),
                perturbed=text_field(row, "perturbed", source, row_number),
                axis_ability="long_form" if ability == SCORE_INVARIANT else ability,
            )
        )
    return header, items


def suite_selection(path: str, categories: str | Sequence[str] | None) -> tuple[FbiSelection, dict[str, Any]]:
    """A suite file's items (of ``categories``, all by default) as a task's selection, and the task metadata saying
    where they came from (the checksum is what makes two runs comparable)."""
    header, items = read_suite(path)
    chosen = names_option(categories)
    kept = [item for item in items if chosen is None or item.category in chosen]
    return FbiSelection(kept, []), {"source": f"suite {path}", "suite": header["checksum"], "suite_header": header}


def main(argv: list[str] | None = None) -> None:
    """``fbi-build``: perturb your own answers once, so every grader is tested on the same items."""
    parser = argparse.ArgumentParser(
        prog="fbi-build", description="Build an FBI suite file from your own (question, answer) pairs."
    )
    parser.add_argument("items", help='JSONL file, one {"id", "question", "answer", "reference"?} per line')
    parser.add_argument("--output", "-o", required=True, help="suite file to write (JSONL)")
    parser.add_argument("--perturber", required=True, help="inspect model that writes the perturbations")
    parser.add_argument("-M", dest="model_args", action="append", default=[], help="perturber model argument")
    parser.add_argument("--categories", help="comma-separated category ids (default: all 22 and score_invariant)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-attempts", type=int, default=3, help="replies asked for before giving up (default 3)")
    parser.add_argument("--max-tokens", type=int, help="perturber max tokens per reply")
    args = parser.parse_args(argv)
    try:
        built = asyncio.run(
            build_suite(
                args.items,
                args.perturber,
                builder_model_args(args.model_args),
                args.categories,
                args.seed,
                args.max_attempts,
                args.max_tokens,
            )
        )
    except (DataError, OptionError) as error:
        raise SystemExit(f"fbi-build: {error}") from None
    Path(args.output).write_text("\n".join(built.lines) + "\n", encoding="utf-8")
    report = json.loads(built.lines[0])["report"]
    asked = report["calls"] - built.cached_calls
    print(f"wrote {args.output}: {len(built.lines) - 1} perturbed answers")
    print(
        f"perturber calls: {report['calls']} ({built.cached_calls} answered by inspect's cache, {asked} sent to "
        f"the perturber); refused: {report['refused']}; given up: {report['given_up']}"
    )


if __name__ == "__main__":
    main()
