"""Each suite ready for the Inspect Evals register: ``<suite>_tasks/eval.yaml``, generated, never written by hand.

    python -m judge_meta_eval.listing --data-root ../shared/data [--contributor HANDLE ...]

The register lists evals that live in their authors' repositories: a ``register/<name>/eval.yaml`` with the eval's
title, description, paper, group, contributors, version, tasks (each with its number of samples), tags, metadata and
external assets, pointing at the repository's ``@task`` functions at a pinned commit. Here each field comes from
where the project already holds it: the title (the paper's) and the paper from the suite's definition, the
description from the first paragraph of its README, the tasks from its ``_registry`` module (those on public data,
which the full preset runs), each task's samples by building it with its defaults on the data under ``--data-root``
(the shared copy of the public sources), the version from the definitions' task versions, and the external assets
from the pinned sources the data modules download.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from adherence_tasks.data import BARTSCORE, HANNA, JUDGE_BENCH, NEXT_CHAPTER, OPINSUMMEVAL, USR_COPY
from coeval_tasks.data import COEVAL_COMMIT, COEVAL_REPO
from dhp_tasks.data import SQUAD_DEV_URL, STORYCLOZE_URL, SUMMEVAL_URL, SUMPUBMED_RAW, WMT22_RAW, WMT22_XML
from fbi_tasks.data import FBI_RELEASE_URL
from judge_data.definitions import TASK_OPTIONS
from judge_meta_eval.presets import load_preset
from judge_suites import definitions, suite_package
from scorers.criteria_consistency import DEFAULT_EMBEDDER, unscored_tasks

LISTING_FILE = "eval.yaml"
"""Each suite package's register entry."""

UNLISTED = ("custom", "grader")
"""Tasks on the user's own data or scorer: they have no fixed samples to list."""

GROUP = "Writing"
"""The register's group: the suites measure judges of written text (summaries, stories, answers, translations)."""

TAGS = ("llm-as-a-judge", "meta-evaluation")

INTERFACE = "A"
"""The letter after the task version in the register's version (``6-A``): changes only with the tasks' interface."""


@dataclass(frozen=True)
class Asset:
    """A public source a suite downloads when no ``data_dir`` is given."""

    type: str
    source: str
    fetch_method: str
    state: str
    """``pinned`` (a commit or a checksum fixes it) or ``unpinned``."""

    def entry(self) -> dict[str, str]:
        """The register's ``external_assets`` entry."""
        return {"type": self.type, "source": self.source, "fetch_method": self.fetch_method, "state": self.state}


def _url(url: str, state: str = "pinned") -> Asset:
    return Asset("url", url, "download", state)


def _git(repo_commit: tuple[str, str]) -> Asset:
    repo, commit = repo_commit
    return Asset("git", f"https://github.com/{repo}/tree/{commit}", "raw_file", "pinned")


ASSETS: dict[str, tuple[Asset, ...]] = {
    "dhp_tasks": (
        _url(SUMMEVAL_URL, "unpinned"),
        _url(SUMPUBMED_RAW),
        _url(STORYCLOZE_URL),
        _url(SQUAD_DEV_URL),  # checked against its published sha256
        _url(WMT22_RAW),
        _url(WMT22_XML),
    ),
    "fbi_tasks": (_url(FBI_RELEASE_URL),),
    "adherence_tasks": tuple(map(_git, (BARTSCORE, USR_COPY, JUDGE_BENCH, OPINSUMMEVAL, NEXT_CHAPTER, HANNA))),
    "coeval_tasks": (
        _git((COEVAL_REPO, COEVAL_COMMIT)),
        Asset("huggingface", DEFAULT_EMBEDDER, "hf_model", "unpinned"),  # the criteria task's embedder
    ),
}
"""The sources each suite downloads, by the constants its modules pin them with: the suites on public data, the ones
listed (``grader_tasks`` judges the user's own labels and has no samples of its own)."""

