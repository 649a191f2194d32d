"""Reading a conversation as a whole: turn taking as a hidden Markov model.

The ranker scores each quotation with its neighbours' answers as features, so one wrong
turn pulls the next ones with it. This module weighs every assignment of speakers to a
conversation's quotations at once: each quotation's probabilities from the ranker, times
how likely each change of speaker is. The answer for a quotation is its marginal over all
those assignments (forward-backward), so a later turn's evidence reaches back to earlier
turns as much as the other way round.

How likely a change of speaker is at a new turn comes from a small learned model of the
text alone, trained on gold speakers: at each turn (a paragraph's speech) after the first
of a conversation, does the speaker of the last turn go on ("repeat"), does the speaker of
two turns back answer ("alternate"), or does someone else speak ("new")? A question mark
at the end of the last turn, a paragraph of narration in between, a turn that opens with
narration or with "Yes" or "But", who is addressed by name: these shift the odds. Within a
paragraph the speaker rarely changes.

The state at a quotation is (its speaker, the speaker of the previous turn's last
quotation), each among the quotation's few best candidates, so the model stays small. A
quotation whose cue names a character keeps its own answer with more weight, and one whose
cue is a pronoun ("she said", already narrowed to one sex) with some more. A character the
last turn addressed by name ("Lizzy, ...") is the likelier one to speak next.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from litlens.attribution.context import BookContext

if TYPE_CHECKING:
    from sklearn.ensemble import HistGradientBoostingClassifier

TOP = 5  # candidates per quotation that the model considers
REPEAT, ALTERNATE, NEW = 0, 1, 2
_FLOOR = 1e-6
_CHANGE_FLOOR = 1e-4
_END = {"?": 1, "!": 2, ".": 3, ",": 4, "—": 5, "-": 5, "…": 6, ";": 7, ":": 7}
_OPENERS = {w: i + 1 for i, w in enumerate("yes no well oh why but and what i you ah nay indeed then so".split())}
_WORD = re.compile(r"[A-Za-z]+")

TURN_FEATURES = [
    "paragraph_gap", "narration_before", "narration_after_last", "last_end", "opens_lower", "opens_dash",
    "words", "last_words", "cue_name", "cue_pronoun", "last_cue_name", "last_cue_pronoun", "last_turn_quotes",
    "last_vocatives", "vocatives", "turn_in_conversation", "mentions_between", "opener", "last_question",
    "inside", "last_inside",
]


@dataclass(frozen=True)
class TurnTaking:
    own: float = 1.0  # weight of a quotation's own log-probabilities
    own_named: float = 4.0  # ... when its cue names a character
    own_pronoun: float = 2.0  # ... when its cue is a pronoun ("she said")
    switch_in_paragraph: float = -4.0  # log-weight of another speaker within one paragraph
    answers_address: float = 1.0  # log-weight for the one the last turn addressed by name speaking next


@dataclass(frozen=True)
class Boundary:
    """A new turn in a conversation: its first quotation, the previous turn's last, and the
    last quotation of the turn before that (None at a conversation's second turn)."""

    quote: int
    last: int
    before_last: int | None


def boundaries(ctx: BookContext) -> list[Boundary]:
    conv = ctx.conversations
    out = []
    for t, quotes in enumerate(conv.quotes_of_turn):
        first = conv.first_turn[t]
        if t == first:
            continue
        before = conv.quotes_of_turn[t - 2][-1] if t - 2 >= first else None
        out.append(Boundary(quotes[0], conv.quotes_of_turn[t - 1][-1], before))
    return out


def _quote_text(ctx: BookContext, i: int) -> str:
    return " ".join(ctx.text[s:e] for s, e in ctx.quotes[i].spans).strip()


def turn_rows(ctx: BookContext, bounds: Sequence[Boundary]) -> np.ndarray:
    """TURN_FEATURES, one row per boundary."""
    conv = ctx.conversations
    paras = ctx.paragraphs
    rows = np.zeros((len(bounds), len(TURN_FEATURES)), dtype=np.float32)
    for r, b in enumerate(bounds):
        q, p = ctx.quotes[b.quote], ctx.quotes[b.last]
        text, last = _quote_text(ctx, b.quote), _quote_text(ctx, b.last)
        last_char = last.rstrip(" '\"’”")[-1:]
        opener = _WORD.findall(text[:20])
        turn = conv.turn_of[b.quote]
        rows[r] = [
            q.paragraph - p.paragraph,
            math.log1p(max(0, q.start - paras[q.paragraph].start)),
            math.log1p(max(0, paras[p.paragraph].end - p.end)),
            _END.get(last_char, 0),
            text[:1].islower(),
            text[:1] in "—-",
            math.log1p(q.words),
            math.log1p(p.words),
            bool(q.cue_characters),
            q.cue_pronoun is not None,
            bool(p.cue_characters),
            p.cue_pronoun is not None,
            len(conv.quotes_of_turn[conv.turn_of[b.last]]),
            len(p.vocatives),
            len(q.vocatives),
            turn - conv.first_turn[turn],
            len(ctx.mentions_between(paras[p.paragraph].end, paras[q.paragraph].start)),
            _OPENERS.get(opener[0].lower(), 0) if opener else -1,
            last.endswith("?"),
            len(q.inside),
            len(p.inside),
        ]
    return rows


def turn_labels(bounds: Sequence[Boundary], labels: Sequence[int | None]) -> list[int | None]:
    """REPEAT / ALTERNATE / NEW from gold speakers, None where a speaker is unknown (or
    ``labels`` stops short of the quotation)."""

    def gold(i: int | None) -> int | None:
        return labels[i] if i is not None and i < len(labels) else None

    out: list[int | None] = []
    for b in bounds:
        now, last, before = gold(b.quote), gold(b.last), gold(b.before_last)
        if now is None or last is None:
            out.append(None)
        elif now == last:
            out.append(REPEAT)
        elif b.before_last is not None and before is None:
            out.append(None)  # it might be the speaker of two turns back
        else:
            out.append(ALTERNATE if now == before else NEW)
    return out


def fit_turn_model(books: Sequence[tuple[BookContext, Sequence[int | None]]], seed: int = 0) -> HistGradientBoostingClassifier:
    """The change-of-speaker model from books with gold speakers (character indexes)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    xs, ys = [], []
    for ctx, labels in books:
        bounds = boundaries(ctx)
        kinds = turn_labels(bounds, labels)
        keep = [k for k, y in enumerate(kinds) if y is not None]
        if keep:
            xs.append(turn_rows(ctx, [bounds[k] for k in keep]))
            ys.extend(kinds[k] for k in keep)
    if len(set(ys)) < 2:
        raise ValueError("training the turn-taking model needs conversations with gold speakers")
    model = HistGradientBoostingClassifier(
        max_iter=200, learning_rate=0.05, max_leaf_nodes=31, min_samples_leaf=50, random_state=seed
    )
    return model.fit(np.vstack(xs), np.asarray(ys))


def change_odds(ctx: BookContext, model: HistGradientBoostingClassifier) -> dict[int, np.ndarray]:
    """For each quotation that opens a new turn: log-probabilities of repeat, alternate, new."""
    bounds = boundaries(ctx)
    if not bounds:
        return {}
    proba = np.zeros((len(bounds), 3))
    proba[:, model.classes_] = model.predict_proba(turn_rows(ctx, bounds))  # a kind never seen in training stays 0
    logp = np.log(np.maximum(proba, _CHANGE_FLOOR))
    return {b.quote: logp[r] for r, b in enumerate(bounds)}


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    m = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(a - m), axis=axis))


def _runs(ctx: BookContext, dists: Sequence[dict[int, float]]) -> list[list[int]]:
    """The quotations with candidates of each conversation of two quotations or more."""
    conv = ctx.conversations
    runs: dict[int, list[int]] = {}
    for i in range(len(ctx.quotes)):
        if any(p > 0 for p in dists[i].values()):
            runs.setdefault(conv.first_turn[conv.turn_of[i]], []).append(i)
    return [r for r in runs.values() if len(r) > 1]


def turn_taking(
    ctx: BookContext,
    dists: Sequence[dict[int, float]],
    odds: dict[int, np.ndarray],
    params: TurnTaking = TurnTaking(),
) -> list[dict[int, float]]:
    """Each quotation's speaker distribution given its whole conversation.

    ``odds`` maps a quotation that opens a turn to the log-probabilities of repeat,
    alternate and new (:func:`change_odds`); a quotation not in it opens no turn."""
    out = [dict(d) for d in dists]
    conv = ctx.conversations
    turn = conv.turn_of
    even = np.log(np.full(3, 1.0 / 3))
    for run in _runs(ctx, dists):
        cands, emit = [], []
        for i in run:
            top = sorted(((c, p) for c, p in dists[i].items() if p > 0), key=lambda kv: -kv[1])[:TOP]  # ruled out: 0
            cands.append(np.array([c for c, _ in top]))
            q = ctx.quotes[i]
            weight = params.own_named if q.cue_characters else params.own_pronoun if q.cue_pronoun else params.own
            emit.append(weight * np.log(np.maximum([p for _, p in top], _FLOOR)))
        # forward[s][x, y]: speaker x of quotation s, speaker y of the previous turn's last quotation
        before = [np.array([-1])]
        fwd = [emit[0][:, None]]
        moves: list[tuple[bool, np.ndarray]] = [(True, np.zeros(0))]
        for s in range(1, len(run)):
            now, last = cands[s], cands[s - 1]
            if turn[run[s]] == turn[run[s - 1]]:
                move = np.where(now[:, None] == last[None, :], 0.0, params.switch_in_paragraph)  # [x, x']
                before.append(before[-1])
                fwd.append(emit[s][:, None] + _logsumexp(fwd[-1][None, :, :] + move[:, :, None], axis=1))
                moves.append((True, move))
            else:
                logp = odds.get(run[s], even)
                move = np.where(
                    now[:, None, None] == last[None, :, None],
                    logp[REPEAT],
                    np.where(now[:, None, None] == before[-1][None, None, :], logp[ALTERNATE], logp[NEW]),
                )  # [x, x', y']
                addressed = {c for j in conv.quotes_of_turn[turn[run[s - 1]]] for c in ctx.quotes[j].vocatives}
                if addressed:
                    move = move + params.answers_address * np.isin(now, list(addressed))[:, None, None]
                before.append(last)
                fwd.append(emit[s][:, None] + _logsumexp(fwd[-1][None, :, :] + move, axis=2))
                moves.append((False, move))
        back = [np.zeros_like(f) for f in fwd]
        for s in range(len(run) - 1, 0, -1):
            same_turn, move = moves[s]
            nxt = back[s] + emit[s][:, None]
            if same_turn:
                back[s - 1] = _logsumexp(move[:, :, None] + nxt[:, None, :], axis=0)
            else:
                back[s - 1] = _logsumexp(move + nxt[:, :, None], axis=0)
        for s, i in enumerate(run):
            m = _logsumexp(fwd[s] + back[s], axis=1)
            p = np.exp(m - m.max())
            p /= p.sum()
            out[i] = {c: 0.0 for c in dists[i]}
            out[i].update({int(c): float(v) for c, v in zip(cands[s], p)})
    return out
