"""The instruction-adherence suite, declared once: task version, options, headlines, comparability (see
:mod:`judge_data.definitions`)."""

from __future__ import annotations

from adherence_tasks.prompts import SETTINGS
from judge_data.definitions import ALL, Headline, Option, SuiteDefinition
from scorers.answer_parsing import ANSWER_FORMATS
from scorers.likelihood import DEFAULT_NORMALIZATION, NORMALIZATIONS
from solvers.logprob_scoring import DEFAULT_MIN_MASS, SCORINGS

ADHERENCE = SuiteDefinition(
    name="adherence",
    title="Instruction adherence: does the judge follow its instructions?",
    paper=(
        "Murugadoss et al., *Evaluating the Evaluator: Measuring LLMs' Adherence to Task Evaluation "
        "Instructions*, AAAI 2025 ([arXiv:2408.08781](https://arxiv.org/abs/2408.08781))"
    ),
    version=4,
    changelog={
        1: "The paper's four settings on its datasets; Pearson per criterion, dataset and taxonomy group.",
        2: "The likelihood setting sums the separator's tokens too, as DHP's version 2.",
        3: "Answers read against the prompt they answer, with rules designed on real judges' answers; "
        "`answer_format=json`; coherence-type criteria in the Integrity group; overall-impression criteria "
        "(TopicalChat's and InstruSum's `overall`) in no group, reported alone; the headline interval averages the "
        "same criteria in every resample.",
        4: "One vocabulary with the other suites: the likelihood setting is `scoring=perplexity` (it was "
        "`setting=perplexity`); `setting` is `generic`, `criterion` or `rubric`; the log's `scoring` of a "
        "likelihood run reads `perplexity` (it read `likelihood`).",
    },
    options=(
        Option(
            "setting",
            "rubric",
            "how much the prompt says about what to score: a request for quality (`generic`), the criterion's name "
            "(`criterion`), or its definition and score levels (`rubric`); unused with `scoring=perplexity`",
            choices=SETTINGS,
        ),
        Option(
            "scoring",
            "sample",
            "`sample`: `repeats` answers parsed and averaged; `logprobs`: the expected rating over one answer's top "
            "log-probabilities (P(yes) for yes/no); `perplexity`: no prompt, the judge's log-likelihood of the "
            "response given its task (the paper's setting 1)",
            choices=SCORINGS,
        ),
        Option("criteria", None, "comma-separated criterion names", shown_default=ALL),
        Option(
            "data_dir",
            None,
            "local folder with `criteria.json` and `items.jsonl` in the layout of `shared/data/human/<dataset>/` "
            "(`custom`: your folder, required)",
            shown_default="public source",
        ),
        Option("n", None, "items, a seeded draw", minimum=1, shown_default=ALL),
        Option("seed", 0, "seed of that draw"),
        Option("repeats", 1, "answers per question, averaged (`scoring=sample`)", minimum=1),
        Option("temperature", 0.0, "judge temperature"),
        Option(
            "min_mass",
            DEFAULT_MIN_MASS,
            "with `scoring=logprobs`: the least probability on valid answers for a rating to count",
        ),
        Option(
            "normalize",
            DEFAULT_NORMALIZATION,
            "with `scoring=perplexity`: the summed log-likelihood per scored token or per UTF-8 byte of the response "
            "(lm-eval's)",
            choices=NORMALIZATIONS,
        ),
        Option(
            "answer_format",
            "text",
            "`text`: the bare answer; `json`: a JSON object, reasoning then the answer, its schema passed to the "
            "provider (`scoring=sample` only)",
            choices=ANSWER_FORMATS,
        ),
        Option(
            "groups",
            None,
            "JSON file mapping criterion names to a taxonomy group (Content, Engagement, Integrity, Relevance) or "
            "null (reported alone); overrides the suite's assignment (`criteria/<dataset>.json`)",
            shown_default="the suite's",
        ),
    ),
    headlines=(
        Headline("pearson", higher_is_better=True),
        Headline("pearson/group/.+", higher_is_better=True, leaderboard=False),
    ),
    comparable_on=(
        "task_version",
        "source",
        "n_items",
        "seed",
        "setting",
        "criteria",
        "repeats",
        "scoring",
        "min_mass",
        "answer_format",
        "normalize",
    ),
)

DEFINITIONS = (ADHERENCE,)
