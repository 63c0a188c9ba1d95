"""DHP suites built once and shared: the selected items with every perturbed variant, in one JSONL file.

A discernment score compares judges only when they see the same texts. ``dhp-build`` selects the
items, applies the rule-based perturbations and asks a perturber model for the LLM-based ones
(through inspect, with its response cache, so a rebuild costs no calls), and writes:

- line 1, the header: ``format``, ``dataset``, ``kind``, ``provenance`` (perturber model and
  arguments, prompt version, seed, n, source), ``perturbations`` (id -> family, level, degree, method,
  k), ``report`` (perturber calls, rejected replies per perturbation and reason, variants left out) and
  ``checksum`` (SHA-256 of the item lines, checked when the file is read);
- one line per item: ``id``, ``text`` (the original), ``context``, ``variants`` (perturbation id ->
  perturbed text; a perturbation that could not be applied, or whose replies were all rejected, is
  absent).

Keys are sorted and nothing time-dependent is written, so the same inputs give the same bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dhp_tasks.data import DATASETS, load_pool, select_items
from dhp_tasks.definition import DHP
from dhp_tasks.llm_perturbations import LLM_PERTURBATIONS, PROMPT_VERSION, llm_variants
from dhp_tasks.perturbations import (
    PERTURBATIONS,
    Item,
    NotApplicable,
    Perturbation,
    select_perturbations,
)
from judge_data import (
    DataError,
    DownloadError,
    builder_model_args,
    id_field,
    optional_text_field,
    text_field,
)
from judge_data.inspect_private import PrerequisiteError
from judge_data.suite_files import read_suite_rows, suite_lines
from solvers.perturber import PerturberSettings

logger = logging.getLogger(__name__)

SUITE_FORMAT = "dhp-suite/1"


@dataclass
class Suite:
    """A suite file read back: its header (provenance, report), the items and each item's variants."""

    header: dict[str, Any]
    items: list[Item]
    variants: dict[str, dict[str, str]]
    """item id -> perturbation id -> perturbed text."""
    cached_calls: int = 0
    """Of a build's perturber calls, those inspect's cache answered (not in the file, whose bytes do not depend on
    the cache)."""

    def perturbations(self) -> list[Perturbation]:
        """The suite's perturbation rows (without functions: the texts are already made)."""
        return [
            Perturbation(pid, row["family"], row["level"], row["degree"], row["method"], row.get("k"))
            for pid, row in self.header["perturbations"].items()
        ]


def all_perturbations(dataset: str) -> list[Perturbation]:
    """Every row of Table 2 for a dataset: rule-based first, then LLM-based."""
    return [*PERTURBATIONS[dataset], *(row for row, _ in LLM_PERTURBATIONS[dataset])]


def rule_variants(
    items: Sequence[Item], pool: Sequence[Item], perturbations: Sequence[Perturbation], seed: int
) -> tuple[dict[str, dict[str, str]], Counter[str]]:
    """Rule-based variants per item, and how many items each perturbation could not change."""
    variants: dict[str, dict[str, str]] = {item.id: {} for item in items}
    skipped: Counter[str] = Counter()
    for item in items:
        for perturbation in perturbations:
            if perturbation.method != "rule":
                continue
            try:
                variants[item.id][perturbation.id] = perturbation.perturb(item, seed, pool)
            except NotApplicable as reason:
                skipped[perturbation.id] += 1
                logger.debug("%s", reason)
    return variants, skipped


