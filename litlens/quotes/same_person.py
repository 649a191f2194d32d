"""Step 4f of :mod:`litlens.quotes.characters`: a learned "same person?" decision.

The name rules (:mod:`~litlens.quotes.aliases`) join forms only when the names themselves
say so. What they leave apart is often still one person: a first name and a title +
surname never written together ("Cecil" and "Mr. Vyse"), a spelling variant ("Catharine"
and "Catherine"), a nickname. This module scores pairs of entries with a gradient-boosted
classifier (LightGBM) trained on PDNC's own character lists, and joins the pairs it is
confident about.

**Pairs scored**: every pair among the most mentioned entries, and any pair whose names
share a word, a diminutive or a near spelling.

**Features** (:data:`FEATURES`), all read off this book: how often each entry is named;
how their names relate (shared first name, surname, a word of one inside the other,
diminutive, spelling similarity, conflicting first names or surnames); honorific groups
and genders (honorific and pronoun votes) and whether they agree; how often the two are
named in one clause (two people) or near each other (one scene); whom else each is named
near (the same company); where in the book each is named; how much of each entry's naming
is inside quoted speech; speech-verb subjects; and how many other entries share the name.

**Joining**: the pairs are taken most probable first; two groups join when the pair's
probability reaches the model's threshold and no scored pair across them falls below a
share of it (the model's ``floor``: a father and a son are not joined through a third name). An ambiguous form whose
candidates all end up in one group joins that group.

The model and its threshold live in :mod:`litlens.quotes.learned` (one data-only file
with the "is this a person?" model of :mod:`litlens.quotes.people`).
"""

from __future__ import annotations

import bisect
import math
from collections import Counter, defaultdict
from difflib import SequenceMatcher
from typing import Any

import numpy as np

from litlens.quotes.aliases import Found, _hon_compatible, _opposite, _speaks_of, _Union
from litlens.quotes.gender import first_name_gender
from litlens.quotes.names import _DIMINUTIVES, _FIRST_NAME_TITLES, _HONORIFICS, _PARTICLES

TOP = 40  # every pair among this many most mentioned entries is scored
_WINDOW = 2  # sentences either side that count as "near"
_BINS = 20  # stretches of the book for the where-named profile

FEATURES = (
    "log_count_a", "log_count_b", "count_ratio", "rank_a", "rank_b",
    "words_a", "words_b", "bare_b", "bare_a", "the_a", "the_b",
    "share_word", "b_given_of_a", "b_surname_of_a", "a_given_of_b", "a_surname_of_b",
    "given_conflict", "surname_conflict", "diminutive", "name_similarity", "word_similarity",
    "contained", "contained_agree", "contained_others",
    "hon_gender_a", "hon_gender_b", "hon_compatible", "same_hon", "titled_a", "titled_b",
    "pron_male_a", "pron_female_a", "pron_male_b", "pron_female_b", "gender_agree", "gender_conflict",
    "shared_clauses", "shared_clause_share", "near_b", "near_a", "company", "where",
    "first_gap", "overlap", "speech_a", "speech_b", "tags_a", "tags_b", "ner_a", "ner_b",
    "sharers", "complement", "complement_rivals_a", "complement_rivals_b",
)


# --------------------------------------------------------------------------- features


def _words(entity) -> set[str]:
    return {w for f in entity.forms for w in f.words if w not in _PARTICLES and not w.endswith(".")}


def _given(entity) -> set[str]:
    return {f.words[0] for f in entity.forms if len(f.words) > 1 and f.hon != "the"}


def _surnames(entity) -> set[str]:
    out = {f.surname for f in entity.forms if len(f.words) > 1 and f.hon != "the"}
    out |= {f.words[0] for f in entity.forms
            if len(f.words) == 1 and f.hon and f.hon != "the" and _HONORIFICS[f.hon][2] == "surname"}
    return out


def _hon_sign(entity) -> int:
    g = entity.hon_gender()
    return 1 if g == "m" else -1 if g == "f" else 0


