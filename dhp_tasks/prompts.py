"""G-Eval style judge prompts for the DHP suites: one criterion per prompt, scored 1-5.

Every prompt opens with what all prompts of an item share (the introduction and the context), then
what varies (criterion, evaluation steps, the judged text), so engines with prefix caching reuse the
long shared part across metrics and perturbed variants.
"""

from __future__ import annotations

from dataclasses import dataclass

from solvers.geval import Criterion, JudgePrompt

COHERENCE_SUMMARY = Criterion(
    name="coherence",
    title="Coherence",
    definition=(
        "how well the sentences of the summary work together as a whole. A coherent summary is "
        "organised around its topic and builds up its information step by step, instead of listing "
        "loosely related facts."
    ),
    steps=(
        "Read the summary in full and name its central topic.",
        "Follow the order of the sentences and check that each one connects to what came before.",
        "Look for abrupt jumps, out-of-place sentences, repetitions or missing links between ideas.",
        "Decide how easy the summary is to follow from beginning to end.",
    ),
)

CONSISTENCY_SUMMARY = Criterion(
    name="consistency",
    title="Consistency",
    definition=(
        "whether every statement in the summary is supported by the source article. Names, numbers, "
        "places and claims that the article does not contain, or that contradict it, are errors."
    ),
    steps=(
        "Read the source article and note its key facts: people, places, numbers, events.",
        "Check each statement of the summary against the article.",
        "Mark any fact that is invented, altered or contradicted by the article.",
        "Weigh how many unsupported statements there are and how much they matter.",
    ),
)

FLUENCY_SUMMARY = Criterion(
    name="fluency",
    title="Fluency",
    definition=(
        "the quality of the individual sentences: correct spelling, grammar, punctuation and "
        "capitalisation, with no fragments or garbled words that make the text hard to read."
    ),
    steps=(
        "Read each sentence of the summary on its own.",
        "Note misspelled or broken words, grammatical mistakes and malformed sentences.",
        "Judge how much these problems get in the way of reading.",
    ),
)

RELEVANCE_SUMMARY = Criterion(
    name="relevance",
    title="Relevance",
    definition=(
        "whether the summary picks out the important content of the source article. It should keep "
        "the main points and leave out minor details, repetitions and information that is not there."
    ),
    steps=(
        "Read the source article and identify its most important points.",
        "Check which of these points the summary covers.",
        "Note redundant, trivial or extraneous content in the summary.",
        "Judge how well the summary's content matches what matters in the article.",
    ),
)

COHERENCE_STORY = Criterion(
    name="coherence",
    title="Coherence",
    definition=(
        "how well the ending fits the story as a whole: together with the first four sentences it "
        "should form one logically connected narrative."
    ),
    steps=(
        "Read the beginning of the story and work out what is happening.",
        "Read the ending and check that it follows from the events before it.",
        "Note any ending that ignores, breaks or contradicts the narrative thread.",
    ),
)

CONSISTENCY_STORY = Criterion(
    name="consistency",
    title="Consistency",
    definition=(
        "whether the ending keeps the story's characters, setting, tone and facts. Introducing "
        "people, places or details that clash with the story counts against it."
    ),
    steps=(
        "Note the characters, setting, tone and key details of the story so far.",
        "Check that the ending refers to them correctly and keeps the same tone.",
        "Mark anything in the ending that conflicts with what the story established.",
    ),
)

FLUENCY_STORY = Criterion(
    name="fluency",
    title="Fluency",
    definition=("the linguistic quality of the ending sentence: spelling, grammar, punctuation and natural wording."),
    steps=(
        "Read the ending sentence carefully.",
        "Note misspelled or broken words and grammatical mistakes.",
        "Judge how natural and readable the sentence is.",
    ),
)

ANSWER_QUALITY = Criterion(
    name="answer_quality",
    title="Answer Quality",
    definition=(
        "whether the answer responds to the question completely and correctly, in line with the "
        "paragraph it is based on, and in well-formed language."
    ),
    steps=(
        "Read the question and find the part of the paragraph that answers it.",
        "Check that the answer addresses the question and states the facts the paragraph gives.",
        "Note wrong, invented, missing or irrelevant content, and errors in the wording.",
        "Judge how useful and accurate the answer is overall.",
    ),
)

ACCURACY_TRANSLATION = Criterion(
    name="accuracy",
    title="Accuracy",
    definition=(
        "how faithfully the translation renders the source text: no additions, no omissions, and "
        "no mistranslated words, names or numbers."
    ),
    steps=(
        "Read the source text and note its meaning, names and numbers.",
        "Compare the translation with the source, sentence by sentence.",
        "Mark content that is added, left out or translated wrongly.",
        "Judge how much of the source's meaning the translation preserves.",
    ),
)

FLUENCY_TRANSLATION = Criterion(
    name="fluency",
    title="Fluency",
    definition=(
        "whether the translation reads as correct, natural English: spelling, grammar, punctuation "
        "and consistent wording."
    ),
    steps=(
        "Read the translation without looking at the source.",
        "Note misspelled or broken words, grammatical mistakes and awkward or incomplete sentences.",
        "Judge how readable the translation is as English text.",
    ),
)


@dataclass(frozen=True)
class TextKind:
    """A kind of judged text: its criteria and how its prompts name the text and its context."""

    name: str
    criteria: tuple[Criterion, ...]
    prompt: JudgePrompt


TEXT_KINDS: dict[str, TextKind] = {
    "summarization": TextKind(
        name="summarization",
        criteria=(COHERENCE_SUMMARY, CONSISTENCY_SUMMARY, FLUENCY_SUMMARY, RELEVANCE_SUMMARY),
        prompt=JudgePrompt(
            task="You will evaluate a summary of the source article below.",
            context_label="Source article",
            text_label="Summary",
        ),
    ),
    "story": TextKind(
        name="story",
        criteria=(COHERENCE_STORY, CONSISTENCY_STORY, FLUENCY_STORY),
        prompt=JudgePrompt(
            task="You will evaluate the ending sentence written for the short story below.",
            context_label="Story (first four sentences)",
            text_label="Ending",
        ),
    ),
    "qa": TextKind(
        name="qa",
        criteria=(ANSWER_QUALITY,),
        prompt=JudgePrompt(
            task="You will evaluate an answer to the question below, which is about the given paragraph.",
            context_label="Question and paragraph",
            text_label="Answer",
        ),
    ),
    "translation": TextKind(
        name="translation",
        criteria=(ACCURACY_TRANSLATION, FLUENCY_TRANSLATION),
        prompt=JudgePrompt(
            task="You will evaluate an English translation of the source text below.",
            context_label="Source text",
            text_label="Translation",
        ),
    ),
}
