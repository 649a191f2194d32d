"""Step 4h of :mod:`litlens.quotes.characters`: a name known by who answers to it.

Some people are addressed by one name and tagged by another: Dorian and Basil call Lord
Henry "Harry", and his replies read "said Lord Henry"; Lord Fermor is "Uncle George" to his
nephew. The names share nothing, so the name rules and the same-person step leave "Harry"
an entry of its own, and the attributor then reads "Harry," at the head of a speech as
addressing somebody else than the man who answers.

The dialogue says it. When a speech addresses a name and the next paragraph with speech
(at most :data:`_TURN_GAP` paragraphs on) is tagged with one name, that is usually the
person addressed answering. Each name in address counts who answers it, itself included
(Anne, addressed by Marilla, mostly answers as "said Anne"). When one other entry gives at
least :data:`MIN_ANSWERS` of its answers and :data:`SHARE` of them all, the name is that
entry's name in address: "Harry" (never tagged) answered 16 times of 17 by Lord Henry, and
"Fagin" answered 16 times of 22 as "said the Jew" (twice by Sikes). Not when their sexes
differ or the text names both in one clause (two people), and an answer does not count when
the speech that addresses the name is tagged with the answerer himself, nor when the
narration between the two names the answerer (the scene has moved: "Helen, give Mr. Bast his
umbrella," then "Jacky waited at the flat" and Jacky's speech). A name that speech tags also use
is someone who speaks; it needs :data:`SPEAKER_ANSWERS` answers before the share says
anything.

Weaker evidence does not join; :func:`dialogue_leads` offers it to the scholar as merge
suggestions: a name in address that one entry answers for half its answers, and a first
name a relative of the other sex calls someone by ('"Janny," said Mr. Hall').
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from litlens.quotes.aliases import Found, _cooccur, _speaks_of, _Union
from litlens.quotes.gender import first_name_gender
from litlens.quotes.lexicon import SPEECH_VERBS
from litlens.quotes.names import _HONORIFICS
from litlens.quotes.same_person import _surnames
from litlens.text.paragraphs import find_paragraphs

MIN_ANSWERS = 2  # answers that make a name in address someone's (chosen on split halves, docs/characters.md)
SHARE = 0.7  # ... and the share of its answers that one entry gives (twenty-ninth session)
# answers a name that speech tags also use needs: a speaker who answers for himself half the
# time does not in five answers once in 32 ("Mrs. Moore", answered twice by her son)
SPEAKER_ANSWERS = 5
_TAG_GAP = 40  # characters at most between a speech and the name of its tag
_TURN_GAP = 2  # paragraphs at most from a speech to its answer
_WORD = re.compile(r"[A-Za-z]+")
_EDGE = re.compile(r"^[\W_]*$")


def _paragraph_starts(text: str) -> list[int]:
    """Where each paragraph starts, by the book's own layout (blank lines, line breaks or
    indents)."""
    return [0] + [p.start for p in find_paragraphs(text)[1:]]


def _tag_words(segment: str) -> bool:
    """Only a speech verb (and "the") stands between a speech and a name: a tag."""
    words = [w.lower() for w in _WORD.findall(segment)]
    return 0 < len(words) <= 3 and words[0] in SPEECH_VERBS and all(w in SPEECH_VERBS or w == "the" for w in words)


def _verb_after(text: str, end: int) -> bool:
    """A speech verb follows the name ('," Lord Henry said')."""
    word = _WORD.search(text, end, end + 20)
    return bool(word) and not text[end:word.start()].strip() and word.group().lower() in SPEECH_VERBS


def _sex(entity) -> str:
    return entity.gender(strong=False) or first_name_gender(entity)


@dataclass
class Turns:
    """The book's speech by paragraph: whom each paragraph's speech addresses and whose name
    its tags give (indexes into ``entities``)."""

    entities: list
    paragraphs: list[int]  # paragraph starts
    by_paragraph: dict[int, tuple[set[int], set[int]]]  # paragraph -> (addressed, tags)
    tagged: Counter  # entry -> speech tags that name it
    named: dict[int, set[int]]  # paragraph -> entries it names anywhere

    def introduced(self, who: int, before: int, after: int) -> bool:
        """Does a paragraph between two speeches name ``who``? The scene has moved to that
        person ("Jacky waited at the flat"), so the later speech answers nobody before."""
        return any(who in self.named.get(p, ()) for p in range(before + 1, after))

    def paragraph_of(self, position: int) -> int:
        return bisect.bisect_right(self.paragraphs, position) - 1

    def before(self, paragraph: int) -> int | None:
        """The paragraph with speech that this one's speech answers, if any."""
        spoken = [p for p in range(paragraph - 1, paragraph - 1 - _TURN_GAP, -1) if p in self.by_paragraph]
        return spoken[0] if spoken else None


