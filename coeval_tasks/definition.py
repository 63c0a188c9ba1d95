"""The CoEval suite, declared once: its two task families (criteria writing, criterion scoring), each with its task
version, options, headlines and comparability (see :mod:`judge_data.definitions`)."""

from __future__ import annotations

from coeval_tasks.data import COEVAL_COMMIT, COEVAL_REPO, DATASETS
from judge_data.definitions import (
    ALL,
    LOGGED_AS_N_ITEMS,
    LOGGED_AS_SOURCE,
    REQUIRED,
    Headline,
    Option,
    SuiteDefinition,
    TaskOptions,
)
from judge_data.recorded import JUDGMENTS_OPTION_NAMES, JUDGMENTS_OPTIONS
from judge_data.shared_options import CRITERIA_OPTION, MIN_MASS_OPTION, RATING_SCORINGS, SEED_OPTION
from scorers.criteria_consistency import DEFAULT_EMBEDDER, DEFAULT_MATCH_THRESHOLD
from solvers.reading.formats import ANSWER_FORMATS
from solvers.stepwise import MODES

PAPER = (
    "Li, Cui, Kong and Bi, *Exploring the Reliability of Large Language Models as Customized Evaluators for Diverse "
    "NLP Tasks*, COLING 2025 ([arXiv:2310.19740](https://arxiv.org/abs/2310.19740))"
)
PUBLIC_SOURCE = f"`{COEVAL_REPO}` at `{COEVAL_COMMIT[:7]}`"

COEVAL_CRITERIA = SuiteDefinition(
    name="coeval_criteria",
    title="CoEval criteria: the criteria a judge writes for a task",
    paper=PAPER,
    version=2,
    changelog={
        1: "A reference list at temperature 0 and `samples` sampled lists per task description; CC, ICC and "
        "coverage of the experts' curated criteria by embedding similarity.",
        2: "A task description whose sampled answers are all one text (the provider decoded greedily, as inspect's "
        "`hf/` provider does under `-M do_sample=false`, the bundled judge's setting) has CC and ICC NaN with the "
        "reason, counted in `identical_lists`, and the report flags the run; they were 1.00 (the bundled judge's "
        "quick preset: CC 1.00, ICC 1.00 before, n/a now).",
    },
    options=(
        Option("dataset", "eli5", "whose task descriptions to use", choices=tuple(DATASETS), label="CoEval dataset"),
        Option(
            "data_dir",
            None,
            "local folder in the layout of `shared/data/human/coeval_<dataset>/`",
            shown_default=PUBLIC_SOURCE,
            not_compared=LOGGED_AS_SOURCE,
        ),
        Option(
            "tasks_file",
            None,
            'your own JSONL of task descriptions (`{"id", "task"}` per line, optionally `input`, `output`, '
            "`criteria`); replaces `dataset`",
            not_compared=LOGGED_AS_SOURCE,
        ),
        Option(
            "n",
            None,
            "task descriptions, a seeded draw",
            minimum=1,
            shown_default=ALL,
            not_compared="how many task descriptions are used is compared as the logged `n_task_descriptions`",
        ),
        SEED_OPTION,
        Option("samples", 10, "sampled criteria lists per task description (the paper's N = 10)", minimum=2),
        Option("temperature", 0.7, "temperature of the sampled lists (the reference list is always at 0)", minimum=0),
        Option("embedder", DEFAULT_EMBEDDER, "sentence-transformers model name or local folder that embeds criteria"),
        Option(
            "match_threshold",
            DEFAULT_MATCH_THRESHOLD,
            "cosine similarity at which a judge's criterion matches a curated one (above 0, at most 1)",
        ),
    ),
    headlines=(
        Headline("cc"),
        Headline("icc"),
        Headline("coverage", leaderboard=False),
    ),
    compared_settings=("task_version", "source", "n_task_descriptions"),
    tasks={
        "criteria": TaskOptions(
            ("dataset", "data_dir", "tasks_file", "n", "seed", "samples", "temperature", "embedder", "match_threshold"),
            lm_eval=("data_dir", "n", "seed", "tasks_file", "samples", "temperature", "embedder", "match_threshold"),
        )
    },
)

SCORING_OPTIONS = (
    "mode",
    "data_dir",
    "criteria",
    "n",
    "seed",
    "temperature",
    "scoring",
    "min_mass",
    "answer_format",
    *JUDGMENTS_OPTION_NAMES,
)
"""The options of a paper dataset's scoring task, in the order its signature and docstring list them."""

