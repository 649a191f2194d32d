"""Candidates and features for the CPU speaker ranker.

For each quotation, the candidates are the characters mentioned near it (twenty paragraphs
before to three after, and from five paragraphs before its conversation opened), the
characters any cue of its conversation names, and the characters the neighbouring
quotations' cues name, the writer a letter's signature names, the book's six most
mentioned characters and (in a first-person book) the likely narrator; each (quotation, candidate) pair becomes one row of numbers.
Each later pass adds the previous pass's answers for the neighbouring quotations (turn
taking: in a two-person exchange the speaker of quotation i is often the speaker of i-2
and the person addressed by i-1).

Turn taking reaches further than the neighbours: in a conversation (a run of paragraphs
with speech, at most one paragraph of narration apart, within a chapter) every turn an
even number of turns away is likely the same speaker and every turn an odd number away the
other one. Every pass reads the whole conversation that way: the first from the speakers
its cues name, the later ones from the previous pass's answers.

Characters talk in their own words ("my dear", "ain't", "Pooh Bear", a pet subject), and
speakers pick up their own phrases within a conversation. A later pass also measures how
much a quotation's words resemble what each candidate says in the rest of the book, by
the previous pass's answers: tf-idf vectors of the quotations, each candidate's vector
the answers' probabilities times the quotations' vectors, the quotation itself left out.

Who is present talks: a later pass also reads, by the previous pass's answers and always
leaving the quotation itself out, how much each candidate says in the whole book (and
against how often the narration names them: some characters are named often and say
little), in the chapter and in the conversation, and how many turns back and ahead the
candidate last and next spoke in the conversation. In a scene of four or five people the
parity of turns tells little; who has been talking there tells more.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter

import numpy as np

from litlens.attribution.context import BookContext
from litlens.quotes.lexicon import SPEECH_VERBS

_WORDS = re.compile(r"[A-Za-z]+")

WINDOW_BEFORE = 20  # paragraphs
WINDOW_AFTER = 3
PROMINENT = 6  # the most mentioned characters of the book are always candidates
NEIGHBOURS = (-3, -2, -1, 1, 2, 3)
CONVERSATION_LEAD = 5  # paragraphs before a conversation whose mentions stay candidates all through it
_CUE_KIND = {None: 0, "name": 1, "pronoun": 2, "noun": 3}
_CUE_WHERE = {"none": 0, "after": 1, "between": 2, "before": 3}
_GENDER = {"male": 1, "female": 2}

BASE_FEATURES = [
    "cue_kind", "cue_where", "cue_name", "cue_name_n", "cue_pron_match", "cue_first", "cue_other", "cue_noun",
    "vocative", "inside", "dist_before", "dist_after", "rank_before", "rank_after", "rank_before_gender",
    "para_before", "para_after", "para_first", "prev_para_narr", "prev_para_quote", "next_para_narr",
    "window", "log_total", "freq_rank", "chapter_count", "gender", "words", "first_in_para", "last_in_para",
    "gap_prev", "gap_next", "n_candidates", "adj_after_first", "adj_after_dist", "adj_before_last", "adj_before_first",
    "adj_after_verb", "adj_before_verb", "near_window", "first_person", "narrator_score", "is_narrator",
    "subject_before", "subject_before_sex",
] + [f"nb{k}_cue" for k in NEIGHBOURS] + [f"nb{k}_voc" for k in NEIGHBOURS]
CONVERSATION_FEATURES = [
    "conv_turns", "conv_cue_speakers", "conv_same_cue", "conv_same_near", "conv_other_cue", "conv_other_near",
    "conv_same_voc", "conv_other_voc", "conv_same_narr", "conv_other_narr", "conv_same_sex", "conv_other_sex",
]
BASE_FEATURES += CONVERSATION_FEATURES
SECOND_FEATURES = [f"p1_nb{k}" for k in NEIGHBOURS] + [
    "p1_self", "p1_self_rank", "p1_nb-1_same_para", "p1_alt", "p1_conv_same", "p1_conv_other", "p1_conv_balance",
    "p1_style_sim", "p1_style_lead",
    "p1_book_share", "p1_talk_ratio", "p1_chapter_share", "p1_conv_share", "p1_last_turns", "p1_next_turns",
]
STYLE_MIN_P = 0.05  # answers less likely than this leave a candidate's vector alone
SPOKE_P = 0.5  # a turn whose previous-pass answer gives a character this much is theirs
FAR_TURNS = 30  # "turns since (until) the candidate spoke" when they do not in the conversation


_CLAUSE_OPENERS = frozenset(
    "and but then when while whilst as till until before after because though although that so yet".split()
)
_NOT_AFTER_SUBJECT = frozenset("and or of who whom whose which".split())


def _subject_position(text: str, start: int, end: int) -> bool:
    """A mention that opens a clause and is followed by its verb or a parenthesis: "Miss
    Crawford listened", "and Henry Crawford, to whom ..., was", "when Mr. Brownlow stepped"."""
    before = text[max(0, start - 30):start].rstrip(" \t\n\"'’”“")
    words = _WORDS.findall(before[-12:])
    opens = (not before or before[-1] in ".!?;:—-(" or (words and words[-1].lower() in _CLAUSE_OPENERS
                                                          and before.endswith(words[-1])))
    if not opens:
        return False
    after = text[end:end + 30]
    if after[:2] in ("'s", "’s"):
        return False
    if after.lstrip()[:1] == ",":
        return True
    nxt = _WORDS.findall(after)
    return bool(nxt) and nxt[0][:1].islower() and nxt[0].lower() not in _NOT_AFTER_SUBJECT