def speech_turns(found: Found, quotations: list) -> Turns:
    """Who each paragraph's speech addresses by name and who its tags name."""
    text = found.scan.text
    entities = [e for e in found.entities if e.forms]
    owner = {id(f): k for k, e in enumerate(entities) for f in e.forms}
    mentions = [(s, e, owner[id(f)]) for s, e, f in found.occurrences if id(f) in owner]
    starts = [s for s, _, _ in mentions]
    paragraphs = _paragraph_starts(text)
    tagged: Counter = Counter()
    turns: dict[int, tuple[set[int], set[int]]] = {}
    named: dict[int, set[int]] = defaultdict(set)
    for s, _, who in mentions:
        named[bisect.bisect_right(paragraphs, s) - 1].add(who)
    for q in sorted(quotations, key=lambda q: q.start):
        p = bisect.bisect_right(paragraphs, q.start) - 1
        end_of_paragraph = paragraphs[p + 1] if p + 1 < len(paragraphs) else len(text)
        addressed, tags = turns.setdefault(p, (set(), set()))
        for span_start, span_end in q.spans:
            k = bisect.bisect_left(starts, span_start)
            while k < len(mentions) and mentions[k][0] < span_end:
                s, e, who = mentions[k]
                opening = _EDGE.match(text[span_start:s]) and text[e:e + 1] == ","
                closing = text[max(span_start, s - 2):s].startswith(",") and _EDGE.match(text[e:span_end])
                if opening or closing:
                    addressed.add(who)
                k += 1
            for *_, who in _tags_of(text, mentions, starts, (span_start, span_end), paragraphs[p], end_of_paragraph):
                tags.add(who)
                tagged[who] += 1
    return Turns(entities, paragraphs, turns, tagged, named)


def note_speech_naming(text: str, occurrences: list, quotations: list) -> None:
    """Each form that tags a quotation ('," said Mrs. Welland') counts the name forms its
    speech uses (``_Form.speaks_of``): a person seldom names herself, so a title that
    often speaks of a name is someone else ("May is very happy," said Mrs. Welland). Each form
    also counts its own mentions inside quotations (``_Form.spoken``)."""
    paragraphs = _paragraph_starts(text)
    starts = [s for s, _, _ in occurrences]
    for q in sorted(quotations, key=lambda q: q.start):
        p = bisect.bisect_right(paragraphs, q.start) - 1
        end_of_paragraph = paragraphs[p + 1] if p + 1 < len(paragraphs) else len(text)
        tags, named = set(), []
        for span_start, span_end in q.spans:
            k = bisect.bisect_left(starts, span_start)
            while k < len(occurrences) and occurrences[k][0] < span_end:
                named.append(occurrences[k][2])
                occurrences[k][2].spoken += 1
                k += 1
            for *_, tag in _tags_of(text, occurrences, starts, (span_start, span_end), paragraphs[p], end_of_paragraph):
                tags.add(id(tag))
                teller = tag
        if len(tags) == 1:
            for form in named:
                if form is not teller:
                    teller.speaks_of[(form.hon, form.words)] += 1