LM_EVAL_SCORING_OPTIONS = ("data_dir", "criteria", "n", "seed", "answer_format")
"""The options lm-eval's scoring tasks read from their metadata (the mode is in the task's name)."""

COEVAL_SCORING = SuiteDefinition(
    name="coeval_scoring",
    title="CoEval scoring: the judge's criterion and overall scores against the annotators'",
    paper=PAPER,
    version=5,
    changelog={
        1: "Step-by-step (each curated criterion, then overall, in one conversation) and direct scoring; "
        "correlation with the annotators' mean and Krippendorff's alpha with and without the judge.",
        2: "Answers read against what the judge was asked, with the rules designed on real judges' answers; "
        "`answer_format=json`.",
        3: "Krippendorff's alpha for each pair of raters, the judge with each annotator and each pair of "
        "annotators (`alpha/pair/<first>/<second>`, the paper's Figures 5-7), on the criterion units and on the "
        "overall score.",
        4: 'JSON answers read by the text rules too (`"score": 9}`, `"verdict": "B"`, `"answer": "yes"`, '
        "malformed objects: unescaped quotes, trailing commas, prose around them); a JSON object whose field "
        "holds no allowed value is a parse failure, not read from its reasoning; "
        "under `scoring=logprobs` an echo of the turn's "
        "closing label (`Score: 4`, `Overall score: 4`) is read past with its probability, and requests have "
        "room for it (`max_tokens` 3 -> 8 and 11), and a 1-10 score with more than `min_mass` on a `1` the "
        "judge did not write (1 or 10) is a parse failure instead of losing P(10).",
        5: "Krippendorff's alpha gets a 95 % interval (`alpha_ci_low/annotators`, `alpha_ci_high/annotators`, "
        "`alpha_ci_low/with_judge`, ... and their `/overall` twins): responses resampled with all their criterion "
        "units (1,000 resamples, seed 0), the percentile interval re-centred on alpha, as DHP's D; coverage "
        "measured in `docs/coverage_intervals.md`. No point value moved.",
    },
    options=(
        Option(
            "mode",
            "step_by_step",
            "`step_by_step`: each curated criterion, then overall, in one conversation; `direct`: overall only",
            choices=MODES,
        ),
        Option(
            "data_dir",
            None,
            "local folder in the layout of `shared/data/human/coeval_<dataset>/` (`custom`: your folder with "
            "`criteria.json` and `items.jsonl`, required)",
            shown_default=PUBLIC_SOURCE,
            not_compared=LOGGED_AS_SOURCE,
        ),
        CRITERIA_OPTION,
        Option(
            "n",
            None,
            "items, a seeded draw (the public data has 200 per dataset)",
            minimum=1,
            shown_default=ALL,
            not_compared=LOGGED_AS_N_ITEMS,
        ),
        SEED_OPTION,
        Option("temperature", 0.0, "judge temperature (the paper's 0)"),
        Option(
            "scoring",
            "sample",
            "`sample`: each answer explains, then scores, and the score is parsed; `logprobs`: each turn asks for "
            "the score only and takes the expected score over its top log-probabilities",
            choices=RATING_SCORINGS,
        ),
        MIN_MASS_OPTION,
        Option(
            "answer_format",
            "text",
            "`text`: an explanation, then `Score: <number>`; `json`: a JSON object, reasoning then score, its schema "
            "passed to the provider (`scoring=sample` only)",
            choices=ANSWER_FORMATS,
        ),
        *JUDGMENTS_OPTIONS,
    ),
    headlines=(
        Headline("pearson/overall", leaderboard=False),
        Headline("alpha/annotators", leaderboard=False),
        Headline("alpha/with_judge"),
    ),
    compared_settings=("task_version", "source", "dataset", "n_items", "repeats"),
    tasks={
        "paper": TaskOptions(
            SCORING_OPTIONS,
            lm_eval=LM_EVAL_SCORING_OPTIONS,
        ),
        "custom": TaskOptions(
            ("data_dir", *(name for name in SCORING_OPTIONS if name != "data_dir")),
            defaults={"data_dir": REQUIRED},
            lm_eval=LM_EVAL_SCORING_OPTIONS,
        ),
    },
)

DEFINITIONS = (COEVAL_CRITERIA, COEVAL_SCORING)