def _has_speech_verb(segment: str) -> bool:
    return any(w.lower() in SPEECH_VERBS for w in _WORDS.findall(segment))


def candidates(ctx: BookContext) -> list[list[int]]:
    """Candidate character indexes for each quotation."""
    paras = ctx.paragraphs
    prominent = sorted(range(len(ctx.characters)), key=lambda ci: -ctx.total_mentions[ci])[:PROMINENT]
    conv = ctx.conversations
    named: dict[int, set[int]] = {}  # first turn of a conversation -> the characters its cues name
    for i, qc in enumerate(ctx.quotes):
        named.setdefault(conv.first_turn[conv.turn_of[i]], set()).update(qc.cue_characters)
    out = []
    for i, qc in enumerate(ctx.quotes):
        first = conv.first_turn[conv.turn_of[i]]
        opening = conv.turn_paragraph[first] - CONVERSATION_LEAD
        lo = paras[max(0, min(qc.paragraph - WINDOW_BEFORE, opening))].start
        hi = paras[min(len(paras) - 1, qc.paragraph + WINDOW_AFTER)].end
        found = {ci for m in ctx.mentions_between(lo, hi) for ci in m.characters}
        found.update(named[first])
        found.update(qc.cue_noun_characters)
        found.update(qc.signed)
        found.update(ci for ci in prominent if ctx.total_mentions[ci] > 0)
        if ctx.narrator is not None:
            found.add(ctx.narrator)
        for k in (-2, -1, 1, 2):
            j = i + k
            if 0 <= j < len(ctx.quotes) and abs(ctx.quotes[j].paragraph - qc.paragraph) <= 6:
                found.update(ctx.quotes[j].cue_characters)
        out.append(sorted(found))
    return out


def recent_mentions(ctx: BookContext, pos: int, limit: int, forward: bool) -> dict[int, tuple[int, int]]:
    """Character -> (rank, distance) of the nearest narration mentions before (or after) ``pos``."""
    found: dict[int, tuple[int, int]] = {}
    starts = ctx.mention_starts
    if forward:
        k = bisect.bisect_left(starts, pos)
        step = 1
    else:
        k = bisect.bisect_left(starts, pos) - 1
        step = -1
    seen = 0
    while 0 <= k < len(ctx.mentions) and seen < 400:
        m = ctx.mentions[k]
        dist = (m.start - pos) if forward else (pos - m.end)
        if dist > limit:
            break
        if not m.in_quote:
            for ci in m.characters:
                if ci not in found:
                    found[ci] = (len(found) + 1, max(0, dist))
        k += step
        seen += 1
    return found


