"""The FBI suite, declared once: task version, options, headlines, comparability (see :mod:`judge_data.definitions`)."""

from __future__ import annotations

from fbi_tasks.data import ABILITIES
from fbi_tasks.prompts import PAIRWISE_STRATEGIES, REFERENCE_STRATEGIES, SINGLE_STRATEGIES, STRATEGIES
from judge_data.definitions import (
    ALL,
    LOGGED_AS_SOURCE,
    Headline,
    Option,
    SuiteDefinition,
    TaskOptions,
)
from judge_data.recorded import JUDGMENTS_OPTION_NAMES, JUDGMENTS_OPTIONS
from judge_data.shared_options import (
    GRADER_OPTIONS,
    MIN_MASS_OPTION,
    PAPER_TEMPERATURE_OPTION,
    RATING_SCORINGS,
    SEED_OPTION,
)
from scorers.consistency import GRADES_CHANGED, SELF_ALPHA
from scorers.fbi import HEADLINES
from scorers.grader import SCORER_ERRORS
from solvers.grader import TARGETS
from solvers.judge_template import FBI_PLACEHOLDERS
from solvers.reading.formats import ANSWER_FORMATS

ITEM_OPTIONS = (
    "data_dir",
    "abilities",
    "categories",
    "per_category",
    "seed",
    "include_extra",
    "hub_revision",
    "keep_identical",
    "suite",
)
"""The options that choose FBI's items, shared by every FBI task."""

RATING_OPTIONS = (
    "strategy",
    "data_dir",
    "abilities",
    "categories",
    "per_category",
    "seed",
    "scale",
    "include_extra",
    "temperature",
    "hub_revision",
    "keep_identical",
    "scoring",
    "min_mass",
    "answer_format",
    "judge_template",
    "suite",
    *JUDGMENTS_OPTION_NAMES,
)
"""The options of the tasks that rate answers (single and reference), in their signatures' order."""

LM_EVAL_OPTIONS = (
    "data_dir",
    "abilities",
    "categories",
    "per_category",
    "seed",
    "scale",
    "include_extra",
    "hub_revision",
    "keep_identical",
    "answer_format",
)
"""The options lm-eval's FBI tasks read from their metadata (the strategy is in the task's name)."""