PAPER_TITLE = re.compile(r"\*([^*]+)\*")
"""The paper's title, in italics in a definition's ``paper``."""
ARXIV = re.compile(r"\[arXiv:[\d.]+\]\((https://arxiv\.org/abs/[\d.]+)\)")
_LINK_IN_PARENTHESES = re.compile(r"\s*\(\[[^\]]*\]\([^)]*\)\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def description(readme: str) -> str:
    """The first paragraph under a README's title, as plain text (links to other files dropped, emphasis removed)."""
    paragraph = readme.split("\n\n")[1]
    text = _LINK.sub(r"\1", _LINK_IN_PARENTHESES.sub("", paragraph))
    return " ".join(text.replace("**", "").replace("`", "").split())


def listed_tasks(package: str) -> list[tuple[str, Any, str]]:
    """The package's registered tasks on public data, ``(registered name, task function, data folder)``, in its
    order: those the full preset runs (its folder of each task's data in the shared layout), which leaves out the
    tasks on the user's data or scorer and the datasets whose human scores are not public (FLASK, InstruSum)."""
    suite = suite_package(package)
    if suite is None:
        raise ValueError(f"{package} is not a suite package")
    folders: dict[str, str] = {}
    for entry in load_preset("full").tasks:
        folders.setdefault(entry.task, str(entry.data))
    listed = [name for name in suite.registry.__all__ if name not in UNLISTED and f"{package}/{name}" in folders]
    return [(f"{package}/{name}", suite.task(name), folders[f"{package}/{name}"]) for name in listed]


def samples(function: Any, folder: Path) -> int:
    """The samples a task judges with every default, on the data in ``folder``."""
    with unscored_tasks():  # nothing is scored: CoEval's criteria task loads no embedder
        return len(function(data_dir=str(folder)).dataset)


def listing(package: str, data_root: Path, contributors: Sequence[str] = ()) -> dict[str, Any]:
    """The register entry of one suite package."""
    root = Path(__file__).resolve().parents[1]
    by_name = definitions()
    tasks = listed_tasks(package)
    versions = {
        name: by_name[getattr(inspect.unwrap(function), TASK_OPTIONS)[0]].version for name, function, _ in tasks
    }
    main = by_name[package.removesuffix("_tasks")] if package != "coeval_tasks" else by_name["coeval_scoring"]
    arxiv, title = ARXIV.search(main.paper), PAPER_TITLE.search(main.paper)
    return {
        "title": title.group(1) if title else main.title,
        "description": description((root / package / "README.md").read_text(encoding="utf-8")),
        "arxiv": arxiv.group(1) if arxiv else None,
        "group": GROUP,
        "contributors": list(contributors),
        "version": f"{max(versions.values())}-{INTERFACE}",
        "tasks": [
            {"name": name, "dataset_samples": samples(function, data_root / folder)} for name, function, folder in tasks
        ],
        "tags": [*TAGS, package.removesuffix("_tasks")],
        "metadata": {"requires_internet": True, "task_versions": versions},
        "external_assets": [asset.entry() for asset in ASSETS[package]],
    }


def listing_text(entry: dict[str, Any]) -> str:
    """An entry as the file holds it, with a first line saying how it is made."""
    header = "# Generated by python -m judge_meta_eval.listing --data-root <shared data>; do not edit.\n"
    return header + yaml.safe_dump(entry, sort_keys=False, width=100, allow_unicode=True)


def generated(data_root: Path, contributors: Sequence[str] = ()) -> dict[Path, str]:
    """Every listed suite package's ``eval.yaml`` by path."""
    root = Path(__file__).resolve().parents[1]
    return {
        root / package / LISTING_FILE: listing_text(listing(package, data_root, contributors)) for package in ASSETS
    }


def main(argv: list[str] | None = None) -> None:
    """Write every suite's ``eval.yaml``."""
    parse = argparse.ArgumentParser(prog="python -m judge_meta_eval.listing", description=__doc__.split("\n\n")[0])
    parse.add_argument("--data-root", required=True, help="the shared copy of the public data (../shared/data)")
    parse.add_argument("--contributor", action="append", default=[], metavar="HANDLE", help="a GitHub handle")
    args = parse.parse_args(argv)
    for path, text in generated(Path(args.data_root), args.contributor).items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