def base_rows(ctx: BookContext, cands: list[list[int]]) -> list[np.ndarray]:
    """One matrix of BASE_FEATURES per quotation (a row per candidate)."""
    text = ctx.text
    paras = ctx.paragraphs
    genders = [_GENDER.get(c.gender, 0) for c in ctx.characters]
    order = sorted(range(len(ctx.characters)), key=lambda ci: -ctx.total_mentions[ci])
    freq_rank = {ci: r + 1 for r, ci in enumerate(order)}
    # mentions per chapter
    chapter_counts: dict[int, Counter] = {}
    p_starts = [p.start for p in paras]
    for m in ctx.mentions:
        pi = max(0, bisect.bisect_right(p_starts, m.start) - 1)
        chapter_counts.setdefault(ctx.chapter_of_paragraph[pi], Counter()).update(m.characters)
    out = []
    nq = len(ctx.quotes)
    for i, qc in enumerate(ctx.quotes):
        cs = cands[i]
        para = paras[qc.paragraph]
        before = recent_mentions(ctx, qc.start, 6000, forward=False)
        after = recent_mentions(ctx, qc.end, 6000, forward=True)
        want = qc.cue_pronoun if qc.cue_pronoun in ("male", "female") else None
        gendered = [ci for ci, _ in sorted(before.items(), key=lambda t: t[1][0]) if want and ctx.characters[ci].gender == want]
        g_rank = {ci: r + 1 for r, ci in enumerate(gendered)}
        para_m = ctx.mentions_between(para.start, para.end)
        para_before = Counter(ci for m in para_m if not m.in_quote and m.end <= qc.start for ci in m.characters)
        para_after = Counter(ci for m in para_m if not m.in_quote and m.start >= qc.end for ci in m.characters)
        first_m = para_m[0] if para_m and not para_m[0].in_quote and para_m[0].start - para.start <= 4 else None
        prev_para = paras[qc.paragraph - 1] if qc.paragraph > 0 else None
        pp_m = ctx.mentions_between(prev_para.start, prev_para.end) if prev_para else []
        pp_narr = Counter(ci for m in pp_m if not m.in_quote for ci in m.characters)
        pp_quote = Counter(ci for m in pp_m if m.in_quote for ci in m.characters)
        next_para = paras[qc.paragraph + 1] if qc.paragraph + 1 < len(paras) else None
        np_m = ctx.mentions_between(next_para.start, next_para.end) if next_para else []
        np_narr = Counter(ci for m in np_m if not m.in_quote for ci in m.characters)
        lo = paras[max(0, qc.paragraph - WINDOW_BEFORE)].start
        hi = paras[min(len(paras) - 1, qc.paragraph + WINDOW_AFTER)].end
        window = Counter(ci for m in ctx.mentions_between(lo, hi) for ci in m.characters)
        inside = Counter(ci for m in qc.inside for ci in m.characters)
        near_lo = paras[max(0, qc.paragraph - 3)].start
        near = Counter(ci for m in ctx.mentions_between(near_lo, para.end) for ci in m.characters)
        a_lo = qc.end
        a_hi = para.end if qc.last_in_paragraph or i + 1 >= nq else ctx.quotes[i + 1].start
        b_lo = para.start if qc.first_in_paragraph or i == 0 else ctx.quotes[i - 1].end
        b_hi = qc.start
        a_m = [m for m in ctx.mentions_between(a_lo, a_hi) if not m.in_quote]
        b_m = [m for m in ctx.mentions_between(b_lo, b_hi) if not m.in_quote]
        a_first = set(a_m[0].characters) if a_m else set()
        a_dist = a_m[0].start - a_lo if a_m else 500
        b_last = set(b_m[-1].characters) if b_m else set()
        b_first = set(b_m[0].characters) if b_m else set()
        # the nearest clause subject in the narration before (of the cue pronoun's sex when there is one)
        subjects = [m for m in [*reversed(b_m), *(reversed([m for m in pp_m if not m.in_quote]) if qc.first_in_paragraph else ())]
                    if len(m.characters) == 1 and _subject_position(text, m.start, m.end)]
        subj_any = subjects[0].characters[0] if subjects else None
        subj_sex = next((m.characters[0] for m in subjects if want and ctx.characters[m.characters[0]].gender == want), None)
        a_verb = _has_speech_verb(text[a_lo:min(a_hi, a_lo + 80)])
        b_verb = _has_speech_verb(text[max(b_lo, b_hi - 80):b_hi])
        chap = chapter_counts.get(ctx.chapter_of_paragraph[qc.paragraph], Counter())
        gap_prev = qc.paragraph - ctx.quotes[i - 1].paragraph if i > 0 else 50
        gap_next = ctx.quotes[i + 1].paragraph - qc.paragraph if i + 1 < nq else 50
        nb_cue = {}
        nb_voc = {}
        for k in NEIGHBOURS:
            j = i + k
            if 0 <= j < nq and abs(ctx.quotes[j].paragraph - qc.paragraph) <= 8:
                nb_cue[k] = set(ctx.quotes[j].cue_characters) if len(ctx.quotes[j].cue_characters) == 1 else set()
                nb_voc[k] = set(ctx.quotes[j].vocatives)
            else:
                nb_cue[k] = set()
                nb_voc[k] = set()
        rows = np.zeros((len(cs), len(BASE_FEATURES)), dtype=np.float32)
        for r, ci in enumerate(cs):
            g = genders[ci]
            pron = 0
            if want:
                pron = 1 if ctx.characters[ci].gender == want else (-1 if g else 0)
            b = before.get(ci)
            a = after.get(ci)
            row = [
                _CUE_KIND[qc.cue.subject if qc.cue else None],
                _CUE_WHERE[qc.cue_where],
                ci in qc.cue_characters,
                len(qc.cue_characters),
                pron,
                qc.cue_pronoun == "first",
                qc.cue_pronoun == "other",
                ci in qc.cue_noun_characters,
                ci in qc.vocatives,
                inside[ci],
                math.log1p(b[1]) if b else 10.0,
                math.log1p(a[1]) if a else 10.0,
                b[0] if b else 50,
                a[0] if a else 50,
                g_rank.get(ci, 50),
                para_before[ci],
                para_after[ci],
                bool(first_m and ci in first_m.characters),
                pp_narr[ci],
                pp_quote[ci],
                np_narr[ci],
                window[ci],
                math.log1p(ctx.total_mentions[ci]),
                freq_rank[ci],
                math.log1p(chap[ci]),
                g,
                math.log1p(qc.words),
                qc.first_in_paragraph,
                qc.last_in_paragraph,
                min(gap_prev, 50),
                min(gap_next, 50),
                len(cs),
                ci in a_first,
                math.log1p(a_dist) if ci in a_first else 7.0,
                ci in b_last,
                ci in b_first,
                a_verb,
                b_verb,
                near[ci],
                ctx.first_person,
                ctx.narrator_score[ci],
                ci == ctx.narrator,
                ci == subj_any,
                ci == subj_sex,
            ]
            row += [ci in nb_cue[k] for k in NEIGHBOURS]
            row += [ci in nb_voc[k] for k in NEIGHBOURS]
            rows[r, : len(row)] = row
        out.append(rows)
    for rows, extra in zip(out, conversation_rows(ctx, cands)):
        rows[:, -len(CONVERSATION_FEATURES):] = extra
    return out


