"""Each suite's Inspect Evals register entry (``<suite>_tasks/eval.yaml``): what the generator writes from the
definitions, READMEs, registries and data, and that the tasks it lists stay the suites' registered ``@task``s."""

from __future__ import annotations

import inspect
from pathlib import Path

import yaml

from judge_data.definitions import TASK_OPTIONS
from judge_meta_eval.listing import ASSETS, LISTING_FILE, description, generated
from judge_suites import definitions, suite_package
from tests.conftest import data_folder

ROOT = Path(__file__).resolve().parents[2]
FIELDS = [
    "title", "description", "arxiv", "group", "contributors", "version", "tasks", "tags", "metadata", "external_assets"
]  # fmt: skip


def test_committed_listings_are_what_the_generator_writes():
    expected = generated(data_folder())
    committed = {path: path.read_text(encoding="utf-8") for path in expected if path.is_file()}
    assert committed == expected, "run `python -m judge_meta_eval.listing --data-root ../shared/data`"


def test_every_listed_task_is_a_registered_task_of_its_version():
    versions = {definition.name: definition.version for definition in definitions().values()}
    for package in ASSETS:
        entry = yaml.safe_load((ROOT / package / LISTING_FILE).read_text(encoding="utf-8"))
        assert list(entry) == FIELDS and entry["arxiv"].startswith("https://arxiv.org/abs/")
        found = suite_package(package)
        assert found is not None
        registry = found.registry
        for task in entry["tasks"]:
            owner, name = task["name"].split("/")
            assert owner == package and name in registry.__all__, task["name"]
            suite, _ = getattr(inspect.unwrap(getattr(registry, name)), TASK_OPTIONS)
            assert entry["metadata"]["task_versions"][task["name"]] == versions[suite]
            assert task["dataset_samples"] > 0
        assert entry["version"] == f"{max(entry['metadata']['task_versions'].values())}-A"
    fbi = yaml.safe_load((ROOT / "fbi_tasks" / LISTING_FILE).read_text(encoding="utf-8"))
    # 2,400 items less the 7 whose perturbed answer is identical to the gold one (left out by default)
    assert {task["name"]: task["dataset_samples"] for task in fbi["tasks"]} == {
        "fbi_tasks/pairwise": 2393, "fbi_tasks/reference": 2393, "fbi_tasks/single": 2393
    }  # fmt: skip


def test_the_description_is_the_readmes_first_paragraph_in_plain_text():
    readme = "# Title\n\nIt **measures** `D` ([elsewhere](../x.md)), as [the paper](https://x) says.\n\n## More\n"
    assert description(readme) == "It measures D, as the paper says."