FBI = SuiteDefinition(
    name="fbi",
    title="FBI: blind spots of evaluator LLMs",
    paper=(
        "Doddapaneni et al., *Finding Blind Spots in Evaluator LLMs with Interpretable Checklists*, EMNLP 2024 "
        "([arXiv:2406.13439](https://arxiv.org/abs/2406.13439))"
    ),
    version=3,
    changelog={
        1: "Item-level pairwise rates and the flip rate as the authors' analysis script counts them; the "
        "explanation check of equal ratings; items whose perturbed answer is identical to the gold one left out.",
        2: "Answers read against the prompt they answer, with rules designed on real judges' answers (ties written "
        "`Final verdict: [[C]] for a tie` were unread); under `scoring=logprobs` an item's failure is its "
        "probability under the judge's rating distributions; `answer_format=json`.",
        3: 'JSON answers read by the text rules too (`"score": 9}`, `"verdict": "B"`, `"answer": "yes"`, '
        "malformed objects: unescaped quotes, trailing commas, prose around them); a JSON object whose field "
        "holds no allowed value is a parse failure, not read from its reasoning; "
        'the authors\' verdicts `"C"` and `"[[A]]"` '
        "read, their `D` (not offered here) a parse failure; under `scoring=logprobs` a 1-10 rating with more "
        "than `min_mass` on a `1` the judge did not write (1 or 10) is a parse failure instead of losing P(10). "
        "Rate intervals (`_ci_low` / `_ci_high`) are Jeffreys intervals (were percentile bootstrap, which gave "
        "[0, 0] when no item of a category failed and held a rare rate in 42 % of 10-item categories; "
        "docs/coverage_intervals.md); every rate interval moves.",
    },
    options=(
        Option(
            "strategy",
            SINGLE_STRATEGIES[1],
            f"single: {', '.join(SINGLE_STRATEGIES)}; pairwise: {', '.join(PAIRWISE_STRATEGIES)}; reference: "
            f"{', '.join(REFERENCE_STRATEGIES)}",
            shown_default="`vanilla`, `pairwise`, `reference` (the task's own)",
            not_compared="it sets the logged `paradigm`, which gives each kind of run a leaderboard column of its own",
        ),
        Option(
            "data_dir",
            None,
            "local folder in the layout of `shared/data/fbi/`",
            shown_default="authors' release",
            not_compared=LOGGED_AS_SOURCE,
        ),
        Option(
            "abilities",
            None,
            "comma list of `long_form`, `factual`, `instruction_following`, `reasoning`, `score_invariant`",
            shown_default=ALL,
        ),
        Option("categories", None, "comma list of category ids (`entity`, `spelling`, ...)", shown_default=ALL),
        Option(
            "per_category", None, "at most this many items per category, a seeded draw", minimum=1, shown_default=ALL
        ),
        SEED_OPTION,
        Option(
            "scale",
            None,
            "top of the score range (single, reference); the rubric strategies take 3 or 5",
            shown_default=", ".join(
                f"{strategy.default_scale} ({strategy.name})"
                for paradigm in ("single", "reference")
                for strategy in STRATEGIES[paradigm].values()
            ),
        ),
        Option("include_extra", False, "also load the two long-form files outside the paper's 2,400 items"),
        PAPER_TEMPERATURE_OPTION,
        Option(
            "hub_revision",
            None,
            "load `ai4bharat/FBI` from the Hugging Face hub at this full commit hash",
            not_compared=LOGGED_AS_SOURCE,
        ),
        Option(
            "keep_identical",
            False,
            "keep the items whose perturbed answer is identical to the gold one (no judge can penalise them)",
        ),
        Option(
            "scoring",
            RATING_SCORINGS[0],
            "single and reference: the rating parsed from the answer (`sample`) or the expected rating over a "
            "bare-number answer's top log-probabilities (`logprobs`)",
            choices=RATING_SCORINGS,
        ),
        MIN_MASS_OPTION,
        Option(
            "answer_format",
            ANSWER_FORMATS[0],
            "`text`: the paper's prompts; `json`: a JSON object, reasoning then the answer, its schema passed to the "
            "provider (also for the explanation checker)",
            choices=ANSWER_FORMATS,
        ),
        Option(
            "suite",
            None,
            "suite file from `fbi-build` (your own answers, perturbed); its items are judged as they are (`categories` "
            "still chooses; the other item options are unused)",
        ),
        Option(
            "judge_template",
            None,
            "your own judge prompt, a file; single: it "
            + FBI_PLACEHOLDERS["single"].described()
            + "; pairwise: it "
            + FBI_PLACEHOLDERS["pairwise"].described()
            + "; reference: it "
            + FBI_PLACEHOLDERS["reference"].described(),
            shown_default="the strategy's prompt",
        ),
        *JUDGMENTS_OPTIONS,
    ),
    headlines=(
        Headline(HEADLINES[0]),
        Headline(f"{HEADLINES[0]}/({'|'.join(ABILITIES)})", leaderboard=False),
        *(Headline(metric, leaderboard=False) for metric in HEADLINES[1:]),
    ),
    compared_settings=("task_version", "source", "n_items"),
    tasks={
        "single": TaskOptions(
            RATING_OPTIONS,
            docs={"strategy": f"one of {', '.join(SINGLE_STRATEGIES)} (default vanilla)"},
            lm_eval=LM_EVAL_OPTIONS,
        ),
        "pairwise": TaskOptions(
            tuple(name for name in RATING_OPTIONS if name not in ("scale", "scoring", "min_mass")),
            defaults={"strategy": "pairwise"},
            docs={"strategy": f"one of {', '.join(PAIRWISE_STRATEGIES)} (default pairwise)"},
            lm_eval=tuple(name for name in LM_EVAL_OPTIONS if name != "scale"),
        ),
        "reference": TaskOptions(
            RATING_OPTIONS,
            defaults={"strategy": "reference"},
            docs={
                "strategy": "reference",
                "scale": "top of the score range (default 10); a perturbed answer given it fails",
            },
            lm_eval=LM_EVAL_OPTIONS,
        ),
    },
)

FBI_GRADER = SuiteDefinition(
    name="fbi_grader",
    title="FBI with your grader: any inspect scorer as the judge under test",
    paper=FBI.paper,
    version=2,
    changelog={
        1: "Any inspect scorer (`-T scorer=`, `-T scorer_args=`) grades the gold and the perturbed answer of each "
        "item; its values read with inspect's `value_to_float`; no grade (unscored, unreadable, an exception) "
        "counted, never a pass.",
        2: "An exception the grader raised counts in `scorer_errors` only (no longer also in `parse_failures`, "
        "which counts the grades that could not be read) and the sample keeps where it was raised; every rate "
        "has its number of items (`<rate>_n`); with `--epochs N` the grader's agreement with itself "
        "(`self_alpha`, `grades_changed`).",
    },
    options=(
        *GRADER_OPTIONS,
        Option(
            "target",
            TARGETS[0],
            "`gold`: the gold answer is the scorer's target (`model_graded_fact`'s expert answer); `none`: an empty "
            "target, for graders that need none",
            choices=TARGETS,
        ),
        *(FBI.option(name) for name in ITEM_OPTIONS),
        *JUDGMENTS_OPTIONS,
    ),
    headlines=(
        *(headline for headline in FBI.headlines if "flip" not in headline.metric),
        Headline(SCORER_ERRORS, leaderboard=False),
        Headline(SELF_ALPHA, leaderboard=False),
        Headline(GRADES_CHANGED, leaderboard=False),
    ),
    compared_settings=("task_version", "source", "n_items"),
    tasks={
        "grader": TaskOptions(
            ("scorer", "scorer_args", "target", *ITEM_OPTIONS, *JUDGMENTS_OPTION_NAMES),
        )
    },
)

DEFINITIONS = (FBI, FBI_GRADER)
