"""Step 4g of :mod:`litlens.quotes.characters`: a learned "is this entry a person?" decision.

After grouping, an entry can still be a place the NER tagged as a person, a sentence
opening, a misread word or a one-off name nobody needs. Each entry is scored by a
gradient-boosted classifier (LightGBM) trained on PDNC's own character lists (an entry is a
person when it stands for a listed character) and entries under the model's threshold are
left out of the list, so no quotation can be given to them.

**Features** (:data:`KEEP_FEATURES`), read off this book: how often the entry is named and
its rank; its name forms (words, honorific and its gender, a title, a "the" description, a
bare word); the share of its mentions the NER tagged PERSON; how often it is the subject of
a speech verb and how many detected quotations name it as the speaker; the share of its
mentions inside quoted speech and after "at", "in", "to", ... (places); pronoun votes per
mention; how its words are written elsewhere in the book (in lower case, after "the" or
"a", at sentence starts only, before a place word such as "Street"); how widely it is
spread through the book and how many other entries are named near it; whether its words
are part of a more mentioned entry's name. An entry that speaks, or is addressed in a
quotation by a title, by a name the NER mostly calls a person or by words the book never
writes in lower case, is never left out.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from litlens.quotes.aliases import Found
from litlens.quotes.described import description
from litlens.quotes.lexicon import NAME_PARTICLES, elided_particle
from litlens.quotes.names import _HONORIFIC_SPELLINGS, _PARTICLES, _SPACE, _UP

_LOWER_PARTICLE = "(?:" + "|".join(sorted(NAME_PARTICLES, key=len, reverse=True)) + r")\b|d['’](?=[A-Z])\S+"
from litlens.quotes.same_person import _Profile

KEEP_FEATURES = (
    "log_count", "rank", "relative_rank", "forms", "max_words", "has_hon", "hon_gender", "titled",
    "the_form", "bare", "ner_share", "log_tags", "log_quotes", "speech_share", "locative_share",
    "pronouns_per_mention", "male_share", "lower_ratio", "after_the_share", "after_article_share",
    "initial_share", "place_head", "spread", "bins", "log_company", "inside_bigger",
)


def _normal(alias: str) -> str:
    return _SPACE.sub(" ", alias.replace(".", " ")).strip().lower()


def _written_keys(form) -> set[str]:
    """A form as the text writes it, its title included ("sir henry", not "henry")."""
    words = " ".join(form.words)
    return {_normal(s) for s in form.surfaces} | {_normal(f"{form.hon} {words}" if form.hon else words)}


def _form_keys(form) -> set[str]:
    """The written keys and the bare name words ("henry" of "Sir Henry")."""
    return _written_keys(form) | {_normal(" ".join(form.words))}


def entry_rows(found: Found, quotations: list | None = None) -> np.ndarray:
    """One feature row per entry of ``found`` (in its order)."""
    profile = _Profile(found)
    scan = found.scan
    speakers: dict[str, int] = {}
    for q in quotations or []:
        if getattr(q, "speaker", None):
            key = _normal(q.speaker)
            speakers[key] = speakers.get(key, 0) + 1
    n = len(profile.entities)
    bigger_words: list[set[str]] = []
    order = sorted(range(n), key=lambda i: -profile.count[i])
    seen: set[str] = set()
    for i in order:
        bigger_words.append(set(seen))
        seen |= profile.words[i]
    inside = {i: bigger_words[r] for r, i in enumerate(order)}
    rows = []
    for i, e in enumerate(profile.entities):
        count = max(profile.count[i], 1)
        forms = e.forms
        words = [w for w in profile.words[i] if w not in _PARTICLES] or [forms[0].words[-1]]
        words = [w.split()[-1] for w in words]  # "de Bourgh" is written as "Bourgh" is
        mid = sum(scan.capitalised_mid[w] for w in words)
        total = sum(scan.words[w] for w in words)
        lower = sum(scan.lower_count(w) for w in words)
        quotes = sum(speakers.get(k, 0) for k in set().union(*(_form_keys(f) for f in forms)))
        male, female = sum(f.male for f in forms), sum(f.female for f in forms)
        hon = e.hon_gender()
        rows.append([
            math.log1p(profile.count[i]), profile.rank[i], profile.rank[i] / max(n, 1), len(forms),
            max(len(f.words) for f in forms), float(any(f.hon and f.hon != "the" for f in forms)),
            1 if hon == "m" else -1 if hon == "f" else 0, float(e.titled()),
            float(any(f.hon == "the" for f in forms)),
            float(all(len(f.words) == 1 and not f.hon for f in forms)),
            sum(f.ner for f in forms) / count, math.log1p(sum(f.tags for f in forms)), math.log1p(quotes),
            profile.in_speech[i] / max(profile.mentions[i], 1), sum(f.locative for f in forms) / count,
            (male + female) / count, male / max(male + female, 1),
            lower / max(mid, 1), sum(scan.after_the[w] for w in words) / max(mid, 1),
            sum(scan.after_article[w] for w in words) / max(mid, 1), (total - mid) / max(total, 1),
            float(any(w in scan.place_heads for w in words)),
            max(0.0, profile.last[i] - profile.first[i]), float((profile.where[i] > 0).sum()),
            math.log1p(len(profile.near[i])), float(bool(set(words) & inside[i])),
        ])
    return np.array(rows, dtype=float).reshape(n, len(KEEP_FEATURES))


CUED_TWICE = 2  # explicit cues naming a form that make its entry a speaker
ADDRESSED_NER = 0.5  # share of its mentions the NER calls a person that lets an untitled common word in address stay
_CUE_NAME = re.compile(rf"(?:[{_UP}][\w'’-]*\.?|{_LOWER_PARTICLE})(?:\s+(?:[{_UP}][\w'’-]*\.?|{_LOWER_PARTICLE}))*")


def speakers(found: Found, quotations: list | None = None) -> list[bool]:
    """Entries that speak or are spoken to: the subject of a speech verb ("said Mrs. Long"),
    the speaker a detected quotation names, a name its explicit cues give twice ("expostulated
    Mr. Todd": the cue grammar reads verbs the speech-tag patterns do not), or a name
    addressed in a quotation ('"Yes, Lucy."'). They stay whatever the classifier says
    (nobody who speaks is missing). A name in address needs a title or a description ("Aunt
    Emily", "the Invisible Man"), the NER to call at least half its mentions a person, or
    words the book never writes in lower case: a quotation also opens with a greeting or an
    oath ('"Merry Christmas, Marilla!"', '"By Jove, ..."') and quotes a book's or an inn's
    name ('"Central Italy," by Baedeker', the "Jolly Cricketers"), and none of those is
    anybody, while a name the NER has never met ("Kafarol") is written capitalised only."""
    named: set[str] = {_normal(q.speaker) for q in quotations or [] if getattr(q, "speaker", None)}
    cued = Counter(_normal(name) for q in quotations or [] for name in _cue_names(q))
    cued_twice = {name for name, n in cued.items() if n >= CUED_TWICE}
    entities = [e for e in found.entities if e.forms]

    def spoken_to(e) -> bool:
        if not any(f.vocatives or f.addressed for f in e.forms):
            return False
        if e.honorifics() or sum(f.ner for f in e.forms) >= ADDRESSED_NER * max(e.count, 1) or found.scan is None:
            return True
        words = {w.split()[-1] for f in e.forms for w in f.words if w not in _PARTICLES}
        return not any(found.scan.lower_count(w) for w in words)

    # a cue names a form as written, title and all: "said Henry" is not "Sir Henry"
    out = [spoken_to(e) or any(f.tags or _form_keys(f) & named or _written_keys(f) & cued_twice for f in e.forms)
           for e in entities]
    # "said the general" speaks for the most mentioned entry titled so ("General Tilney"),
    # which the text may never name at a speech verb
    for title in _titles_described(quotations):
        titled = [i for i, e in enumerate(entities) if title in e.honorifics()]
        if titled:
            out[max(titled, key=lambda i: entities[i].count)] = True
    return out


def _cue_names(quotation) -> list[str]:
    """The names an explicit cue of a detected quotation gives its speaker by: the runs of
    capitalised words in it ("expostulated Mr. Todd", "Mrs. van der Luyden proclaimed") - the cue
    grammar, which reads every speech verb of the lexicon, has already found the speaker there."""
    if getattr(quotation, "type", "") != "explicit" or not getattr(quotation, "referring_expression", None):
        return []
    out = []
    for m in _CUE_NAME.finditer(quotation.referring_expression):
        name = re.sub(r"['’]s$", "", m.group().strip())
        if name[:1].isupper() or elided_particle(name):
            out.append(name)
    return out


def _titles_described(quotations: list | None) -> set[str]:
    """The titles ("General", "Captain", "Dr" for "the doctor") that noun cues name speakers
    by at least twice ("said the General")."""
    heads: Counter = Counter()
    for q in quotations or []:
        if getattr(q, "type", "") == "anaphoric" and getattr(q, "referring_expression", None):
            found = description(q.referring_expression)
            if found is not None:
                heads[found[0]] += 1
    titles = {spelling.lower(): hon for spelling, hon in _HONORIFIC_SPELLINGS.items()}
    return {titles[head] for head, n in heads.items() if n >= 2 and head in titles}


def keep_entries(found: Found, probabilities: np.ndarray, threshold: float,
                 speaking: list[bool] | None = None) -> Found:
    """``found`` without the entries whose probability of being a person is under
    ``threshold``, except those that speak (``speaking``, see :func:`speakers`)."""
    entities = [e for e in found.entities if e.forms]
    speaking = speaking or [False] * len(entities)
    kept = [e for e, p, s in zip(entities, probabilities, speaking) if s or p >= threshold]
    alive = {id(e) for e in kept}
    ambiguous = []
    for form, candidates in found.ambiguous:
        left = [c for c in candidates if id(c) in alive]
        if left:
            ambiguous.append((form, left))
    return Found(found.scan, kept, ambiguous, found.occurrences, found.speech)