def conversation_rows(ctx: BookContext, cands: list[list[int]]) -> list[np.ndarray]:
    """One matrix of CONVERSATION_FEATURES per quotation: what the other turns of its
    conversation tell about each candidate, split by parity (an even number of turns away,
    the same speaker; odd, the other one) and weighted by 1 / distance where noted."""
    conv = ctx.conversations
    paras = ctx.paragraphs
    turn_cue: list[int | None] = []  # the one character a turn's cues name ("I said": the narrator), if one
    turn_sex: list[str | None] = []  # the speaker's sex that a turn's cues tell ("she said"), if they agree
    for qs in conv.quotes_of_turn:
        named = {ci for j in qs if len(ctx.quotes[j].cue_characters) == 1 for ci in ctx.quotes[j].cue_characters}
        if ctx.narrator is not None and any(ctx.quotes[j].cue_pronoun == "first" for j in qs):
            named.add(ctx.narrator)
        turn_cue.append(next(iter(named)) if len(named) == 1 else None)
        sexes = {ctx.quotes[j].cue_pronoun for j in qs} & {"male", "female"}
        turn_sex.append(next(iter(sexes)) if len(sexes) == 1 else None)
    # whom each turn addresses by name, and whom its paragraph's narration names
    turn_voc = [{ci for j in qs for ci in ctx.quotes[j].vocatives} for qs in conv.quotes_of_turn]
    turn_narr = [{ci for m in ctx.mentions_between(paras[p].start, paras[p].end) if not m.in_quote for ci in m.characters}
                 for p in conv.turn_paragraph]
    out = []
    for i in range(len(ctx.quotes)):
        others = conv.others(i)
        cue = (Counter(), Counter())  # same parity, other parity: character -> turns its cues name
        near: tuple[dict[int, float], dict[int, float]] = ({}, {})  # character -> 1 / distance of the nearest
        voc: tuple[dict[int, float], dict[int, float]] = ({}, {})  # character -> sum of 1 / distance
        narr: tuple[dict[int, float], dict[int, float]] = ({}, {})
        sex = ({"male": 0.0, "female": 0.0}, {"male": 0.0, "female": 0.0})  # sex told -> sum of 1 / distance
        for u, dist in others:
            parity = dist % 2
            if turn_cue[u] is not None:
                cue[parity][turn_cue[u]] += 1
                near[parity][turn_cue[u]] = max(near[parity].get(turn_cue[u], 0.0), 1.0 / dist)
            if turn_sex[u] is not None:
                sex[parity][turn_sex[u]] += 1.0 / dist
            for found, table in ((turn_voc[u], voc[parity]), (turn_narr[u], narr[parity])):
                for ci in found:
                    table[ci] = table.get(ci, 0.0) + 1.0 / dist
        speakers = len({turn_cue[u] for u, _ in others if turn_cue[u] is not None})
        rows = np.zeros((len(cands[i]), len(CONVERSATION_FEATURES)), dtype=np.float32)
        for r, ci in enumerate(cands[i]):
            own_sex = ctx.characters[ci].gender
            other_sex = {"male": "female", "female": "male"}.get(own_sex or "")
            rows[r] = [
                len(others) + 1, speakers,
                cue[0][ci], near[0].get(ci, 0.0), cue[1][ci], near[1].get(ci, 0.0),
                voc[0].get(ci, 0.0), voc[1].get(ci, 0.0), narr[0].get(ci, 0.0), narr[1].get(ci, 0.0),
                *(sex[k][own_sex] - sex[k][other_sex] if other_sex else 0.0 for k in (0, 1)),
            ]
        out.append(rows)
    return out