def _tags_of(text: str, mentions: list, starts: list[int], span: tuple[int, int], paragraph_start: int,
             paragraph_end: int) -> list:
    """The mentions (items of ``mentions``, sorted, ``starts`` their starts) that tag a part
    of a speech: a name right after it ('," said Lord Henry', '," Lord Henry said') and one
    right before it ('Lord Henry said, "')."""
    span_start, span_end = span
    out = []
    k = bisect.bisect_left(starts, span_end)
    if k < len(mentions) and mentions[k][0] < min(span_end + _TAG_GAP, paragraph_end) and (
            _tag_words(text[span_end:mentions[k][0]])
            or not _WORD.search(text, span_end, mentions[k][0]) and _verb_after(text, mentions[k][1])):
        out.append(mentions[k])
    k = bisect.bisect_left(starts, span_start) - 1
    if k >= 0 and mentions[k][1] > max(span_start - _TAG_GAP, paragraph_start) \
            and _tag_words(text[mentions[k][1]:span_start]):
        out.append(mentions[k])
    return out


def _answers(found_turns: Turns) -> dict[int, Counter]:
    """For each entry addressed by name, who answers it (entry indexes), itself included."""
    turns = found_turns.by_paragraph
    answers: dict[int, Counter] = defaultdict(Counter)
    for q in sorted(turns):
        p = found_turns.before(q)
        if p is None or not turns[p][0] or len(turns[q][1]) != 1:
            continue
        (addressed, tags), answerer = turns[p], next(iter(turns[q][1]))
        for who in addressed:
            if answerer != who and found_turns.introduced(answerer, p, q):
                continue  # a new scene: "Helen, give Mr. Bast his umbrella." / Jacky waited at the flat
            if answerer == who or answerer not in tags:
                answers[who][answerer] += 1  # the addressed name answering counts too
    return answers


def _may_join(a, b) -> bool:
    """Nothing in the text says the two entries are two people."""
    return not _two_sexes(a, b) and not _cooccur(a.segments(), b) and not _speaks_of(a.forms, b)


def join_answered_names(found: Found, quotations: list | None) -> Found:
    """``found`` with each name in address joined to the entry that answers to it."""
    if not quotations:
        return found
    found_turns = speech_turns(found, quotations)
    entities, tagged = found_turns.entities, found_turns.tagged
    pairs = []
    for who, by in _answers(found_turns).items():
        answerer, n = by.most_common(1)[0]
        total = sum(by.values())
        if answerer == who or n < MIN_ANSWERS or n < SHARE * total or (tagged[who] and total < SPEAKER_ANSWERS):
            continue
        if _may_join(entities[who], entities[answerer]):
            pairs.append((answerer, who))
    return join_entries(found, entities, pairs)


def _two_sexes(a, b) -> bool:
    return {_sex(a), _sex(b)} >= {"m", "f"}


def join_entries(found: Found, entities: list, pairs: list[tuple[int, int]]) -> Found:
    """``found`` with each pair (keep, other) of ``entities`` indexes in one entry."""
    if not pairs:
        return found
    union = _Union(len(entities))
    for keep, other in pairs:
        union.join(keep, other)
    entities, ambiguous = union.apply(entities, found.ambiguous)
    return Found(found.scan, entities, ambiguous, found.occurrences, found.speech)


# --------------------------------------------------------------------------- leads for a scholar

LEAD_ANSWERS = 2  # answers that make a name in address worth a look as the answerer's (joined: MIN_ANSWERS, SHARE)
LEAD_SHARE = 0.5  # ... and the share of its answers that the answerer gives


@dataclass(frozen=True)
class Lead:
    """Two entries the dialogue says may be one person, too weakly to join them: ``score``
    is the share of the evidence that points at the pair, ``evidence`` says it in words."""

    a: object  # the entity (an _Entity of ``found``)
    b: object
    reason: str  # "answers" or "family"
    score: float
    evidence: str


_SEX_WORD = {"m": "man", "f": "woman"}


