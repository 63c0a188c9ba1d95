"""The DHP suite, declared once: task version, options, headlines, comparability (see :mod:`judge_data.definitions`)."""

from __future__ import annotations

from typing import get_args

from dhp_tasks.data import DATASETS
from dhp_tasks.prompts import TEXT_KINDS
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
from judge_data.shared_options import GRADER_OPTIONS, MIN_MASS_OPTION, PAPER_TEMPERATURE_OPTION, SCORINGS
from scorers.consistency import GRADES_CHANGED, SELF_ALPHA
from scorers.dhp import HEADLINES
from scorers.discernment import Combination
from scorers.grader import SCORER_ERRORS
from scorers.likelihood import DEFAULT_NORMALIZATION, NORMALIZATIONS
from solvers.judge_template import DHP_PLACEHOLDERS
from solvers.reading.formats import ANSWER_FORMATS

ALL_PERTURBATIONS = "all"

PAPER_OPTIONS = (
    "data_dir",
    "n",
    "seed",
    "perturbations",
    "repeats",
    "temperature",
    "expert_weights",
    "combine",
    "suite",
    "scoring",
    "min_mass",
    "normalize",
    "answer_format",
    "judge_template",
    "scale",
    *JUDGMENTS_OPTION_NAMES,
)
"""The options of the paper datasets' tasks, in their signatures' order."""

LM_EVAL_OPTIONS = ("data_dir", "n", "seed", "perturbations", "expert_weights", "combine", "answer_format")
"""The options lm-eval's DHP tasks read from their metadata (its own settings give repeats and temperature, the task
name the scoring)."""

DHP = SuiteDefinition(
    name="dhp",
    title="DHP: discernment of hierarchical perturbations",
    paper=(
        "Wang et al., *DHP Benchmark: Are LLMs Good NLG Evaluators?*, Findings of NAACL 2025 "
        "([arXiv:2408.13704](https://arxiv.org/abs/2408.13704))"
    ),
    version=6,
    changelog={
        1: "Answers parsed in the scorer; D is NaN (not 0) without pairs; metrics without pairs are left out of the "
        "p-value combination; parse-failure counts and rates in the score value.",
        2: "`scoring=perplexity` sums the separator's tokens too (the tokens after the context with its trailing "
        "whitespace removed, as lm-eval splits a context from its continuation).",
        3: "Answers read against the prompt they answer, with rules designed on real judges' answers; "
        "`answer_format=json`.",
        4: "The `custom` task takes `data_dir`, a folder holding `items.jsonl`, as every suite's tasks do (it took "
        "`data`, a file).",
        5: "Item-bootstrap 95 % intervals of every D (`D_ci_low/<perturbation>`, `D_avg_ci_high`, ...: 1,000 "
        "resamples of the items, seed 0, bias-corrected percentiles) as new metrics.",
        6: 'JSON answers read by the text rules too (`"score": 9}`, `"verdict": "B"`, `"answer": "yes"`, '
        "malformed objects: unescaped quotes, trailing commas, prose around them); a JSON object whose field "
        "holds no allowed value is a parse failure, not read from its reasoning; "
        "under `scoring=logprobs` an echo of the prompt's "
        "closing label (`Coherence score: 4`) is read past with its probability, and requests have room for it "
        "(`max_tokens` 3 -> 11 for `Coherence score:`). "
        "The D intervals are the resamples' 2.5th and 97.5th percentiles moved by D minus their median, within "
        "D's range (bias-corrected percentiles held the median of D_avg in 68-87 % of simulated data sets, now "
        "90-98 %; docs/coverage_intervals.md); every `_ci_low` / `_ci_high` of D moves.",
    },
    options=(
        Option(
            "data_dir",
            None,
            "local folder in the layout of `shared/data/dhp/<dataset>/` (`custom`: your folder, with `items.jsonl` "
            'holding one `{"id", "text", "context"?}` per line)',
            shown_default="public source",
            not_compared=LOGGED_AS_SOURCE,
        ),
        Option(
            "n",
            100,
            "reference texts, a seeded draw (the paper's 100; `custom`: all)",
            minimum=1,
            not_compared=LOGGED_AS_N_ITEMS,
        ),
        Option("seed", 0, "seed of the draw and of the rule-based perturbations"),
        Option(
            "perturbations",
            ALL_PERTURBATIONS,
            "comma-separated perturbation ids, or `all`: every rule-based row, and with a suite every row it holds",
        ),
        Option(
            "repeats",
            5,
            "ratings per metric, averaged (the paper's 5)",
            minimum=1,
            not_compared=HOW_THE_JUDGE_IS_SAMPLED,
        ),
        PAPER_TEMPERATURE_OPTION,
        Option(
            "expert_weights",
            None,
            "JSON file of expert weights",
            shown_default="the bundled table",
            not_compared="it changes only the expert-weighted values (`_EW`), which have no leaderboard column",
        ),
        Option(
            "combine",
            "hmp",
            "p-value combination: harmonic mean (`hmp`), DHP's printed formula (`paper`) or Wilson's",
            choices=get_args(Combination),
        ),
        Option(
            "suite",
            None,
            "suite file from `dhp-build`; its texts are judged as they are (`data_dir`, `n` and `seed` unused)",
        ),
        Option(
            "scoring",
            "sample",
            "`sample`: G-Eval ratings from `repeats` answers; `logprobs`: the expected rating over one answer's top "
            "log-probabilities; `perplexity`: the judge's log-likelihood of each text given its context, no prompt",
            choices=SCORINGS,
        ),
        MIN_MASS_OPTION,
        Option(
            "normalize",
            DEFAULT_NORMALIZATION,
            "with `scoring=perplexity`: the summed log-likelihood per scored token or per UTF-8 byte (lm-eval's)",
            choices=NORMALIZATIONS,
        ),
        Option(
            "answer_format",
            "text",
            "`text`: the paper's free-text ratings; `json`: a JSON object, reasoning then score, its schema passed "
            "to the provider (`scoring=sample` only)",
            choices=ANSWER_FORMATS,
        ),
        Option(
            "kind",
            "summarization",
            "`custom` only: the kind of text, which sets metrics, prompts and perturbations",
            choices=tuple(TEXT_KINDS),
        ),  # fmt: skip
        Option("metrics", None, "`custom` only: comma-separated subset of the kind's metrics", shown_default=ALL),
        Option(
            "judge_template",
            None,
            f"your own judge prompt, a file that {DHP_PLACEHOLDERS.described()}",
            shown_default="the G-Eval prompts",
        ),
        Option("scale", None, "with `judge_template`: rate from 1 to this", minimum=2, shown_default="5"),
        *JUDGMENTS_OPTIONS,
    ),
    headlines=tuple(Headline(metric, leaderboard=metric == "D_avg") for metric in HEADLINES),
    compared_settings=("task_version", "source", "n_items"),
    tasks={
        "paper": TaskOptions(PAPER_OPTIONS, lm_eval=(*LM_EVAL_OPTIONS, "suite")),
        "custom": TaskOptions(
            (
                "data_dir",
                "kind",
                "metrics",
                "n",
                *(name for name in PAPER_OPTIONS if name not in ("data_dir", "n", "suite")),
            ),
            defaults={"data_dir": REQUIRED, "n": None},
            lm_eval=(*LM_EVAL_OPTIONS, "kind", "metrics"),
        ),
    },
)

