"""The FBI data: gold / perturbed answer pairs per category, from a local folder or the authors' release.

Layout (the release's ``data.zip``, also ``../shared/data/fbi/``): one folder per ability, one TSV per
category with the columns ``cdx`` (id), ``question``, ``og`` (gold answer), ``perturbed_gpt4``.
"""

from __future__ import annotations

import csv
import logging
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from judge_data import DataError, OptionError, download_and_extract, download_error, field

logger = logging.getLogger(__name__)

FBI_RELEASE_URL = "https://github.com/AI4Bharat/FBI/raw/b8ce46a04e4886055e85cf7a441b04232f75b3e1/assets/data.zip"
FBI_RELEASE_SHA256 = "b2c6097fe74c8554da84cff23549e7a4991b5dac17e19924600bcfeb00188af3"
"""SHA-256 of ``data.zip`` at that commit: the git blob ``fec11a5c`` of the commit's tree, hashed locally."""
FBI_HUB_REPO = "ai4bharat/FBI"
"""The same TSVs in the same folders on the Hugging Face hub (loaded only at an explicit commit)."""
COMMIT_HASH = re.compile(r"[0-9a-f]{40}")
COLUMNS = ("cdx", "question", "og", "perturbed_gpt4")

ABILITIES = ("long_form", "factual", "instruction_following", "reasoning")
SCORE_INVARIANT = "score_invariant"

ABILITY_FOLDERS = {
    "long-form": "long_form",
    "factual": "factual",
    "instruction-following": "instruction_following",
    "reasoning": "reasoning",
    "score-invariant": SCORE_INVARIANT,
}
ID_PREFIX_ABILITY = {"lf": "long_form", "factual": "factual", "if": "instruction_following", "reasoning": "reasoning"}
"""Score-invariant rows carry their source ability in the id prefix (``lf-60_...``, ``reasoning-31``)."""


@dataclass(frozen=True)
class Category:
    """One of FBI's categories: its ability, its file in the release, its title and whether the paper uses it."""

    id: str
    ability: str
    file: str
    title: str
    in_paper: bool = True


CATEGORIES: tuple[Category, ...] = (
    Category("grammar", "long_form", "grammar-errors.tsv", "Grammar"),
    Category("spelling", "long_form", "spelling-errors.tsv", "Spelling"),
    Category("consistency", "long_form", "consistency-errors.tsv", "Consistency"),
    Category("chronology", "long_form", "seq-errors.tsv", "Chronology"),
    Category("coherence", "long_form", "coherence-errors.tsv", "Coherence"),
    Category("comprehensiveness", "long_form", "comprehensiveness-errors.tsv", "Comprehensiveness"),
    Category("formatting", "long_form", "formatting-errors.tsv", "Formatting", in_paper=False),
    Category("superficial", "long_form", "superficial-errors.tsv", "Superficial", in_paper=False),
    Category("contextual", "factual", "contextual-errors.tsv", "Contextual"),
    Category("entity", "factual", "entity-errors.tsv", "Entity"),
    Category("incorrect_fact", "factual", "incorrect-fact.tsv", "Incorrect Fact"),
    Category("number_errors", "factual", "number-errors.tsv", "Number Errors"),
    Category("opposite_fact", "factual", "opposite-fact.tsv", "Opposite Fact"),
    Category("remove_fact", "factual", "remove-fact.tsv", "Remove Fact"),
    Category("do_less", "instruction_following", "do-less-errors.tsv", "Do Less"),
    Category("do_more", "instruction_following", "do-more-errors.tsv", "Do More"),
    Category("ignore_format", "instruction_following", "ignore-format-errors.tsv", "Ignore Format"),
    Category("sequence_errors", "instruction_following", "incorrect-sequence-errors.tsv", "Sequence Errors"),
    Category("assumptions", "instruction_following", "assumption-errors.tsv", "Assumptions"),
    Category("calculations", "reasoning", "calculation-errors.tsv", "Calculations"),
    Category("copying_numbers", "reasoning", "copying-numbers-errors.tsv", "Copying Numbers"),
    Category("final_errors", "reasoning", "final-answer-errors.tsv", "Final Errors"),
    Category("incorrect_units", "reasoning", "incorrect-units.tsv", "Incorrect Units"),
    Category("wrong_formula", "reasoning", "wrong-formula.tsv", "Wrong Formula"),
    Category("score_invariant", SCORE_INVARIANT, "score_invariant.tsv", "Score Invariant"),
)
"""The paper's 22 categories (Table 2), the two long-form files outside its 2400, and the score-invariant set."""

