"""The shared perturbation builder: the first reply a suite's rules accept, the refusals, retries, cache and counts on
a stand-in perturber, and the checksummed suite file."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from judge_data import DataError
from judge_data.suite_files import read_suite_rows, suite_lines
from solvers.perturber import (
    PerturberReport,
    PerturberSettings,
    Request,
    first_accepted,
    perturb_all,
    unchanged_or_empty,
)
from tests.support.fake_judge import reads_request, serve


def test_the_first_accepted_reply_is_kept_after_counted_refusals():
    replies = ["", "  the original  ", "a changed text\n"]
    asked: list[tuple[str, int]] = []

    async def generate(prompt: str, attempt: int) -> str:
        asked.append((prompt, attempt))
        return replies[attempt]

    def refusal(reply: str) -> str | None:
        return "empty" if not reply else "identical" if reply == "the original" else None

    text, reasons = asyncio.run(first_accepted("rewrite", generate, refusal, max_attempts=3))
    assert (text, reasons) == ("a changed text", ["empty", "identical"])
    assert asked == [("rewrite", 0), ("rewrite", 1), ("rewrite", 2)]


def test_no_reply_after_the_last_attempt_is_none_with_every_reason():
    async def generate(prompt: str, attempt: int) -> str:
        return "  x  "

    text, reasons = asyncio.run(
        first_accepted("p", generate, lambda reply: f"refused {reply}", max_attempts=2, clean=str.upper)
    )
    assert (text, reasons) == (None, ["refused   X  ", "refused   X  "])


ORIGINAL = "The cat sat on the mat."
REPLIES = {
    ("echo:1", 0): "Change: make it wrong",  # the suite's own refusal
    ("echo:1", 1): "The dog sat on the mat.",
    ("same:1", 0): "The cat  sat\non the mat.",  # the original, whitespace aside
    ("same:1", 1): "",
    ("same:1", 2): "The cat sat on the mat.",
    ("same:2", 0): "The cat sat on a hat.",
}
"""What the stand-in perturber says per (prompt, attempt); the attempt is read from the request's seed."""
SEED = 7


@reads_request
def scripted_perturber(request: dict) -> str:
    return REPLIES[(request["messages"][-1]["content"], request["seed"] - SEED)]


def _requests() -> list[Request]:
    def echo(reply: str) -> str | None:
        return "echo" if reply.startswith("Change:") else None

    return [
        Request(change, item, f"{change}:{item}", ORIGINAL, echo)
        for change, item in (("echo", "1"), ("same", "1"), ("same", "2"))
    ]


def test_the_builder_retries_refuses_counts_and_answers_a_rebuild_from_the_cache(monkeypatch, tmp_path):
    """Three texts: one accepted after the suite's refusal, one given up after the shared refusals (in the suite's
    words), one accepted at once; the rebuild asks the model nothing."""
    settings = PerturberSettings("openai-api/fakejudge/perturber", {}, seed=SEED, max_attempts=3)
    with serve(scripted_perturber) as (url, calls):
        monkeypatch.setenv("FAKEJUDGE_BASE_URL", url)
        monkeypatch.setenv("FAKEJUDGE_API_KEY", "test")
        monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
        reports = [PerturberReport(), PerturberReport()]
        built = [
            asyncio.run(perturb_all(_requests(), settings, report, words={"unchanged": "identical"}))
            for report in reports
        ]
    assert built[0] == built[1] == {("echo", "1"): "The dog sat on the mat.", ("same", "2"): "The cat sat on a hat."}
    assert len(calls) == 6  # 2 + 3 + 1, all made by the first build
    attempts = sorted((call["messages"][-1]["content"], call["temperature"], call["seed"]) for call in calls)
    assert attempts[:2] == [("echo:1", 0.0, 7), ("echo:1", 1.0, 8)]  # greedy first, then sampled with the next seed
    first, again = reports
    assert (first.calls, first.cached, again.calls, again.cached) == (6, 0, 6, 6)
    assert (
        first.refused_by_change()
        == again.refused_by_change()
        == {
            "echo": {"echo": 1},
            "same": {"empty": 1, "identical": 2},
        }
    )
    assert first.given_up == again.given_up == [("same", "1")]
    assert settings.provenance(2) == {
        "perturber": "openai-api/fakejudge/perturber",
        "perturber_args": {},
        "prompt_version": 2,
        "seed": 7,
        "max_attempts": 3,
    }


def test_no_requests_ask_no_model():
    report = PerturberReport()
    assert asyncio.run(perturb_all([], PerturberSettings(None), report)) == {}
    assert (report.calls, report.cached, report.refused, report.given_up) == (0, 0, {}, [])


@pytest.mark.parametrize(
    ("reply", "reason"),
    [("", "empty"), (ORIGINAL, "unchanged"), (" The cat\nsat on  the mat. ", "unchanged"), ("The cat sat.", None)],
)
def test_the_refusals_every_suite_makes(reply, reason):
    assert unchanged_or_empty(ORIGINAL, reply) == reason


def test_a_suite_file_is_sealed_by_the_checksum_of_its_item_lines(tmp_path):
    lines = suite_lines({"format": "x-suite/1", "name": "é"}, ['{"id": "a"}', '{"id": "b"}'])
    assert lines[0] == (
        '{"checksum": "' + hashlib.sha256(b'{"id": "a"}\n{"id": "b"}').hexdigest() + '", "format": "x-suite/1", '
        '"name": "é"}'
    )
    (tmp_path / "s.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    source, header, rows = read_suite_rows(tmp_path / "s.jsonl", "x-suite/1", "an X")
    assert header["name"] == "é" and rows == [(2, {"id": "a"}), (3, {"id": "b"})]
    with pytest.raises(DataError, match="s.jsonl, row 1: not a Y suite header"):
        read_suite_rows(tmp_path / "s.jsonl", "y-suite/1", "a Y")
    (tmp_path / "s.jsonl").write_text("\n".join([lines[0], '{"id": "c"}', lines[2]]) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="s.jsonl, row 1: the checksum does not match the item lines"):
        read_suite_rows(tmp_path / "s.jsonl", "x-suite/1", "an X", require_checksum=False)
    (tmp_path / "old.jsonl").write_text('{"format": "x-suite/1"}\n{"id": "a"}\n', encoding="utf-8")
    assert read_suite_rows(tmp_path / "old.jsonl", "x-suite/1", "an X", require_checksum=False)[2] == [(2, {"id": "a"})]
    with pytest.raises(DataError, match="old.jsonl, row 1: the checksum does not match"):
        read_suite_rows(tmp_path / "old.jsonl", "x-suite/1", "an X")