def second_rows(ctx: BookContext, cands: list[list[int]], first: list[dict[int, float]]) -> list[np.ndarray]:
    """SECOND_FEATURES from the previous pass's probabilities ``first[i][character]``."""
    out = []
    nq = len(ctx.quotes)
    conv = ctx.conversations
    turn_p: list[dict[int, float]] = []  # a turn's answer from the previous pass: its quotations' mean
    for qs in conv.quotes_of_turn:
        total: Counter = Counter()
        for j in qs:
            total.update(first[j])
        turn_p.append({c: v / len(qs) for c, v in total.items()})
    style = style_similarity(ctx, cands, first)
    book_talk: Counter = Counter()  # character -> sum of the answers' probabilities
    chapter_talk: dict[int, Counter] = {}
    chapter_quotes: Counter = Counter()
    for j, qj in enumerate(ctx.quotes):
        chapter = ctx.chapter_of_paragraph[qj.paragraph]
        book_talk.update(first[j])
        chapter_talk.setdefault(chapter, Counter()).update(first[j])
        chapter_quotes[chapter] += 1
    for i, qc in enumerate(ctx.quotes):
        chapter = ctx.chapter_of_paragraph[qc.paragraph]
        t = conv.turn_of[i]
        others = conv.others(i)
        conv_turns = [u for u, _ in others]
        cs = cands[i]
        same: Counter = Counter()
        other: Counter = Counter()
        w_same = w_other = 0.0
        for u, dist in others:
            w = 1.0 / dist  # nearer turns count more
            if dist % 2 == 0:
                same.update({c: w * v for c, v in turn_p[u].items()})
                w_same += w
            else:
                other.update({c: w * v for c, v in turn_p[u].items()})
                w_other += w
        rows = np.zeros((len(cs), len(SECOND_FEATURES)), dtype=np.float32)
        own = first[i]
        ranked = sorted(own, key=lambda c: -own[c])
        rank = {c: r + 1 for r, c in enumerate(ranked)}
        nb = {}
        for k in NEIGHBOURS:
            j = i + k
            ok = 0 <= j < nq and abs(ctx.quotes[j].paragraph - qc.paragraph) <= abs(k) + 1
            nb[k] = first[j] if ok else {}
        same_para = i > 0 and ctx.quotes[i - 1].paragraph == qc.paragraph
        for r, ci in enumerate(cs):
            vals = [nb[k].get(ci, 0.0) for k in NEIGHBOURS]
            p_prev = nb[-1].get(ci, 0.0)
            vals += [own.get(ci, 0.0), rank.get(ci, 50), p_prev if same_para else 0.0, nb[-2].get(ci, 0.0) * (1.0 - p_prev)]
            c_same = same[ci] / w_same if w_same else 0.0
            c_other = other[ci] / w_other if w_other else 0.0
            vals += [c_same, c_other, c_same - c_other]
            vals += list(style[i][r])
            mine = own.get(ci, 0.0)
            elsewhere = book_talk[ci] - mine
            in_chapter = chapter_talk[chapter][ci] - mine
            others_in_chapter = chapter_quotes[chapter] - 1
            vals += [
                math.log1p(100.0 * elsewhere / nq),
                elsewhere / (ctx.total_mentions[ci] + 1.0),
                in_chapter / others_in_chapter if others_in_chapter else 0.0,
                sum(turn_p[u].get(ci, 0.0) for u in conv_turns) / len(conv_turns) if conv_turns else 0.0,
                min((t - u for u in conv_turns if u < t and turn_p[u].get(ci, 0.0) >= SPOKE_P), default=FAR_TURNS),
                min((u - t for u in conv_turns if u > t and turn_p[u].get(ci, 0.0) >= SPOKE_P), default=FAR_TURNS),
            ]
            rows[r] = vals
        out.append(rows)
    return out


