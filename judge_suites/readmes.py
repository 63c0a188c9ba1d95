"""The generated tables of the suite READMEs and of lm-eval's README, from the definitions (``python -m judge_suites``
rewrites them; a test fails when one is out of date)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from judge_data.definitions import readme_with_tables
from judge_suites import ROOT, SUITES, definitions


def generated_blocks() -> dict[Path, dict[str, Callable[[], str]]]:
    """For each suite README, the generated blocks it holds: ``<definition>_options`` and
    ``<definition>_versions``; for lm-eval's, ``lm_eval_options``."""
    blocks: dict[Path, dict[str, Callable[[], str]]] = {}
    for suite in SUITES:
        for definition in suite.definitions:
            path = ROOT / suite.package / definition.readme
            blocks.setdefault(path, {})
            blocks[path][f"{definition.name}_options"] = definition.options_table
            blocks[path][f"{definition.name}_versions"] = definition.changelog_table
    blocks[ROOT / "lm_eval_tasks" / "README.md"] = {"lm_eval_options": lm_eval_options_table}
    return blocks


def lm_eval_options_table() -> str:
    """lm-eval's README table of the options each kind of task reads from its metadata, from the definitions."""
    rows = ["| definition | tasks | options (default) |", "|---|---|---|"]
    for definition in definitions().values():
        rows += definition.lm_eval_rows()
    return "\n".join(rows)


def main() -> None:
    """Rewrite the generated tables of every suite README (and lm-eval's options table) from the definitions."""
    for path, blocks in generated_blocks().items():
        text = path.read_text(encoding="utf-8")
        path.write_text(readme_with_tables(text, blocks), encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)