def _label(entity) -> str:
    form = max(entity.forms, key=lambda f: f.count)
    return form.surfaces.most_common(1)[0][0] if form.surfaces else " ".join(form.words)


def _own_first_name(entity, family: set[str]) -> bool:
    """The text gives the entry a first name of its own: a full name ("Lucy Honeychurch";
    a wife's "Mrs. John Knightley" is her husband's), or a word alone that is neither its
    surname nor the ``family`` name ("Miss Hall" is a Hall)."""
    surnames = _surnames(entity) | family

    def husbands(f) -> bool:
        return bool(f.hon) and _HONORIFICS[f.hon][1:] == ("f-married", "surname")

    return any(len(f.words) > 1 and not husbands(f)
               or len(f.words) == 1 and (not f.hon or _HONORIFICS[f.hon][2] == "any") and f.words[0] not in surnames
               for f in entity.forms)


def _of_family(entity, family: set[str]) -> bool:
    """The entry writes the family name as its surname, or after any title ("Miss Hall")."""
    return bool(_surnames(entity) & family) or any(len(f.words) == 1 and f.hon and f.words[0] in family
                                                    for f in entity.forms)


def _bare_first_name(entity) -> bool:
    return all(len(f.words) == 1 and not f.hon for f in entity.forms)


def dialogue_leads(found: Found, quotations: list | None) -> list[Lead]:
    """Pairs of entries of ``found`` that the dialogue says may be one person, for a scholar
    to confirm (the merge suggestions); the joins of :func:`join_answered_names` need more.

    * "answers": a name in address that one other entry answers :data:`LEAD_ANSWERS` times
      or more and for :data:`LEAD_SHARE` of its answers ("Fagin," ... "said the Jew").
    * "family": a bare first name that a tagged speaker addresses ('"Janny," said Mr. Hall')
      goes with the one entry of the speaker's surname that has no first name of its own
      and is of the name's sex but not the speaker's: a husband calls his wife, a mother
      her son, by the first name. Not when a second entry of the surname could be the one
      (two daughters, a mother and a daughter), nor when the speaker is of the name's sex
      (a sister could be "Miss Dashwood" herself).
    Neither when the text shows two people (:func:`join_answered_names`).
    """
    if not quotations:
        return []
    found_turns = speech_turns(found, quotations)
    entities = found_turns.entities
    leads = []
    for who, by in _answers(found_turns).items():
        total = sum(by.values())
        others = [(n, k) for k, n in by.items() if k != who]
        if not others:
            continue
        n, answerer = max(others)
        if n >= LEAD_ANSWERS and n >= LEAD_SHARE * total and _may_join(entities[who], entities[answerer]):
            said = f'"{_label(entities[who])}" is answered {n} of {total} times by {_label(entities[answerer])}'
            leads.append(Lead(entities[answerer], entities[who], "answers", round(n / total, 3), said))
    callers: dict[int, Counter] = defaultdict(Counter)
    for addressed, tags in found_turns.by_paragraph.values():
        if len(tags) == 1:
            speaker = next(iter(tags))
            for who in addressed - tags:
                callers[who][speaker] += 1
    for who, by in callers.items():
        name = entities[who]
        sex = _sex(name)
        if not sex or not _bare_first_name(name):
            continue
        for speaker, n in by.most_common():
            if _sex(entities[speaker]) in ("", sex):
                continue
            family = _surnames(entities[speaker])
            kin = [k for k, e in enumerate(entities) if k not in (who, speaker) and _of_family(e, family)]
            fits = [k for k in kin if not _own_first_name(entities[k], family) and _sex(entities[k]) in ("", sex)]
            if len(fits) != 1 or not _sex(entities[fits[0]]) or not _may_join(name, entities[fits[0]]):
                continue
            total = sum(by.values())
            leads.append(Lead(entities[fits[0]], name, "family", round(n / total, 3),
                              f'{_label(entities[speaker])} says "{_label(name)}" ({n} of {total}); '
                              f'the one {_SEX_WORD[sex]} of the family with no first name'))
            break
    return leads