async def build_suite(
    dataset_name: str,
    data_dir: str | None,
    n: int,
    seed: int,
    perturbations: str | Sequence[str] | None = None,
    perturber: str | None = None,
    perturber_args: dict[str, Any] | None = None,
    max_attempts: int = 3,
    max_tokens: int | None = None,
) -> Suite:
    """Select items, apply every chosen perturbation, and return the suite (LLM rows need ``perturber``)."""
    DHP.option("n").check(n)
    dataset = DATASETS[dataset_name]
    chosen = select_perturbations(all_perturbations(dataset_name), perturbations)
    llm_rows = [p for p in chosen if p.method == "llm"]
    if llm_rows and perturber is None:
        raise ValueError(
            f"LLM-based perturbations {[p.id for p in llm_rows]} need a perturber model (--perturber); "
            "pass --perturbations with rule-based ids only to build without one"
        )
    pool = load_pool(dataset, data_dir, n, seed)
    items = select_items(pool, n, seed, dataset_name)
    variants, skipped = rule_variants(items, pool, chosen, seed)
    settings = PerturberSettings(perturber, perturber_args or {}, seed, max_attempts, max_tokens)
    texts, report = await llm_variants(dataset_name, dataset.kind, items, llm_rows, settings)
    for (pid, item_id), text in texts.items():
        variants[item_id][pid] = text
    header = {
        "format": SUITE_FORMAT,
        "dataset": dataset_name,
        "kind": dataset.kind,
        "provenance": {
            **settings.provenance(PROMPT_VERSION),
            "n_requested": n,
            "n_items": len(items),
            "n_eligible": len(pool),
            "source": str(data_dir) if data_dir else "public source",
        },
        "perturbations": {
            p.id: {"family": p.family, "level": p.level, "degree": p.degree, "method": p.method, "k": p.k}
            for p in chosen
        },
        "report": {**report.as_dict(), "not_applicable": dict(sorted(skipped.items()))},
    }
    return Suite(header, items, variants, report.cached)


def write_suite(suite: Suite, path: str | Path) -> None:
    """Write a suite file (JSONL: the header with its checksum, then one row per item); the same inputs give the
    same bytes."""
    lines = []
    for item in suite.items:
        row = {"id": item.id, "text": item.text, "context": item.context, "variants": suite.variants[item.id]}
        if item.wrong_text is not None:
            row["wrong_text"] = item.wrong_text
        lines.append(json.dumps(row, sort_keys=True, ensure_ascii=False))
    Path(path).write_text("\n".join(suite_lines(suite.header, lines)) + "\n", encoding="utf-8")


HEADER_FIELDS = {"dataset": str, "kind": str, "provenance": dict, "perturbations": dict, "report": dict}
"""Header fields every suite has, with their JSON types."""

PERTURBATION_VALUES = {
    "level": ("character", "word", "sentence"),
    "degree": ("minor", "major", None),
    "method": ("rule", "llm"),
}
"""Allowed values in a header's perturbation entry; ``family`` is a non-empty string, ``k`` a positive int or null."""


def _check_perturbation_entry(entry: Any, where: str) -> None:
    if not isinstance(entry, dict):
        raise DataError(f"{where} must be an object with family, level, degree, method and k")
    for name in ("family", *PERTURBATION_VALUES):
        if name not in entry:
            raise DataError(f"{where}: field {name!r} is missing")
    if not isinstance(entry["family"], str) or not entry["family"]:
        raise DataError(f"{where}: field 'family' must be a non-empty string, got {entry['family']!r}")
    for name, allowed in PERTURBATION_VALUES.items():
        if entry[name] not in allowed:
            raise DataError(f"{where}: field {name!r} is {entry[name]!r}, expected one of {allowed}")
    k = entry.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise DataError(f"{where}: field 'k' must be a positive integer or null, got {k!r}")


def _check_header(header: dict[str, Any], source: Path) -> None:
    for name, kind in HEADER_FIELDS.items():
        if name not in header:
            raise DataError(f"{source}, row 1: header field {name!r} is missing")
        if not isinstance(header[name], kind):
            raise DataError(
                f"{source}, row 1: header field {name!r} must be a JSON {'object' if kind is dict else 'string'}"
            )
    for pid, entry in header["perturbations"].items():
        _check_perturbation_entry(entry, f"{source}, row 1: perturbations.{pid}")


def _variants_field(row: dict[str, Any], known: set[str], source: Path, row_number: int) -> dict[str, str]:
    variants = row.get("variants")
    if not isinstance(variants, dict):
        raise DataError(f"{source}, row {row_number}: field 'variants' must be an object (perturbation id -> text)")
    unknown = set(variants) - known
    if unknown:
        raise DataError(f"{source}, row {row_number}: variants {sorted(unknown)} are not in the header's perturbations")
    for pid, text in variants.items():
        if not isinstance(text, str) or not text.strip():
            raise DataError(f"{source}, row {row_number}: variants.{pid} must be a non-empty string")
    return dict(variants)


