"""The human-annotated datasets of the instruction-adherence suite (Murugadoss et al., AAAI 2025), as a table."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AdherenceDataset:
    """One dataset: its task name, folder name in the shared layout, and what it is."""

    name: str
    folder: str
    description: str
    has_public_scores: bool = True
    """False where the pointwise human scores are not public: the task runs only on a user's items.jsonl."""


DATASETS: dict[str, AdherenceDataset] = {
    dataset.name: dataset
    for dataset in (
        AdherenceDataset("summeval", "summeval", "SummEval: CNN/DailyMail summaries rated by 3 experts"),
        AdherenceDataset("topicalchat", "topicalchat", "TopicalChat (USR): knowledge-grounded dialogue responses"),
        AdherenceDataset("opinsummeval", "opinsummeval", "OpinSummEval: opinion summaries of Yelp reviews"),
        AdherenceDataset("hanna", "hanna", "HANNA: stories written for WritingPrompts prompts"),
        AdherenceDataset("thenextchapter", "thenextchapter", "TheNextChapter: story and news continuations"),
        AdherenceDataset("roscoe", "roscoe", "ROSCOE: step-by-step reasoning, whole responses"),
        AdherenceDataset("roscoe_stepwise", "roscoe_stepwise", "ROSCOE: step-by-step reasoning, single steps"),
        AdherenceDataset("flask", "flask", "FLASK: fine-grained skills of instruction following", False),
        AdherenceDataset("instrusum", "instrusum", "InstruSum: instruction-controllable summaries", False),
    )
}
