"""The instruction-adherence suite, declared once: task version, options, headlines, comparability (see
:mod:`judge_data.definitions`)."""

from __future__ import annotations

from adherence_tasks.prompts import PERPLEXITY_SETTING, SETTINGS
from judge_data.definitions import (
    ALL,
    HOW_THE_JUDGE_IS_SAMPLED,
    LOGGED_AS_N_ITEMS,
    LOGGED_AS_SOURCE,
    REQUIRED,
    Headline,
    Option,
    SuiteDefinition,
    TaskOptions,
)
from judge_data.recorded import JUDGMENTS_OPTION_NAMES, JUDGMENTS_OPTIONS
from judge_data.shared_options import CRITERIA_OPTION, MIN_MASS_OPTION, SCORINGS, SEED_OPTION
from scorers.likelihood import DEFAULT_NORMALIZATION, NORMALIZATIONS
from solvers.judge_template import ADHERENCE_PLACEHOLDERS
from solvers.reading.formats import ANSWER_FORMATS

PAPER_OPTIONS = (
    "setting",
    "scoring",
    "criteria",
    "data_dir",
    "exclude_systems",
    "n",
    "documents",
    "seed",
    "repeats",
    "temperature",
    "min_mass",
    "normalize",
    "answer_format",
    "groups",
    "judge_template",
    *JUDGMENTS_OPTION_NAMES,
)
"""The options of a paper dataset's task, in the order its signature and docstring list them."""

LM_EVAL_OPTIONS = ("data_dir", "criteria", "exclude_systems", "n", "documents", "seed", "answer_format", "groups")
"""The options lm-eval's adherence tasks read from their metadata (the setting or scoring is in the task's name)."""

ADHERENCE = SuiteDefinition(
    name="adherence",
    title="Instruction adherence: does the judge follow its instructions?",
    paper=(
        "Murugadoss et al., *Evaluating the Evaluator: Measuring LLMs' Adherence to Task Evaluation "
        "Instructions*, AAAI 2025 ([arXiv:2408.08781](https://arxiv.org/abs/2408.08781))"
    ),
    version=5,
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
        5: 'JSON answers read by the text rules too (`"score": 9}`, `"verdict": "B"`, `"answer": "yes"`, '
        "malformed objects: unescaped quotes, trailing commas, prose around them); a JSON object whose field "
        "holds no allowed value is a parse failure, not read from its reasoning; "
        "under `scoring=logprobs` an echo of the prompt's closing label (`Coherence score: 4`, `Answer: yes`) is "
        "read past with its probability, and requests have room for it (3 tokens a label word and 2 more), and a "
        "1-10 rating with more than `min_mass` on a `1` the judge did not write (1 or 10) is a parse failure "
        "instead of losing P(10). "
        "System-level agreement where the data names the systems: Kendall's tau between the judge's and the "
        "humans' mean score per system (`system_tau/<criterion>`, their oriented mean `system_tau` with a "
        "document-bootstrap interval, `n_systems`); `documents` draws whole documents.",
    },
    options=(
        Option(
            "setting",
            "rubric",
            "how much the prompt says about what to score: a request for quality (`generic`), the criterion's name "
            "(`criterion`), or its definition and score levels (`rubric`); unused with `scoring=perplexity`",
            choices=SETTINGS,
            refused={
                PERPLEXITY_SETTING: "the likelihood setting is chosen with scoring=perplexity (task version 4); "
                "pass -T scoring=perplexity"
            },
        ),
        Option(
            "scoring",
            "sample",
            "`sample`: `repeats` answers parsed and averaged; `logprobs`: the expected rating over one answer's top "
            "log-probabilities (P(yes) for yes/no); `perplexity`: no prompt, the judge's log-likelihood of the "
            "response given its task (the paper's setting 1)",
            choices=SCORINGS,
        ),
        CRITERIA_OPTION,
        Option(
            "data_dir",
            None,
            "local folder with `criteria.json` and `items.jsonl` in the layout of `shared/data/human/<dataset>/` "
            "(`custom`: your folder, required)",
            shown_default="public source",
            not_compared=LOGGED_AS_SOURCE,
        ),
        Option(
            "exclude_systems",
            None,
            "comma-separated systems (`meta.system` of the items) whose responses are left out of every statistic "
            "before any draw: `Human` gives HANNA's published recipe, the generated stories only",
            shown_default="none",
        ),
        Option(
            "n",
            None,
            "items, a seeded draw",
            minimum=1,
            shown_default=ALL,
            not_compared=LOGGED_AS_N_ITEMS,
        ),
        Option(
            "documents",
            None,
            "instead of `n`: documents, a seeded draw, each with every system's response to it (what the responses "
            "answer: an article, a prompt, a conversation), so that `system_tau` compares whole systems",
            minimum=1,
            shown_default=ALL,
        ),
        SEED_OPTION,
        Option("repeats", 1, "answers per question, averaged (`scoring=sample`)", minimum=1),
        Option(
            "temperature",
            0.0,
            "judge temperature",
            not_compared=HOW_THE_JUDGE_IS_SAMPLED,
        ),
        MIN_MASS_OPTION,
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
            not_compared="it changes only the per-group values (`pearson/group/...`), which have no leaderboard column",
        ),
        Option(
            "judge_template",
            None,
            f"your own judge prompt, a file that {ADHERENCE_PLACEHOLDERS.described()}; the setting still chooses the "
            "questions (one on overall quality, or one per criterion)",
            shown_default="the setting's prompt",
        ),
        *JUDGMENTS_OPTIONS,
    ),
    headlines=(
        Headline("pearson"),
        Headline("pearson/group/.+", leaderboard=False),
        Headline("system_tau", leaderboard=False),
    ),
    compared_settings=("task_version", "source", "n_items"),
    tasks={
        "paper": TaskOptions(PAPER_OPTIONS, lm_eval=LM_EVAL_OPTIONS),
        "custom": TaskOptions(
            ("data_dir", *(name for name in PAPER_OPTIONS if name != "data_dir")),
            defaults={"data_dir": REQUIRED},
            docs={
                "groups": "JSON file mapping criterion names to a taxonomy group or null; overrides criteria.json's "
                "groups"
            },
            lm_eval=LM_EVAL_OPTIONS,
        ),
    },
)

DEFINITIONS = (ADHERENCE,)