def read_suite(path: str | Path) -> Suite:
    """A suite file written by :func:`write_suite` (or converted to its format), checked as it is read.

    Every problem is a :class:`DataError` naming the file, row and field, raised before any judge call; a file
    with a checksum (written since DHP suites have one) is refused when its item lines were changed.
    """
    source, header, rows = read_suite_rows(path, SUITE_FORMAT, "a DHP", require_checksum=False)
    _check_header(header, source)
    known = set(header["perturbations"])
    items, variants = [], {}
    for row_number, row in rows:
        if "variants" not in row:
            raise DataError(f"{source}, row {row_number}: field 'variants' is missing")
        item_id = id_field(row, "id", source, row_number)
        if item_id in variants:
            raise DataError(f"{source}, row {row_number}: duplicate id {item_id!r}")
        items.append(
            Item(
                item_id,
                text_field(row, "text", source, row_number),
                optional_text_field(row, "context", source, row_number),
                optional_text_field(row, "wrong_text", source, row_number),
            )
        )
        variants[item_id] = _variants_field(row, known, source, row_number)
    return Suite(header, items, variants)


def main(argv: list[str] | None = None) -> None:
    """``dhp-build``: build a suite file once, so every judge is rated on the same texts."""
    parser = argparse.ArgumentParser(
        prog="dhp-build", description="Build a DHP suite file: items and every perturbed variant."
    )
    parser.add_argument("dataset", choices=sorted(DATASETS))
    parser.add_argument("--output", "-o", required=True, help="suite file to write (JSONL)")
    parser.add_argument(
        "--data-dir", help="local folder in the layout of shared/data/dhp/<dataset>/ (default: public source)"
    )
    parser.add_argument("--n", type=int, default=100, help="items to draw (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--perturbations", help="comma-separated perturbation ids (default: all of Table 2)")
    parser.add_argument("--perturber", help="inspect model that writes the LLM-based perturbations, e.g. openai/gpt-4o")
    parser.add_argument(
        "-M", dest="model_args", action="append", default=[], help="perturber model argument name=value"
    )
    parser.add_argument(
        "--max-attempts", type=int, default=3, help="perturber replies asked for before giving up (default 3)"
    )
    parser.add_argument("--max-tokens", type=int, help="perturber max tokens per reply")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    try:
        suite = asyncio.run(
            build_suite(
                args.dataset,
                args.data_dir,
                args.n,
                args.seed,
                args.perturbations,
                args.perturber,
                builder_model_args(args.model_args),
                args.max_attempts,
                args.max_tokens,
            )
        )
        write_suite(suite, args.output)
    except DownloadError as error:
        reason = str(error.message).split(" Without network")[0]
        sys.exit(f"dhp-build: {reason} Without network, pass --data-dir <folder> with a local copy of the dataset.")
    except PrerequisiteError as error:
        sys.exit(f"dhp-build: {error.message}")
    except ValueError as error:
        sys.exit(f"dhp-build: {error}")
    except OSError as error:
        sys.exit(f"dhp-build: cannot write the suite ({error}); give another file with --output")
    report = suite.header["report"]
    counts = Counter(pid for variants in suite.variants.values() for pid in variants)
    print(f"wrote {args.output}: {len(suite.items)} items")
    for pid in suite.header["perturbations"]:
        print(f"  {pid}: {counts[pid]} variants")
    print(
        f"perturber calls asked: {report['calls']} ({suite.cached_calls} answered by inspect's cache, "
        f"{report['calls'] - suite.cached_calls} sent to the perturber); rejected: {report['rejected']}; "
        f"given up: {report['failed_items']}"
    )
    if report["not_applicable"]:
        print(f"not applicable: {report['not_applicable']}")


if __name__ == "__main__":
    main()
