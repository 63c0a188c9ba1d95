"""What a user sees when an input is wrong: the real ``inspect eval`` ends with one message and no traceback.

Every wrong input stops task creation with a ``PrerequisiteError``, which ``inspect eval`` prints as its message
alone. Each case is checked where that error starts: the task function called with the options as the CLI
parses them. The real CLI runs the cases that depend on what only it sets up, the offline environment of every
suite and the model of the perplexity cases (inspect's built-in ``mockllm/model``, a provider that cannot give
log-likelihoods), and so shows the printed message for every suite.
"""

from __future__ import annotations

import subprocess
from functools import partial
from pathlib import Path

import pytest

from judge_data.inspect_private import PrerequisiteError
from judge_data.options import OptionError
from tests.conftest import DATA_ROOT
from tests.support.commands import INSPECT, create_task, one_clean_message, run_cli, side_by_side, task_options


def write_bad_inputs(folder: Path) -> Path:
    """Small malformed files, one per kind of user data: a custom DHP folder, an adherence folder, an FBI folder
    and a CoEval tasks file, each with one bad row, and two files of recorded judgments: one whose ids name no
    HANNA item, one with a duplicate row."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "custom").mkdir()
    (folder / "custom" / "items.jsonl").write_text(
        '{"id": "a", "text": "A fine text."}\n{"id": "b", "text": 5}\n', encoding="utf-8"
    )
    adherence = folder / "adherence"
    adherence.mkdir()
    (adherence / "criteria.json").write_text((DATA_ROOT / "human" / "summeval" / "criteria.json").read_text())
    rows = (DATA_ROOT / "human" / "summeval" / "items.jsonl").read_text().splitlines()[:2]
    (adherence / "items.jsonl").write_text("\n".join([*rows, '{"id": "x", "task": "t"}']) + "\n")
    fbi = folder / "fbi"
    for source in (DATA_ROOT / "fbi").rglob("*.tsv"):
        target = fbi / source.relative_to(DATA_ROOT / "fbi")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    with (fbi / "long-form" / "coherence-errors.tsv").open("a", encoding="utf-8") as handle:
        handle.write("lf-x_coherence-errors\tonly a question\n")
    (folder / "tasks.jsonl").write_text('{"id": "a", "task": "Write a story."}\n{"id": "b"}\n', encoding="utf-8")
    (folder / "judgments.jsonl").write_text(
        '{"id": "story-7", "criterion": "relevance", "judge": "J", "score": 3}\n', encoding="utf-8"
    )
    (folder / "judgments.csv").write_text(
        "id,criterion,judge,score\nhanna-0000,relevance,J,3\nhanna-0000,relevance,J,4\n", encoding="utf-8"
    )
    return folder


# (case id, task, task options with {data}/{bad} placeholders, environment, words the message must contain)
CASES = [
    ("dhp n=0", "dhp_tasks/summeval", ["data_dir={data}/dhp/summeval", "n=0"], {}, "n must be at least 1"),
    (
        "dhp combine",
        "dhp_tasks/summeval",
        ["data_dir={data}/dhp/summeval", "perturbations=typos_minor", "combine=mean"],
        {},
        "unknown combine 'mean'",
    ),
    (
        "dhp scoring",
        "dhp_tasks/summeval",
        ["data_dir={data}/dhp/summeval", "perturbations=typos_minor", "scoring=judge"],
        {},
        "unknown scoring 'judge'",
    ),
    (
        "dhp perturbation",
        "dhp_tasks/summeval",
        ["data_dir={data}/dhp/summeval", "perturbations=typo"],
        {},
        "unknown perturbation",
    ),
    (
        "dhp repeats",
        "dhp_tasks/summeval",
        ["data_dir={data}/dhp/summeval", "perturbations=typos_minor", "repeats=0"],
        {},
        "repeats must be at least 1",
    ),
    ("dhp missing data_dir", "dhp_tasks/summeval", ["data_dir=/nonexistent/summeval"], {}, "is not a folder"),
    ("dhp missing suite", "dhp_tasks/summeval", ["suite=/nonexistent/x.suite.jsonl"], {}, "does not exist"),
    ("dhp malformed row", "dhp_tasks/custom", ["data_dir={bad}/custom"], {}, "row 2: field 'text'"),
    ("dhp kind", "dhp_tasks/custom", ["data_dir={bad}/custom", "kind=poem"], {}, "unknown kind 'poem'"),
    ("dhp offline", "dhp_tasks/storycloze", ["n=2"], {"HF_DATASETS_OFFLINE": "1"}, "could not download"),
    (
        "dhp perplexity provider",
        "dhp_tasks/summeval",
        ["data_dir={data}/dhp/summeval", "n=2", "perturbations=typos_minor", "scoring=perplexity"],
        {},
        "mockllm/ provider cannot give",
    ),
    (
        "fbi strategy",
        "fbi_tasks/single",
        ["data_dir={data}/fbi", "strategy=pairwise"],
        {},
        "unknown single strategy 'pairwise'",
    ),
    ("fbi scale", "fbi_tasks/single", ["data_dir={data}/fbi", "strategy=rubric", "scale=7"], {}, "not 1-7"),
    (
        "fbi category",
        "fbi_tasks/pairwise",
        ["data_dir={data}/fbi", "categories=entities"],
        {},
        "unknown category 'entities'",
    ),
    (
        "fbi per_category",
        "fbi_tasks/single",
        ["data_dir={data}/fbi", "per_category=0"],
        {},
        "per_category must be at least 1",
    ),
    ("fbi hub branch", "fbi_tasks/single", ["hub_revision=main"], {}, "not a full 40-character commit hash"),
    ("fbi malformed row", "fbi_tasks/single", ["data_dir={bad}/fbi"], {}, "coherence-errors.tsv, row 93: field 'og'"),
    ("fbi offline", "fbi_tasks/reference", [], {"HF_DATASETS_OFFLINE": "1"}, "could not download"),
    (
        "adherence setting",
        "adherence_tasks/summeval",
        ["data_dir={data}/human/summeval", "setting=rubrics"],
        {},
        "unknown setting 'rubrics'",
    ),
    (
        "adherence criteria",
        "adherence_tasks/hanna",
        ["data_dir={data}/human/hanna", "criteria=humor"],
        {},
        "unknown criteria ['humor']",
    ),
    (
        "adherence missing data_dir",
        "adherence_tasks/summeval",
        ["data_dir=/nonexistent/summeval"],
        {},
        "missing criteria file",
    ),
    (
        "adherence malformed row",
        "adherence_tasks/summeval",
        ["data_dir={bad}/adherence"],
        {},
        "items.jsonl, row 3: field 'response'",
    ),
    ("adherence offline", "adherence_tasks/summeval", [], {"HF_DATASETS_OFFLINE": "1"}, "could not download"),
    (
        "recorded ids match nothing",
        "adherence_tasks/hanna",
        ["data_dir={data}/human/hanna", "judgments={bad}/judgments.jsonl"],
        {},
        "judgments.jsonl: no row's id names an item of adherence_tasks/hanna (the file's ids look like 'story-7', "
        "the task's items like 'hanna-0000')",
    ),
    (
        "recorded duplicate",
        "adherence_tasks/hanna",
        ["data_dir={data}/human/hanna", "judgments={bad}/judgments.csv"],
        {},
        "judgments.csv, rows 2 and 3: both hold the judgment of id 'hanna-0000', criterion 'relevance', judge 'J'",
    ),
    (
        "adherence perplexity provider",
        "adherence_tasks/summeval",
        ["data_dir={data}/human/summeval", "scoring=perplexity", "n=2"],
        {},
        "mockllm/ provider cannot give",
    ),
    ("coeval dataset", "coeval_tasks/criteria", ["dataset=gsm8k"], {}, "unknown CoEval dataset 'gsm8k'"),
    ("coeval n=0", "coeval_tasks/criteria", ["data_dir={data}/human/coeval_eli5", "n=0"], {}, "n must be at least 1"),
    (
        "coeval malformed row",
        "coeval_tasks/criteria",
        ["tasks_file={bad}/tasks.jsonl"],
        {},
        "tasks.jsonl, row 2: field 'task'",
    ),
    ("coeval offline", "coeval_tasks/criteria", ["dataset=eli5"], {"HF_DATASETS_OFFLINE": "1"}, "could not download"),
    (
        "coeval embedder unreachable",
        "coeval_tasks/criteria",
        ["data_dir={data}/human/coeval_eli5", "n=1", "embedder=/nonexistent/embedder"],
        {},
        "could not load the sentence-transformers embedder '/nonexistent/embedder'",
    ),
]


CLI_ONLY = {
    "dhp offline",
    "dhp perplexity provider",
    "fbi offline",
    "adherence offline",
    "adherence perplexity provider",
    "coeval offline",
    "recorded ids match nothing",
}
"""Cases that need the offline environment at start-up or the model ``inspect eval`` is given, and one case of recorded
judgments, which users run as a command of its own."""


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory):
    if not DATA_ROOT.is_dir():
        pytest.skip(f"shared data folder {DATA_ROOT} is absent")
    return write_bad_inputs(tmp_path_factory.mktemp("bad"))


def filled(options: list[str], bad_inputs: Path) -> list[str]:
    return [option.format(data=DATA_ROOT, bad=bad_inputs) for option in options]


@pytest.mark.parametrize(
    ("task", "options", "message"),
    [(task, options, message) for name, task, options, _, message in CASES if name not in CLI_ONLY],
    ids=[case[0] for case in CASES if case[0] not in CLI_ONLY],
)
def test_bad_input_stops_task_creation_with_one_message(bad_inputs, task, options, message):
    with pytest.raises(PrerequisiteError) as raised:
        create_task(task, *filled(options, bad_inputs))
    printed = str(raised.value.message).strip()
    assert "\n\n" not in printed, printed  # inspect eval prints the message as one paragraph
    assert message in " ".join(printed.split()), printed


@pytest.fixture(scope="module")
def cli_results(tmp_path_factory, bad_inputs) -> dict[str, subprocess.CompletedProcess]:
    """The output of ``inspect eval`` on each case the real CLI runs, each in its own folder. The cases run side by
    side: each is mostly inspect's start-up, ending before any sample."""
    root = tmp_path_factory.mktemp("cli")
    cases = [case for case in CASES if case[0] in CLI_ONLY]
    results = side_by_side(
        *(
            partial(
                run_cli,
                [INSPECT, "eval", task, "--model", "mockllm/model", "--display", "plain"]
                + task_options(*filled(options, bad_inputs)),
                root / f"case{index}",
                env,
                expect_success=False,
            )
            for index, (_, task, options, env, _) in enumerate(cases)
        )
    )
    return {case[0]: result for case, result in zip(cases, results, strict=True)}


