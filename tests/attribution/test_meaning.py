"""What a quotation says, read by the packaged sentence encoder, as a later pass's evidence."""

from __future__ import annotations

import numpy as np
import pytest

from litlens.attribution import meaning
from litlens.attribution.context import build_context
from litlens.attribution.cpu import BookInput, CpuAttributor
from litlens.attribution.features import answer_similarity, candidates, meaning_similarity, style_similarity
from litlens.attribution.meaning import quotation_meanings
from litlens.errors import Cancelled
from litlens.model import Character, Quotation
from litlens.services.attribution import default_model_path
from litlens.text.paragraphs import find_paragraphs

CHARS = [
    Character("Mrs. Bennet", ["Mrs. Bennet"], "female"),
    Character("Mr. Darcy", ["Mr. Darcy", "Darcy"], "male"),
]
TEXT = (
    "\u201cYou have no compassion on my poor nerves,\u201d said Mrs. Bennet.\n\n"
    "\u201cWe shall ride over to Pemberley and see the new stables,\u201d said Darcy.\n\n"
    "The evening went on.\n\n"
    "It rained all week.\n\n"
    "The sun came out at last.\n\n"
    "\u201cOh, such palpitations, such spasms! I am quite ill.\u201d\n"
)
PIECES = [
    "You have no compassion on my poor nerves,",
    "We shall ride over to Pemberley and see the new stables,",
    "Oh, such palpitations, such spasms! I am quite ill.",
]


def _quotes(text: str, pieces: list[str]) -> list[Quotation]:
    return [Quotation(spans=[(text.index(p), text.index(p) + len(p))]) for p in pieces]


def _context():
    return build_context(TEXT, find_paragraphs(TEXT), _quotes(TEXT, PIECES), CHARS)


def test_quotation_meanings_are_the_packaged_encoders_unit_vectors_computed_once():
    meaning._recent.clear()
    ctx = _context()
    vectors = quotation_meanings(ctx)
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert quotation_meanings(ctx) is vectors  # kept on the context
    again = _context()
    assert quotation_meanings(again) is vectors  # the same quotations: the process's copy
    # complaints of ill health resemble each other more than the stables
    assert vectors[2] @ vectors[0] > vectors[2] @ vectors[1] + 0.05


def test_a_paraphrase_resembles_its_speaker_by_meaning_where_words_say_nothing():
    ctx = _context()
    cands = candidates(ctx)
    bennet, darcy = 0, 1
    answers = [{bennet: 1.0, darcy: 0.0}, {darcy: 1.0, bennet: 0.0}, {c: 1.0 / len(cands[2]) for c in cands[2]}]
    by_meaning = {c: v for c, v in zip(cands[2], meaning_similarity(ctx, cands, answers)[2])}
    by_words = {c: v for c, v in zip(cands[2], style_similarity(ctx, cands, answers)[2])}
    assert by_meaning[bennet][0] > by_meaning[darcy][0] and by_meaning[bennet][1] > 0
    assert by_words[bennet][0] == by_words[darcy][0] == 0  # no word of the last quotation repeats


def test_answer_similarity_leaves_each_quotation_out_of_its_own_speakers_vector():
    x = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]], dtype=np.float32)
    cands = [[0, 1], [0, 1], [0, 1]]
    answers = [{0: 1.0, 1: 0.0}, {0: 0.5, 1: 0.5}, {1: 1.0, 0: 0.0}]
    out = answer_similarity(x, cands, answers, 2)
    # quotation 0 against character 0: only quotation 1's half is left, pointing along (0.6, 0.8)
    assert out[0][0, 0] == pytest.approx(0.6)
    # against character 1: quotation 1's half plus quotation 2, (0.3, 1.4) normalised
    assert out[0][1, 0] == pytest.approx(0.3 / np.hypot(0.3, 1.4))
    assert out[0][0, 1] == pytest.approx(out[0][0, 0] - out[0][1, 0])
    assert answer_similarity(None, cands, answers, 2)[0].tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_attributing_reports_reading_the_quotations_and_stops_there_when_cancelled():
    meaning._recent.clear()
    attributor = CpuAttributor.from_file(default_model_path())
    book = BookInput(TEXT, find_paragraphs(TEXT), list(zip("abc", _quotes(TEXT, PIECES))), list(zip("12", CHARS)))
    said: list[str] = []
    answers = attributor.attribute(book, progress=lambda f, m: said.append(m))
    assert "reading what 3 quotations say" in said
    assert said.index("reading what 3 quotations say") < said.index("ranking candidate speakers")
    assert [a.speaker for a in answers[:2]] == ["1", "2"]
    meaning._recent.clear()
    calls: list[int] = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) > 1  # the check after reading cues passes; the encoder's first batch stops

    said.clear()
    with pytest.raises(Cancelled):
        attributor.attribute(book, progress=lambda f, m: said.append(m), cancelled=cancelled)
    assert "ranking candidate speakers" not in said