GRADER_TARGETS = ("criteria", "reference", "none")
"""``-T target=`` of ``dhp_tasks/grader``: the dataset's criteria as one statement the text should meet (what
``model_graded_qa`` grades against), the unperturbed reference text, or an empty target."""

GRADER_INPUTS = ("context", "none")
"""``-T input=`` of ``dhp_tasks/grader``: the text's context as the scorer's input (what ``model_graded_qa`` shows
as the task), or an empty input."""

DHP_GRADER = SuiteDefinition(
    name="dhp_grader",
    title="DHP with your grader: any inspect scorer as the judge under test",
    paper=DHP.paper,
    version=2,
    changelog={
        1: "Any inspect scorer (`-T scorer=`, `-T scorer_args=`) grades each reference text and each perturbed copy; "
        "its values read with inspect's `value_to_float`, no grade counted as a parse failure; DHP's discernment on "
        "the one grade.",
        2: "An exception the grader raised counts in `scorer_errors` (a new metric), no longer in `parse_failures` "
        "(the grades that could not be read), and the sample keeps where it was raised; with `--epochs N` the "
        "grader's agreement with itself (`self_alpha`, `grades_changed`).",
    },
    options=(
        Option("dataset", "summeval", "the paper's dataset whose texts are graded", choices=tuple(DATASETS)),
        *GRADER_OPTIONS,
        Option(
            "target",
            GRADER_TARGETS[0],
            "the scorer's target: the dataset's criteria, one per line (`criteria`), the unperturbed text "
            "(`reference`) or nothing (`none`)",
            choices=GRADER_TARGETS,
        ),
        Option(
            "input",
            GRADER_INPUTS[0],
            "the scorer's input: the text's context (the source article, the story's opening, the question and "
            "paragraph, the source sentence; `context`) or nothing (`none`), for graders that judge the text alone "
            "or against `target=reference` without the long source",
            choices=GRADER_INPUTS,
        ),
        *(DHP.option(name) for name in ("data_dir", "n", "seed", "perturbations", "combine", "suite")),
        *JUDGMENTS_OPTIONS,
    ),
    headlines=(
        *(headline for headline in DHP.headlines if "_EW" not in headline.metric),
        Headline(SCORER_ERRORS, leaderboard=False),
        Headline(SELF_ALPHA, leaderboard=False),
        Headline(GRADES_CHANGED, leaderboard=False),
    ),
    compared_settings=("task_version", "source", "n_items"),
    tasks={
        "grader": TaskOptions(
            (
                "dataset",
                "scorer",
                "scorer_args",
                "target",
                "input",
                "data_dir",
                "n",
                "seed",
                "perturbations",
                "combine",
                "suite",
                *JUDGMENTS_OPTION_NAMES,
            ),
        )
    },
)

DEFINITIONS = (DHP, DHP_GRADER)
