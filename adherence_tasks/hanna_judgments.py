"""The HANNA authors' recorded LLM ratings as judgments the suite reads (``-T judgments=<file>``).

Chhun, Suchanek & Clavel (TACL 2024) published the ratings of five LLM judges under four prompts ("Eval-Prompts"
1-4) on every HANNA story in ``hanna_metric_scores_llm.csv`` (``dig-team/hanna-benchmark-asg``): one row per
story-generating system (``Model``), and in every other cell a JSON list of that system's 96 stories' values in
Story-ID order, so that row r, position i is Story ID ``96 r + i``. A judge's column is ``<judge> <XX> <p>`` (XX: the
criterion's code, p: the Eval-Prompt). This command writes one judgment per story, criterion, judge and prompt, the
story found as the item whose ``meta.story_id`` it is, the value as published: the authors' failure codes (values
below 1) are kept, so that the task counts them as parse failures. Stories without an item are counted and named
(``--data-dir``: the items the task reads, ``-T data_dir=``)::

    python -m adherence_tasks.hanna_judgments hanna_metric_scores_llm.csv --out hanna_llm.jsonl
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from adherence_tasks.data import DATASETS, HANNA_PROMPTS, public_folder
from judge_data import DataError
from judge_data.human import HumanItem, item_system, load_criteria, load_items

CRITERION_CODES = {
    "RE": "relevance",
    "CH": "coherence",
    "EM": "empathy",
    "SU": "surprise",
    "EG": "engagement",
    "CX": "complexity",
}
"""The file's two-letter criterion codes and the suite's criterion names."""

JUDGE_COLUMN = re.compile(rf"^(?P<judge>.+) (?P<code>{'|'.join(CRITERION_CODES)}) (?P<prompt>\d+)$")
"""A judge's column, ``Beluga-13B RE 1``; the workers' columns (``Human 1 RE``, ``Human Avg 1 RE``) do not match."""

SYSTEM_COLUMN = "Model"


@dataclass(frozen=True)
class Conversion:
    """The judgments of a converted file, and what the conversion left out or kept as published."""

    rows: list[dict[str, object]]
    judges: list[str]
    prompts: list[str]
    stories: int
    """Stories in the file."""
    unmatched: list[int]
    """Story IDs of the file with no item in the data folder: left out."""
    off_scale: int
    """Values off the criteria's 1-5 scale (the authors' failure codes), kept as published."""

    def summary(self, out: Path) -> str:
        """What was written and what was left out, for the command's output."""
        shown = ", ".join(str(story) for story in self.unmatched[:10]) + (" ..." if len(self.unmatched) > 10 else "")
        missing = f" (Story IDs {shown})" if self.unmatched else ""
        return (
            f"wrote {len(self.rows):,} judgments to {out}: {len(self.judges)} judges ({', '.join(self.judges)}) x "
            f"{len(self.prompts)} prompts x {len(CRITERION_CODES)} criteria x {self.stories - len(self.unmatched):,} "
            f"stories; {len(self.unmatched)} of the file's {self.stories:,} stories have no item and are left out"
            f"{missing}; {self.off_scale:,} values off the 1-5 scale (the authors' failure codes) are kept as "
            "published, and the task counts them as parse failures"
        )


@dataclass(frozen=True)
class JudgeColumn:
    """One judge column of the file: the judge, its prompt label (the Eval-Prompt's number, ``-T prompt=``) and the
    criterion it rates."""

    judge: str
    prompt: str
    criterion: str


def read_published(path: Path) -> tuple[list[str], dict[JudgeColumn, list[list[float]]]]:
    """The file's systems in row order, and each judge column's values, row by row (one list per system), the
    columns ordered by judge, prompt and the paper's order of the criteria."""
    csv.field_size_limit(1 << 30)  # a cell holds a JSON list of 96 numbers
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            header = list(reader.fieldnames or [])
            records = list(reader)
    except OSError as error:
        raise DataError(f"{path}: cannot read the file ({error.strerror or error})") from error
    named = {name: found for name in header if (found := JUDGE_COLUMN.match(name))}
    if SYSTEM_COLUMN not in header or not named:
        raise DataError(
            f"{path}: expected the layout of hanna_metric_scores_llm.csv, a column {SYSTEM_COLUMN!r} and judge columns "
            f"named '<judge> <{'|'.join(CRITERION_CODES)}> <prompt>' (e.g. 'Beluga-13B RE 1'); found columns "
            f"{header[:8]}"
        )
    order = sorted(
        named,
        key=lambda name: (
            named[name]["judge"],
            int(named[name]["prompt"]),
            list(CRITERION_CODES).index(named[name]["code"]),
        ),
    )
    systems = [record[SYSTEM_COLUMN] for record in records]
    values: dict[JudgeColumn, list[list[float]]] = {}
    for name in order:
        found = named[name]
        column = JudgeColumn(found["judge"], found["prompt"], CRITERION_CODES[found["code"]])
        values[column] = [
            _cell(record.get(name), f"{path}, line {number} ({record[SYSTEM_COLUMN]})", name)
            for number, record in enumerate(records, start=2)
        ]
    return systems, values