@pytest.mark.integration
@pytest.mark.parametrize(
    ("name", "message"),
    [(case[0], case[-1]) for case in CASES if case[0] in CLI_ONLY],
    ids=[case[0] for case in CASES if case[0] in CLI_ONLY],
)
def test_bad_input_ends_the_real_cli_with_one_clean_message(cli_results, name, message):
    result = cli_results[name]
    output = one_clean_message(result)
    paragraphs = [block for block in (result.stdout + result.stderr).strip().split("\n\n") if block.strip()]
    assert len(paragraphs) == 1, output
    assert message in output, output


@pytest.mark.parametrize(
    ("task", "options", "message"),
    [
        ("dhp_tasks/summeval", ["combine=mean"], "unknown combine 'mean'"),
        ("dhp_tasks/summeval", ["n=0"], "n must be at least 1"),
        ("dhp_tasks/summeval", ["perturbations=nope"], "nope"),
        ("dhp_tasks/summeval", ["scoring=logprobs", "answer_format=json"], "answer_format=json"),
        ("fbi_tasks/single", ["strategy=best"], "unknown single strategy 'best'"),
        ("fbi_tasks/pairwise", ["answer_format=yaml"], "unknown answer_format 'yaml'"),
        ("adherence_tasks/summeval", ["setting=foo"], "unknown setting 'foo'"),
        ("adherence_tasks/summeval", ["n=0"], "n must be at least 1"),
        ("adherence_tasks/summeval", ["n=10", "documents=2"], "documents=2 whole documents; pass one of them"),
        ("adherence_tasks/hanna", ["documents=0"], "documents must be at least 1"),
        ("adherence_tasks/topicalchat", ["scoring=perplexity", "answer_format=json"], "scoring=perplexity"),
        ("adherence_tasks/topicalchat", ["setting=perplexity"], "pass -T scoring=perplexity"),
        ("adherence_tasks/hanna", ["judge=J"], "judge=J selects rows of recorded judgments; pass the file"),
        ("adherence_tasks/hanna", ["judgments=/nonexistent/j.jsonl"], "judgments file /nonexistent/j.jsonl does not"),
        ("coeval_tasks/eli5", ["mode=stepwise"], "unknown mode 'stepwise'"),
        ("coeval_tasks/rocstories", ["n=0"], "n must be at least 1"),
        ("coeval_tasks/criteria", ["match_threshold=2"], "match_threshold"),
    ],
)
def test_options_are_checked_before_any_data_is_fetched(monkeypatch, task, options, message):
    """Offline, a wrong option is what the user hears about, not the download it never needed (issue 17)."""

    def no_fetch():
        raise AssertionError("data was fetched before the options were checked")

    monkeypatch.setattr("judge_data.io._download_manager", no_fetch)
    with pytest.raises(OptionError) as raised:
        create_task(task, *options)
    assert message in raised.value.message
