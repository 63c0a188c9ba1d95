"""The HTML report page comes from a Jinja2 template: hostile judge names and notes are escaped by it, and the
template ships in the installed package."""

from __future__ import annotations

import subprocess
import sys
from html.parser import HTMLParser

from judge_report.render import html_page
from judge_report.runs import Run
from judge_report.tables import build_report

HOSTILE = "<script>alert(\"x\")</script> & 'quoted'"


class _Page(HTMLParser):
    """The page's tags and the text of its list items, as a browser would read them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.items: list[str] = []
        self._open: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._open = tag

    def handle_data(self, data):
        if self._open == "li":
            self.items.append(data)

    def handle_endtag(self, tag):
        self._open = None


def hostile_run() -> Run:
    return Run(
        location=f"{HOSTILE}.eval",
        harness="inspect",
        task="fbi_single_vanilla",
        task_version="1",
        model=f"openai/{HOSTILE}",
        model_args={},
        metadata={"paradigm": "single", "n_items": 10, "source": "data"},
        task_args={"seed": 0},
        metrics={"error_rate": 0.25, "parse_failures": 3.0},
        samples=10,
        created="2026-01-01",
        notes=(HOSTILE,),
    )


def test_hostile_judge_names_and_notes_are_escaped():
    report = build_report([hostile_run()])
    page_text = html_page(report, [], 0.1)
    assert '<script>alert("x")' not in page_text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;quoted&#39;" in page_text
    page = _Page()
    page.feed(page_text)
    # the only script is the page's own sort script; every hostile text reads back as it was written
    assert [tag for tag, _ in page.tags].count("script") == 1
    assert HOSTILE in page.items
    assert f"openai/{HOSTILE} · fbi_single_vanilla (config 1): {HOSTILE}.eval" in page.items
    flagged = [attrs for tag, attrs in page.tags if tag == "td" and attrs.get("class") == "flagged"]
    # the leaderboard's error rate, and the FBI table's error rate and parse failures
    assert [cell["data-value"] for cell in flagged] == ["0.25", "0.25", "3.0"]
    assert {cell["title"] for cell in flagged} == {f"parse failures 15.0%; {HOSTILE}.eval"}


def test_the_template_ships_in_the_installed_package(tmp_path):
    # -I and another working folder: the installed judge_report, not this source tree
    check = (
        "import importlib.resources, judge_report; "
        "print(importlib.resources.files(judge_report).joinpath('templates', 'report.html.jinja').is_file())"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-c", check], capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False
    )
    assert result.stdout.strip() == "True", result.stderr
