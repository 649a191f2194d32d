"""The overlap test of proxy options: shared runs of 8 words, shared sentences, greedy choice."""

from __future__ import annotations

import pytest

from litlens.studies.overlap import first_compatible, options_overlap, shared_run, shared_sentence, split_sentences

RUN8 = "the old miller walked slowly down to the river"  # 9 words


def test_overlap_shared_run_of_eight_words_is_found_across_case_and_punctuation():
    a = f"It was late. {RUN8} at dusk, and nobody saw him."
    b = "Morning came; The Old Miller, walked slowly -- down to the RIVER bank again."
    assert shared_run(a, b) == RUN8


def test_overlap_a_run_of_seven_words_is_not_shared():
    a = "Quite late, the old miller walked slowly down home, alone."
    b = "Early on, the old miller walked slowly down home again."  # 7 words in common: the … home
    assert shared_run(a, b) is None
    assert options_overlap([a, b]) == []
    assert shared_run(a, b, n=7) == "the old miller walked slowly down home"


def test_overlap_returns_the_longest_shared_stretch_as_the_first_text_writes_it():
    a = "One two three four five six seven eight nine. Then other words here and there. Ten eleven."
    b = "x ONE two three four five six seven eight nine y"
    assert shared_run(a, b) == "One two three four five six seven eight nine"


def test_overlap_shared_short_sentence():
    a = "He stood up. \u201cNo more of it!\u201d The door shut."
    b = "Then silence. No more of it! She left the room at once."
    assert shared_run(a, b) is None  # only four words in common
    assert shared_sentence(a, b) == "\u201cNo more of it!\u201d"
    assert options_overlap([a, b]) == [(0, 1, "\u201cNo more of it!\u201d")]


def test_overlap_part_of_a_sentence_is_not_a_shared_sentence():
    assert shared_sentence("No more of it, she said.", "No more of it!") is None


@pytest.mark.parametrize("text, expected", [
    ("Mr. Chester sat down. She rose.", ["Mr. Chester sat down.", "She rose."]),
    ("\u201cYes!\u201d she cried. Then he went.", ["\u201cYes!\u201d she cried.", "Then he went."]),
    ("J. Smith came... Then? Gone", ["J. Smith came...", "Then?", "Gone"]),
])
def test_overlap_sentence_split(text, expected):
    assert split_sentences(text) == expected


def test_overlap_options_pairwise():
    texts = [f"A {RUN8}.", "Nothing in common here at all.", f"B says {RUN8} too."]
    assert options_overlap(texts) == [(0, 2, RUN8)]


def test_overlap_greedy_walk_keeps_the_best_ranked_compatible_candidates():
    gold = f"Gold passage: {RUN8} in the rain."
    ranked = [
        ("dup-of-gold", f"Another: {RUN8} once more."),
        ("first", "The mill wheel turned all night. The water was high."),
        ("dup-of-first", "The mill wheel turned all night. Nobody heard it."),  # shares a sentence with "first"
        ("second", "She wrote a long letter to her sister in London."),
        ("third", "A stranger came to the village inn that evening."),
    ]
    assert first_compatible([gold], ranked, 2) == ["first", "second"]
    assert first_compatible([gold], ranked, 5) == ["first", "second", "third"]  # runs out: fewer than wanted