def _similar(a: str, b: str) -> float:
    return SequenceMatcher(None, a.lower(), b.lower()).ratio()


def _nicknames(words: set[str]) -> set[str]:
    out = set()
    for w in words:
        out |= set(_DIMINUTIVES.get(w, ()))
    return out


class _Profile:
    """What the features read about each entry of one book."""

    def __init__(self, found: Found):
        self.entities = [e for e in found.entities if e.forms]
        scan = found.scan
        text_len = max(len(scan.text), 1)
        owner = {id(f): i for i, e in enumerate(self.entities) for f in e.forms}
        self.count = [max(e.count, 0) for e in self.entities]
        order = sorted(range(len(self.entities)), key=lambda i: -self.count[i])
        self.rank = {i: r for r, i in enumerate(order)}
        self.top = order[:TOP]
        n = len(self.entities)
        self.where = np.zeros((n, _BINS))
        self.first = [1.0] * n
        self.last = [0.0] * n
        self.in_speech = [0] * n
        self.mentions = [0] * n
        self.near: list[Counter] = [Counter() for _ in range(n)]
        starts = [s for s, _ in found.speech]
        ends = [e for _, e in found.speech]
        occurrences = [(s, owner[id(f)], scan.sentence_of(s)) for s, _, f in found.occurrences if id(f) in owner]
        for s, i, _ in occurrences:
            x = s / text_len
            self.where[i, min(int(x * _BINS), _BINS - 1)] += 1
            self.first[i] = min(self.first[i], x)
            self.last[i] = max(self.last[i], x)
            self.mentions[i] += 1
            k = bisect.bisect_right(starts, s) - 1
            if k >= 0 and s < ends[k]:
                self.in_speech[i] += 1
        lo = 0
        for j, (_, i, sentence) in enumerate(occurrences):
            while occurrences[lo][2] < sentence - _WINDOW:
                lo += 1
            seen = set()
            for _, other, _ in occurrences[lo:j]:
                if other != i and other not in seen:
                    seen.add(other)
                    self.near[i][other] += 1
                    self.near[other][i] += 1
        self.segments = [e.segments() for e in self.entities]
        self.words = [_words(e) for e in self.entities]
        self.given = [_given(e) | {f.words[0] for f in e.forms if len(f.words) == 1 and not f.hon}
                      for e in self.entities]
        self.full_given = [_given(e) for e in self.entities]
        self.surnames = [_surnames(e) for e in self.entities]
        # a name the book never completes: first names never written with a surname
        # ("Gino"), and titles + surname never given a first name ("Signor Carella")
        self.given_only = [all(len(f.words) == 1 and not f.hon for f in e.forms) for e in self.entities]
        self.surname_only = [not self.full_given[k] and any(
            len(f.words) == 1 and f.hon and f.hon != "the" and f.hon not in _FIRST_NAME_TITLES for f in e.forms)
            for k, e in enumerate(self.entities)]
        self.sex = [e.gender(strong=False) or first_name_gender(e) for e in self.entities]
        self.sharers: Counter = Counter()
        for ws in self.words:
            for w in ws:
                self.sharers[w] += 1

    def candidates(self) -> list[tuple[int, int]]:
        pairs: set[tuple[int, int]] = set()
        top = self.top
        for x, i in enumerate(top):
            for j in top[x + 1:]:
                pairs.add((min(i, j), max(i, j)))
        by_word: dict[str, list[int]] = defaultdict(list)
        for i, ws in enumerate(self.words):
            for w in ws | _nicknames(self.given[i]):
                by_word[w].append(i)
        for ids in by_word.values():
            if len(ids) > 60:
                continue  # a word shared by a whole crowd says nothing about one pair
            for x, i in enumerate(ids):
                for j in ids[x + 1:]:
                    if i != j:
                        pairs.add((min(i, j), max(i, j)))
        frequent = [i for i in range(len(self.entities)) if self.rank[i] < 3 * TOP]
        for x, i in enumerate(frequent):
            for j in frequent[x + 1:]:
                key = (min(i, j), max(i, j))
                if key in pairs:
                    continue
                if any(len(u) >= 4 and len(v) >= 4 and u[:2] == v[:2] and _similar(u, v) >= 0.8
                       for u in self.words[i] for v in self.words[j]):
                    pairs.add(key)
        return sorted(pairs)

    def _complement(self, i: int, j: int) -> tuple[float, float, float]:
        """Is one entry a first name alone and the other a surname alone, and how many
        other entries of the right kind and a compatible sex could each one pair with?"""
        if self.given_only[i] and self.surname_only[j]:
            g, s = i, j
        elif self.given_only[j] and self.surname_only[i]:
            g, s = j, i
        else:
            return 0.0, 0.0, 0.0

        def rivals(k: int, other: int, kind: list[bool]) -> int:
            floor = self.count[other] / 4
            return sum(1 for x in self.top if x not in (i, j) and kind[x] and self.count[x] >= floor
                       and not _opposite(self.sex[x], self.sex[k]))

        return 1.0, float(rivals(g, s, self.surname_only)), float(rivals(s, g, self.given_only))

    def row(self, i: int, j: int) -> list[float]:
        # a is the more mentioned of the two
        if (self.count[j], -j) > (self.count[i], -i):
            i, j = j, i
        a, b = self.entities[i], self.entities[j]
        ca, cb = self.count[i], self.count[j]
        wa, wb = self.words[i], self.words[j]
        shared = self.segments[i] & self.segments[j]
        ga, gb = a.gender(strong=False), b.gender(strong=False)
        ma, fa = sum(f.male for f in a.forms), sum(f.female for f in a.forms)
        mb, fb = sum(f.male for f in b.forms), sum(f.female for f in b.forms)
        na, nb = self.near[i], self.near[j]
        keys = (set(na) | set(nb)) - {i, j}
        dot = sum(na[k] * nb[k] for k in keys)
        norm = math.sqrt(sum(na[k] ** 2 for k in keys) * sum(nb[k] ** 2 for k in keys))
        wa_, wb_ = self.where[i], self.where[j]
        wnorm = float(np.linalg.norm(wa_) * np.linalg.norm(wb_))
        hons_a, hons_b = a.honorifics() - {"the"}, b.honorifics() - {"the"}
        compatible = all(_hon_compatible(x, y) for x in hons_a for y in hons_b)
        name_a = " ".join(max(a.forms, key=lambda f: f.count).words)
        name_b = " ".join(max(b.forms, key=lambda f: f.count).words)
        word_sim = max((_similar(u, v) for u in wa for v in wb if u != v), default=0.0)
        contained = any(set(f.words) < set(g.words) or set(g.words) < set(f.words)
                        for f in a.forms for g in b.forms)
        inside = [(f, g) for f in b.forms for g in a.forms if set(f.words) <= set(g.words) and f.words != g.words]
        agree = compatible and not (ga and gb and ga != gb)
        others = sum(1 for k, ws in enumerate(self.words) if k not in (i, j) and wb and wb <= ws)
        overlap = max(0.0, min(self.last[i], self.last[j]) - max(self.first[i], self.first[j]))
        return [
            math.log1p(ca), math.log1p(cb), cb / max(ca, 1), self.rank[i], self.rank[j],
            max(len(f.words) for f in a.forms), max(len(f.words) for f in b.forms),
            float(all(len(f.words) == 1 and not f.hon for f in b.forms)),
            float(all(len(f.words) == 1 and not f.hon for f in a.forms)),
            float(any(f.hon == "the" for f in a.forms)), float(any(f.hon == "the" for f in b.forms)),
            float(bool(wa & wb)),
            float(bool(wb & self.given[i])), float(bool(wb & self.surnames[i])),
            float(bool(wa & self.given[j])), float(bool(wa & self.surnames[j])),
            float(bool(self.full_given[i] and self.full_given[j] and not self.full_given[i] & self.full_given[j])),
            float(bool(self.surnames[i] and self.surnames[j] and not self.surnames[i] & self.surnames[j])),
            float(bool(_nicknames(self.given[i]) & self.given[j] or _nicknames(self.given[j]) & self.given[i])),
            _similar(name_a, name_b), word_sim, float(contained), float(bool(inside) and agree), others,
            _hon_sign(a), _hon_sign(b), float(compatible), float(bool(hons_a & hons_b)),
            float(a.titled()), float(b.titled()),
            ma / max(ma + fa, 1), fa / max(ma + fa, 1), mb / max(mb + fb, 1), fb / max(mb + fb, 1),
            float(bool(ga and ga == gb)), float(bool(ga and gb and ga != gb)),
            len(shared), len(shared) / max(min(len(self.segments[i]), len(self.segments[j])), 1),
            nb[i] / max(self.mentions[j], 1), na[j] / max(self.mentions[i], 1),
            dot / norm if norm else 0.0, float(wa_ @ wb_) / wnorm if wnorm else 0.0,
            self.first[j] - self.first[i], overlap,
            self.in_speech[i] / max(self.mentions[i], 1), self.in_speech[j] / max(self.mentions[j], 1),
            math.log1p(sum(f.tags for f in a.forms)), math.log1p(sum(f.tags for f in b.forms)),
            sum(f.ner for f in a.forms) / max(ca, 1), sum(f.ner for f in b.forms) / max(cb, 1),
            max((self.sharers[w] for w in wb), default=0),
            *self._complement(i, j),
        ]