ABILITY_FOLDER_OF = {ability: folder for folder, ability in ABILITY_FOLDERS.items()}


@dataclass(frozen=True)
class FbiItem:
    """One FBI item: a question, its gold answer and the copy that carries the category's error."""

    id: str
    ability: str
    category: str
    question: str
    gold: str
    perturbed: str
    axis_ability: str
    """The ability whose evaluation axis fits the question (the source ability for score-invariant rows)."""

    @property
    def invariant(self) -> bool:
        """Whether the edit should not change the score (penalising it is the failure)."""
        return self.ability == SCORE_INVARIANT


def _axis_ability(item_id: str, ability: str, path: Path, row: int) -> str:
    if ability != SCORE_INVARIANT:
        return ability
    prefix = item_id.split("_")[0].rsplit("-", 1)[0]
    if prefix not in ID_PREFIX_ABILITY:
        raise DataError(
            f"{path}, row {row}: field 'cdx' {item_id!r} does not start with one of {sorted(ID_PREFIX_ABILITY)}"
        )
    return ID_PREFIX_ABILITY[prefix]


def read_category(root: Path, category: Category) -> list[FbiItem]:
    """One category's rows; a missing file, column or value, a row with extra fields (a stray tab shifts every
    later field) or a repeated id is a :class:`DataError` naming the file, row and field."""
    path = root / ABILITY_FOLDER_OF[category.ability] / category.file
    if not path.is_file():
        raise DataError(f"{path}: missing FBI category file")
    csv.field_size_limit(1 << 30)
    items = []
    first_row_of: dict[str, int] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        missing = set(COLUMNS) - set(reader.fieldnames or ())
        if missing:
            raise DataError(f"{path}: missing column(s) {sorted(missing)}")
        for row_number, row in enumerate(reader, start=2):
            if row.get(None):
                raise DataError(
                    f"{path}, row {row_number}: {len(row[None])} field(s) beyond the header's "
                    f"{len(reader.fieldnames or ())} columns (a tab inside a field?)"
                )
            item_id = field(row, "cdx", path, row_number).strip()
            if item_id in first_row_of:
                raise DataError(
                    f"{path}, row {row_number}: field 'cdx' {item_id!r} repeats the id of row {first_row_of[item_id]}"
                )
            first_row_of[item_id] = row_number
            items.append(
                FbiItem(
                    id=item_id,
                    ability=category.ability,
                    category=category.id,
                    question=field(row, "question", path, row_number).strip(),
                    gold=field(row, "og", path, row_number).strip(),
                    perturbed=field(row, "perturbed_gpt4", path, row_number).strip(),
                    axis_ability=_axis_ability(item_id, category.ability, path, row_number),
                )
            )
    return items


def release_root() -> Path:
    """The authors' data release, downloaded once, checked against its pinned SHA-256 and unpacked; the folder
    that holds the ability folders."""
    extracted = download_and_extract(FBI_RELEASE_URL, FBI_RELEASE_SHA256)
    for candidate in [extracted, *sorted(p for p in extracted.rglob("*") if p.is_dir() and "__MACOSX" not in p.parts)]:
        if (candidate / "factual").is_dir() and (candidate / "reasoning").is_dir():
            return candidate
    raise DataError(f"{FBI_RELEASE_URL}: no ability folders found in the unpacked archive {extracted}")


