"""The READMEs stay true to the code: generated tables up to date, every option documented, every link resolving."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judge_data.definitions import readme_with_tables
from judge_suites import SUITES as SUITE_PACKAGES
from judge_suites import definitions
from judge_suites.readmes import generated_blocks

ROOT = Path(__file__).resolve().parents[2]
READMES = sorted([ROOT / "README.md", *ROOT.glob("*/README.md")])
DOCS = sorted(ROOT.glob("docs/*.md"))
SUITES = tuple(suite.package for suite in SUITE_PACKAGES)
SUITE_READMES = [suite.readme for suite in SUITE_PACKAGES]
SUITE_README_PROSE_LINES = 180
"""A suite README holds paper, tasks, options, metrics, data, deviations and changelog, as inspect_evals' do in ~170
lines; what all suites share, and details too long for it, go to ``docs/``. The generated tables (20-50 lines, one
row per option and task version) are not counted: they grow with the definitions, not with what is written by hand."""
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _anchor(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation but ``-`` and ``_`` dropped, spaces as
    hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {_anchor(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def test_every_suite_definition_has_its_readme_with_current_tables():
    blocks = generated_blocks()
    assert {path.parent.name for path in blocks} == {*SUITES, "lm_eval_tasks"}
    for path, tables in blocks.items():
        text = path.read_text(encoding="utf-8")
        for name in tables:
            assert f"<!-- generated: {name} -->" in text, f"{path} lacks the generated block {name}"
        assert readme_with_tables(text, tables) == text, f"{path} is out of date: run python -m judge_suites"


def test_a_changed_option_shows_as_an_out_of_date_readme():
    path = ROOT / "dhp_tasks" / "README.md"
    text = path.read_text(encoding="utf-8")
    stale = text.replace(definitions()["dhp"].option("repeats").doc, "an older description")
    assert stale != text
    assert readme_with_tables(stale, generated_blocks()[path]) == text


def test_the_top_readme_is_short_and_links_every_suite():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 220
    for folder in (*SUITES, "lm_eval_tasks", "judge_report"):
        assert f"({folder}/README.md" in text


@pytest.mark.parametrize("readme", SUITE_READMES, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_suite_readme_is_short(readme):
    text = readme.read_text(encoding="utf-8")
    prose = re.sub(r"<!-- generated: (\w+) -->\n.*?<!-- end of generated \1 -->\n", "", text, flags=re.DOTALL)
    lines = len(prose.splitlines())
    assert lines <= SUITE_README_PROSE_LINES, f"{readme}: {lines} lines besides its generated tables; move to docs/"


@pytest.mark.parametrize("readme", READMES + DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves(readme):
    text = re.sub(r"```.*?```", "", readme.read_text(encoding="utf-8"), flags=re.DOTALL)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file_part, _, anchor = target.partition("#")
        path = (readme.parent / file_part).resolve() if file_part else readme
        if not path.exists():
            broken.append(target)
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(target)
    assert broken == []