def quotation_vectors(ctx: BookContext):
    """L2-normalised tf-idf vectors (words and word pairs, in two quotations or more) of
    each quotation's words, one sparse row per quotation; None when no word repeats."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = [" ".join(ctx.text[s:e] for s, e in qc.spans) for qc in ctx.quotes]
    if len(texts) < 2:
        return None
    vectorizer = TfidfVectorizer(token_pattern=r"(?u)\b\w[\w'’]*\b", sublinear_tf=True, ngram_range=(1, 2), min_df=2)
    try:
        return vectorizer.fit_transform(texts)
    except ValueError:  # an empty vocabulary: no word occurs in two quotations
        return None


def style_similarity(ctx: BookContext, cands: list[list[int]], first: list[dict[int, float]]) -> list[np.ndarray]:
    """Per quotation, (cosine, lead over the best other candidate) of its words to each
    candidate's words elsewhere in the book, by the answers ``first[i][character]``."""
    from scipy import sparse

    out = [np.zeros((len(cs), 2), dtype=np.float32) for cs in cands]
    x = quotation_vectors(ctx)
    if x is None:
        return out
    rows, cols, vals = [], [], []
    for i, dist in enumerate(first):
        for ci, p in dist.items():
            if p > STYLE_MIN_P:
                rows.append(ci)
                cols.append(i)
                vals.append(p)
    weight = sparse.csc_matrix((vals, (rows, cols)), shape=(len(ctx.characters), len(ctx.quotes)))
    sums = (weight @ x).toarray()  # character -> weighted sum of its quotations' vectors
    sq = (sums * sums).sum(axis=1)
    dots = np.asarray(x @ sums.T)  # quotation x character
    self_sq = np.asarray(x.multiply(x).sum(axis=1)).ravel()
    for i, cs in enumerate(cands):
        if not cs:
            continue
        own = weight[cs, i].toarray().ravel()  # the quotation's own share of each candidate's sum
        # leave the quotation out of each candidate's vector: (sum - own * v) . v, |sum - own * v|
        dot = dots[i, cs] - own * self_sq[i]
        norm2 = np.maximum(sq[cs] - 2 * own * dots[i, cs] + own * own * self_sq[i], 0.0)
        sim = np.where(norm2 > 1e-12, dot / np.sqrt(np.maximum(norm2, 1e-12)), 0.0)
        # lead over the best other candidate: the best overall, or the second best for the best
        order = np.argsort(-sim, kind="stable")
        best_other = np.full(len(cs), sim[order[0]])
        best_other[order[0]] = sim[order[1]] if len(cs) > 1 else 0.0
        out[i][:, 0] = sim
        out[i][:, 1] = sim - best_other
    return out