def hub_root(revision: str) -> Path:
    """The TSV folders of the hub dataset at commit ``revision``, downloaded once by ``huggingface_hub``.

    Only a full commit hash is accepted: a branch or tag can move, and no hub commit has been checked against
    the release archive, so the hub is never a silent default.
    """
    if not COMMIT_HASH.fullmatch(revision):
        raise OptionError(
            f"hub_revision {revision!r} is not a full 40-character commit hash of {FBI_HUB_REPO}; "
            "a branch or tag name can move, so pin a commit"
        )
    from huggingface_hub import snapshot_download

    try:
        return Path(
            snapshot_download(repo_id=FBI_HUB_REPO, repo_type="dataset", revision=revision, allow_patterns=["*/*.tsv"])
        )
    except Exception as error:
        raise download_error(f"{FBI_HUB_REPO}@{revision} from the Hugging Face hub", error) from error


def select_categories(
    abilities: Sequence[str] | None, categories: Sequence[str] | None, include_extra: bool
) -> list[Category]:
    """Categories chosen by ability and/or id; the two files outside the paper's 2400 only on request."""
    known_abilities = (*ABILITIES, SCORE_INVARIANT)
    for ability in abilities or ():
        if ability not in known_abilities:
            raise OptionError(f"unknown ability {ability!r}; choose from {list(known_abilities)}")
    by_id = {category.id: category for category in CATEGORIES}
    for category_id in categories or ():
        if category_id not in by_id:
            raise OptionError(f"unknown category {category_id!r}; choose from {sorted(by_id)}")
    chosen = [
        category
        for category in CATEGORIES
        if (abilities is None or category.ability in abilities)
        and (categories is None or category.id in categories)
        and (category.in_paper or include_extra or (categories is not None and category.id in categories))
    ]
    if not chosen:
        raise OptionError(f"no FBI category matches abilities={abilities} categories={categories}")
    return chosen


@dataclass(frozen=True)
class FbiSelection:
    """The items a task judges and those left out before the draw (identical to their gold answer)."""

    items: list[FbiItem]
    unchanged: list[FbiItem]
    """Items of perturbed categories left out because their perturbed answer is identical to the gold one."""


def is_unchanged(item: FbiItem) -> bool:
    """A perturbed-category item whose "perturbed" answer equals the gold one: no judge can penalise it.

    Score-invariant items are never unchanged in this sense: an identical answer is the plainest edit that
    deserves no penalty.
    """
    return not item.invariant and item.perturbed == item.gold


def load_items(
    data_dir: str | Path | None,
    abilities: Sequence[str] | None = None,
    categories: Sequence[str] | None = None,
    per_category: int | None = None,
    seed: int = 0,
    include_extra: bool = False,
    hub_revision: str | None = None,
    keep_identical: bool = False,
) -> FbiSelection:
    """The chosen categories' items, at most ``per_category`` of each (a seeded draw, kept in file order).

    From ``data_dir`` when given, else from the hub at commit ``hub_revision`` when given, else from the
    authors' release archive (pinned to a commit and a SHA-256). Unless ``keep_identical``, perturbed-category
    items whose answers are identical are left out before the draw and named in a warning.
    """
    if data_dir is not None:
        root = Path(data_dir).expanduser()
    else:
        root = hub_root(hub_revision) if hub_revision else release_root()
    if not root.is_dir():
        raise DataError(f"data_dir {root} is not a folder")
    items: list[FbiItem] = []
    unchanged: list[FbiItem] = []
    for category in select_categories(abilities, categories, include_extra):
        rows = read_category(root, category)
        if not keep_identical:
            unchanged.extend(row for row in rows if is_unchanged(row))
            rows = [row for row in rows if not is_unchanged(row)]
        if per_category is not None and per_category < len(rows):
            keep = sorted(random.Random(f"{seed}:{category.id}").sample(range(len(rows)), per_category))
            rows = [rows[index] for index in keep]
        items.extend(rows)
    if unchanged:
        logger.warning(
            "left out %d FBI item(s) whose perturbed answer is identical to the gold one (keep them with "
            "-T keep_identical=true): %s",
            len(unchanged),
            ", ".join(f"{item.category}/{item.id}" for item in unchanged),
        )
    return FbiSelection(items, unchanged)