def pair_rows(found: Found) -> tuple[list[tuple[Any, Any]], np.ndarray]:
    """The candidate pairs of entries of one book and their feature rows."""
    profile = _Profile(found)
    pairs = profile.candidates()
    rows = np.array([profile.row(i, j) for i, j in pairs], dtype=float).reshape(len(pairs), len(FEATURES))
    return [(profile.entities[i], profile.entities[j]) for i, j in pairs], rows


# --------------------------------------------------------------------------- joining


def join_pairs(found: Found, pairs: list, probabilities: np.ndarray, threshold: float,
               floor: float = 0.5) -> Found:
    """A new :class:`Found` whose entries join the confident pairs (see the module docs)."""
    entities = [e for e in found.entities if e.forms]
    index = {id(e): k for k, e in enumerate(entities)}
    union = _Union(len(entities))
    scored: dict[tuple[int, int], float] = {}
    for (a, b), p in zip(pairs, probabilities):
        i, j = index[id(a)], index[id(b)]
        scored[(min(i, j), max(i, j))] = float(p)
    members = {k: [k] for k in range(len(entities))}
    # the sex a title or a first name states outright ("Miss Bingley"; "Charles", "Jim")
    sexes = {k: {e.hon_gender() or first_name_gender(e)} - {""} for k, e in enumerate(entities)}
    for (i, j), p in sorted(scored.items(), key=lambda kv: (-kv[1], kv[0])):
        if p < threshold:
            break
        ri, rj = union.root(i), union.root(j)
        if ri == rj:
            continue
        cross = [scored.get((min(x, y), max(x, y))) for x in members[ri] for y in members[rj]]
        if any(q is not None and q < floor * threshold for q in cross):
            continue
        if len(sexes[ri] | sexes[rj]) > 1:
            continue  # a woman and a man: Miss Bingley is not her brother "Charles"
        if _speaks_of(entities[i].forms, entities[j]):
            continue  # one names the other in the speech it tags: two people
        union.join(i, j)
        members[ri] += members.pop(rj)
        sexes[ri] |= sexes.pop(rj)
    out, ambiguous = union.apply(entities, found.ambiguous)
    return Found(found.scan, out, ambiguous, found.occurrences, found.speech)