def _cell(text: str | None, where: str, column: str) -> list[float]:
    try:
        cell = json.loads(text or "")
    except json.JSONDecodeError:
        raise DataError(f"{where}, column {column!r}: not a JSON list of numbers: {str(text)[:60]!r}") from None
    if (
        not isinstance(cell, list)
        or len(cell) != HANNA_PROMPTS
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in cell)
    ):
        raise DataError(
            f"{where}, column {column!r}: expected a list of {HANNA_PROMPTS} numbers (one per story of the system, in "
            f"Story-ID order), got {str(text)[:60]!r}"
        )
    return [float(value) for value in cell]


def convert(path: Path, items: Sequence[HumanItem], source: str) -> Conversion:
    """One judgment per story with an item, criterion, judge and prompt of the published file ``path``; ``items``
    are the HANNA items read from ``source`` (named in errors)."""
    systems, values = read_published(path)
    by_story: dict[int, HumanItem] = {}
    for item in items:
        story = item.meta.get("story_id")
        if isinstance(story, int) and not isinstance(story, bool):
            by_story[story] = item
    if not by_story:
        raise DataError(f"{source}: no item carries meta.story_id, which names its HANNA Story ID")
    rows: list[dict[str, object]] = []
    unmatched: list[int] = []
    off_scale = 0
    for row, system in enumerate(systems):
        for position in range(HANNA_PROMPTS):
            story = HANNA_PROMPTS * row + position
            found = by_story.get(story)
            if found is None:
                unmatched.append(story)
                continue
            if item_system(found) != system:
                raise DataError(
                    f"{source}: item {found.id} (Story ID {story}) was written by {item_system(found)!r}, but {path} "
                    f"puts Story ID {story} in the row of {system!r}; the file and the items are not the same HANNA"
                )
            for column, cells in values.items():
                value = cells[row][position]
                off_scale += not 1 <= value <= 5
                rows.append(
                    {
                        "id": found.id,
                        "criterion": column.criterion,
                        "judge": column.judge,
                        "prompt": column.prompt,
                        "score": value,
                    }
                )
    return Conversion(
        rows,
        list(dict.fromkeys(column.judge for column in values)),
        list(dict.fromkeys(column.prompt for column in values)),
        len(systems) * HANNA_PROMPTS,
        unmatched,
        off_scale,
    )


def write_judgments(rows: Sequence[Mapping[str, object]], out: Path) -> None:
    """The judgments as JSONL, one object a line."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)


def parser() -> argparse.ArgumentParser:
    """The command line of ``python -m adherence_tasks.hanna_judgments``."""
    parse = argparse.ArgumentParser(
        prog="python -m adherence_tasks.hanna_judgments",
        description="The HANNA authors' recorded LLM ratings (hanna_metric_scores_llm.csv) as judgments for "
        "adherence_tasks/hanna (-T judgments=<out>).",
    )
    parse.add_argument("published", help="hanna_metric_scores_llm.csv as published by dig-team/hanna-benchmark-asg")
    parse.add_argument(
        "--data-dir",
        help="the HANNA items the task reads (-T data_dir=), in the layout of shared/data/human/hanna/ "
        "(default: the task's public source)",
    )
    parse.add_argument("--out", default="hanna_llm.jsonl", help="the JSONL file to write")
    return parse


def run(argv: Sequence[str] | None = None) -> Conversion:
    """Convert the file the arguments name and write the judgments; the conversion."""
    args = parser().parse_args(argv)
    folder = Path(args.data_dir).expanduser() if args.data_dir else public_folder(DATASETS["hanna"])
    criteria, _ = load_criteria(folder)
    conversion = convert(Path(args.published), load_items(folder, criteria), str(folder))
    out = Path(args.out)
    write_judgments(conversion.rows, out)
    print(conversion.summary(out))
    return conversion


def main(argv: Sequence[str] | None = None) -> None:
    """The command: a bad file ends with one message naming it, not a traceback."""
    try:
        run(argv)
    except DataError as error:
        print(f"hanna_judgments: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
