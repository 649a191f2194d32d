"""Turn taking read over a whole conversation: boundaries, their features, the learned odds
of a change of speaker, and the forward-backward marginals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from litlens.attribution.context import build_context
from litlens.attribution.dialogue import (
    ALTERNATE,
    NEW,
    REPEAT,
    TURN_FEATURES,
    TurnTaking,
    boundaries,
    change_odds,
    fit_turn_model,
    turn_labels,
    turn_rows,
    turn_taking,
)
from litlens.services.attribution import load_novel
from litlens.text.paragraphs import find_paragraphs
from tests.attribution.test_context import CHARS, _quotes
from tests.conftest import SAMPLE_PDNC

LIZZY, DARCY, JANE = 0, 1, 2

TEXT = (
    "\u201cWhere is your sister?\u201d said Darcy.\n\n"
    "\u201cIn the garden.\u201d\n\n"
    "\u201cAlone?\u201d\n\n"
    "\u201cYes. She likes it there.\u201d \u201cShe always has.\u201d\n\n"
    "\u201cAnd I like it too,\u201d said Jane, coming in.\n\n"
    "Nothing more was said that day.\n\n"
    "It rained all week.\n\n"
    "\u201cA new day,\u201d said Elizabeth.\n"
)
PIECES = ["Where is your sister?", "In the garden.", "Alone?", "Yes. She likes it there.", "She always has.",
          "And I like it too,", "A new day,"]


@pytest.fixture(scope="module")
def ctx():
    return build_context(TEXT, find_paragraphs(TEXT), _quotes(TEXT, PIECES), CHARS)


def test_boundaries_are_the_new_turns_of_a_conversation_with_the_two_turns_before(ctx):
    bounds = boundaries(ctx)
    # the second paragraph of two quotations is one turn; the last quotation starts a new conversation
    assert [(b.quote, b.last, b.before_last) for b in bounds] == [(1, 0, None), (2, 1, 0), (3, 2, 1), (5, 4, 2)]
    gold = [DARCY, LIZZY, DARCY, LIZZY, LIZZY, JANE, LIZZY]
    assert turn_labels(bounds, gold) == [NEW, ALTERNATE, ALTERNATE, NEW]
    assert turn_labels(bounds, [DARCY, LIZZY, LIZZY, LIZZY, LIZZY, LIZZY, None]) == [NEW, REPEAT, REPEAT, REPEAT]
    # an unknown speaker two turns back could have been the one who answers: no label
    assert turn_labels(bounds, [None, LIZZY, JANE, LIZZY, LIZZY, DARCY, None])[:3] == [None, None, ALTERNATE]
    assert turn_labels(bounds, []) == [None] * 4  # a book without gold speakers


def test_turn_rows_read_the_text_around_each_new_turn(ctx):
    bounds = boundaries(ctx)
    rows = turn_rows(ctx, bounds)
    col = {name: k for k, name in enumerate(TURN_FEATURES)}
    assert rows.shape == (4, len(TURN_FEATURES))
    assert rows[1, col["last_question"]] == 0 and rows[2, col["last_question"]] == 1  # "Alone?" before "Yes."
    assert rows[0, col["last_cue_name"]] == 1 and rows[3, col["cue_name"]] == 1
    assert rows[3, col["last_turn_quotes"]] == 2
    assert rows[2, col["opener"]] > 0 and rows[0, col["opener"]] == 0  # "Yes" is an opener, "In" is not
    assert list(rows[:, col["turn_in_conversation"]]) == [1, 2, 3, 4]
    assert list(rows[:, col["paragraph_gap"]]) == [1, 1, 1, 1]


def _flat(cands, lean=None):
    dist = {c: 1.0 / len(cands) for c in cands}
    if lean is not None:
        dist = {c: (0.55 if c == lean else 0.45 / (len(cands) - 1)) for c in cands}
    return dist


def test_turn_taking_carries_a_strong_alternation_through_weak_turns(ctx):
    cands = [LIZZY, DARCY, JANE, 3]
    dists = [{DARCY: 0.97, LIZZY: 0.01, JANE: 0.01, 3: 0.01}, _flat(cands, LIZZY), _flat(cands, LIZZY),
             _flat(cands, DARCY), _flat(cands), {JANE: 0.97, LIZZY: 0.01, DARCY: 0.01, 3: 0.01}, {LIZZY: 1.0}]
    alternate = np.log([0.05, 0.9, 0.05])
    odds = {b.quote: alternate for b in boundaries(ctx)}
    odds[5] = np.log([0.05, 0.05, 0.9])  # Jane comes in
    out = turn_taking(ctx, dists, odds)
    best = [max(d, key=d.get) for d in out]
    # Darcy asks, Elizabeth answers, Darcy asks again, Elizabeth answers over two quotations
    assert best[:5] == [DARCY, LIZZY, DARCY, LIZZY, LIZZY]
    assert best[5] == JANE  # a named cue keeps its own answer
    assert out[6] == {LIZZY: 1.0}  # a conversation of one quotation is left alone
    for before, after in zip(dists, out):
        assert set(after) == set(before) and math.isclose(sum(after.values()), 1.0)
    # with odds that the speaker goes on, the weak third turn stays with the second turn's speaker
    repeat = np.log([0.9, 0.05, 0.05])
    best = [max(d, key=d.get) for d in turn_taking(ctx, dists, {b.quote: repeat for b in boundaries(ctx)})]
    assert best[1] == best[2]


def test_the_turn_model_learns_from_gold_speakers_that_answers_alternate():
    novel = load_novel(SAMPLE_PDNC)
    book = novel.prepared
    model = fit_turn_model([(book.context, book.labels)])
    bounds = boundaries(book.context)
    labels = turn_labels(bounds, book.labels)
    odds = change_odds(book.context, model)
    assert set(odds) == {b.quote for b in bounds}
    known = [(odds[b.quote], y) for b, y in zip(bounds, labels) if y is not None]
    assert len(known) > 1000
    prior = np.bincount([y for _, y in known], minlength=3) / len(known)
    model_loss = -np.mean([lp[y] for lp, y in known])
    prior_loss = -np.mean([math.log(prior[y]) for _, y in known])
    assert prior[ALTERNATE] > prior[NEW] > prior[REPEAT]  # Pride and Prejudice's talk is mostly two-handed
    assert model_loss < 0.85 * prior_loss  # and the text tells which turns break the pattern


def test_the_turn_model_needs_conversations_with_gold_speakers(ctx):
    with pytest.raises(ValueError, match="conversations with gold speakers"):
        fit_turn_model([(ctx, [None] * len(PIECES))])


def test_the_one_addressed_by_name_is_the_likelier_to_answer():
    text = "\u201cJane, where have you been?\u201d said Darcy.\n\n\u201cIn the garden.\u201d\n"
    ctx = build_context(text, find_paragraphs(text), _quotes(text, ["Jane, where have you been?", "In the garden."]), CHARS)
    assert ctx.quotes[0].vocatives and JANE in ctx.quotes[0].vocatives
    dists = [{DARCY: 0.98, LIZZY: 0.01, JANE: 0.01}, {LIZZY: 0.55, JANE: 0.45, DARCY: 0.0}]
    even = {1: np.log(np.full(3, 1 / 3))}
    answer = turn_taking(ctx, dists, even)[1]
    assert max(answer, key=answer.get) == JANE
    unaddressed = turn_taking(ctx, dists, even, TurnTaking(answers_address=0.0))[1]
    assert max(unaddressed, key=unaddressed.get) == LIZZY


def test_a_pronoun_cue_keeps_its_own_answer_more_than_an_uncued_turn():
    text = "\u201cWhere have you been?\u201d said Darcy.\n\n\u201cIn the garden,\u201d she said.\n"
    ctx = build_context(text, find_paragraphs(text), _quotes(text, ["Where have you been?", "In the garden,"]), CHARS)
    assert ctx.quotes[1].cue_pronoun == "female"
    dists = [{DARCY: 0.98, LIZZY: 0.01, JANE: 0.01}, {LIZZY: 0.4, JANE: 0.6, DARCY: 0.0}]
    even = {1: np.log(np.full(3, 1 / 3))}
    out = turn_taking(ctx, dists, even)[1]
    flat = turn_taking(ctx, dists, even, TurnTaking(own_pronoun=1.0))[1]
    assert out[JANE] > flat[JANE] > 0.5  # the pronoun-cued turn's own lean is sharpened, not overridden
