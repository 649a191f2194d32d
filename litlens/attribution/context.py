"""What the CPU attributor knows about a book: paragraphs, character mentions and cues.

:func:`build_context` takes plain data (the text, its paragraphs, the quotations in text
order and the candidate characters) and returns a :class:`BookContext`:

- every mention of a character's alias (longest alias wins; an alias two characters share,
  such as "Miss Bennet", is credited to both and marked ambiguous);
- for each quotation its paragraph, the narration around it and its speech cue (the
  same cue grammar as quotation typing: "said Elizabeth", "she cried", "her mother
  observed"), with the cue's subject read as a name, a pronoun or a common noun (a noun
  subject may go on after the cue: "said the gentleman in the white waistcoat", and "the
  voice of Aziz" names Aziz; "said his wife" names the wife, by married title and
  surname, of the man last named); when PDNC joins one speaker's turns across
  paragraphs, the cue that ends the first turn counts;
- mentions of characters inside the quotation (vocatives such as "Lizzy, ..." are
  evidence of the addressee, not the speaker);
- the writer of a letter quoted in full, from its signature: a closing ("Yours
  sincerely,", "your well-wisher and friend,", "Yours,") followed by a name that ends
  the quotation, on a line of its own or in capitals unless the closing is one only a
  letter uses (:func:`~litlens.attribution.letters.letter_signer`); or, for a letter with
  no signature or cue after it, from the narration that sets it out ("the letter from Jane,
  which ran thus:", "Mr. Collins's letter" over "Dear Sir,",
  :func:`~litlens.attribution.letters.letter_writer`).
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from litlens.attribution.letters import letter_signer, letter_writer
from litlens.attribution.scanner import _MARRIED_TITLES, _TITLE_WORDS, AliasScanner, normalise_alias
from litlens.model import NARRATOR, Character, EntityMention, Paragraph, Quotation
from litlens.quotes.cues import Cue, cleft_cue, cue_after, cue_before
from litlens.quotes.described import (
    _HONORIFIC_WORDS, _KIN_GENDER, _NOUN_GENDER, _VOICE_WORDS, description,
)
from litlens.quotes.lexicon import Names
from litlens.quotes.narrator import FIRST_PERSON_RATE, first_person_rate

CONVERSATION_GAP = 2  # paragraphs: a conversation goes on over at most one paragraph of narration

QUOTE_MARKS = "\"'“”‘’«»"
_PRONOUN_GENDER = {"he": "male", "him": "male", "his": "male", "himself": "male",
                   "she": "female", "her": "female", "hers": "female", "herself": "female"}
_ADDRESS_LEADS = ("my dear", "dear", "my dearest", "dearest", "oh", "o", "ah", "my good", "my", "well", "yes", "no", "now")
_FIRST_PERSON = {"i", "we", "me", "myself"}
_WORD = re.compile(r"[^\W\d_][\w'’-]*")  # letters of any alphabet: "Zoë", "Hélène"

# A noun cue's subject often goes on after the cue's last word: "said the gentleman in
# the white waistcoat", "cried the voice of old Mr. Emerson".
_NOUN_TAIL = re.compile(r"[ \t]*\n?[ \t]*(of|in|with)\s+((?:[^\W\d_][\w'’-]*\.?\s*){1,5})")


# Aliases by which a character list marks the narrator (LitLens's own entry, PDNC's markers)
_NARRATOR_ALIASES = frozenset({NARRATOR.lower(), "the narrator", "narr", "_narr"})


def _noun_tail(text: str, end: int) -> tuple[str, str] | None:
    """The preposition and words of a phrase right after a noun cue (up to punctuation)."""
    m = _NOUN_TAIL.match(text, end, min(len(text), end + 80))
    if m is None:
        return None
    words: list[str] = []
    for w in m.group(2).split():
        bare = w.rstrip(".")
        words.append(bare)
        if w.endswith(".") and bare.lower() not in _HONORIFIC_WORDS:
            break  # a full stop ends the phrase; "Mr." does not
    return m.group(1), " ".join(words)


# "said his wife", "cried her husband": the spouse of the man or woman last named.
_SPOUSE_CUE = re.compile(r"\b(his|her) (?:wife|lady|husband|spouse)\b", re.IGNORECASE)
_WIFE_TITLES = ("mrs", "lady", "madame", "mme", "mistress", "signora", "frau")
_HUSBAND_TITLES = ("mr", "sir", "lord", "monsieur", "signor", "herr")


def _spouses(characters: Sequence[Character]) -> dict[int, tuple[int, ...]]:
    """Character -> characters of the other sex whose main name is a married title and the
    same surname ("Mr. Bennet" <-> "Mrs. Bennet", "Sir Thomas Bertram" -> "Lady Bertram")."""
    def key(c: Character) -> tuple[str, str] | None:
        words = normalise_alias(c.name).split()
        return (words[0], words[-1]) if len(words) >= 2 else None

    keys = [key(c) for c in characters]
    out: dict[int, tuple[int, ...]] = {}
    for ci, c in enumerate(characters):
        k = keys[ci]
        if k is None or c.gender not in ("male", "female"):
            continue
        titles = _WIFE_TITLES if c.gender == "male" else _HUSBAND_TITLES
        other = "female" if c.gender == "male" else "male"
        found = tuple(
            oi for oi, o in enumerate(characters)
            if o.gender == other and (ko := keys[oi]) is not None and ko[0] in titles and ko[1] == k[1]
        )
        if found:
            out[ci] = found
    return out


def _spouse_named(cue: Cue, mentions: Sequence[Mention], m_starts: Sequence[int],
                  characters: Sequence[Character], spouses: dict[int, tuple[int, ...]]) -> tuple[int, ...] | None:
    """For "said his wife": the spouses of the nearest single character of the possessive's
    sex named before the cue, in the quotation too ("My dear Mr. Bennet," said his lady)."""
    sp = _SPOUSE_CUE.search(cue.text)
    if sp is None:
        return None
    owner = _last_named(cue, mentions, m_starts, characters, "male" if sp.group(1).lower() == "his" else "female")
    return spouses.get(owner) if owner is not None else None


def _last_named(cue: Cue, mentions: Sequence[Mention], m_starts: Sequence[int], characters: Sequence[Character],
                sex: str) -> int | None:
    """The nearest single character of ``sex`` named before the cue (within 2,000
    characters): the "his" or "her" of "said his wife", "said her father"."""
    k = bisect.bisect_left(m_starts, cue.start) - 1
    while k >= 0 and cue.start - mentions[k].end < 2000:
        owners = mentions[k].characters
        if len(owners) == 1 and characters[owners[0]].gender == sex:
            return owners[0]
        k -= 1
    return None


# "said her father", "his sister answered": a relative of the man or woman last named.
_KIN_CUE = re.compile(r"\b(his|her) (father|mother|brother|sister|son|daughter|uncle|aunt|nephew|niece)\b", re.IGNORECASE)
_PARENT_TITLES = {"mr", "mrs", "sir", "lady", "lord", "old", "madame", "monsieur"}
_BIRTH_KIN = {"father", "mother", "brother", "sister"}
_CHILDREN = {"son", "daughter"}


def _surnames(c: Character, family: str = "") -> set[str]:
    """The last words of a character's full names ("bennet" of "Elizabeth Bennet", "Mr. Bennet").
    A woman named both ways: ``family`` "born" keeps her name before marriage ("Louisa
    Gradgrind": her father bears it), "married" her married title's ("Mrs. Bounderby": her son's)."""
    born, married = set(), set()
    for alias in [c.name, *c.aliases]:
        words = [w for w in normalise_alias(alias).split() if w not in _HONORIFIC_WORDS]
        if words and (len(words) >= 2 or normalise_alias(alias).split()[0] in _TITLE_WORDS):
            (married if normalise_alias(alias).split()[0] in _MARRIED_TITLES else born).add(words[-1])
    if c.gender == "female" and born and married:
        if family == "born":
            return born
        if family == "married":
            return married
    return born | married


def _kin_named(cue: Cue, mentions: Sequence[Mention], m_starts: Sequence[int],
               characters: Sequence[Character]) -> tuple[int, ...] | None:
    """For "said her father": the characters of the relative's sex who share the surname of
    the nearest single character of the possessive's sex named before the cue (for a
    parent, those with a parent's title, "Mr. Bennet" rather than "Kitty Bennet", when any)."""
    kin = _KIN_CUE.search(cue.text)
    if kin is None:
        return None
    noun = kin.group(2).lower()
    sex = _KIN_GENDER[noun]
    owner = _last_named(cue, mentions, m_starts, characters, "male" if kin.group(1).lower() == "his" else "female")
    if owner is None:
        return None
    family = _surnames(characters[owner], "born" if noun in _BIRTH_KIN else "married" if noun in _CHILDREN else "")
    found = [ci for ci, c in enumerate(characters)
             if ci != owner and c.gender != ("female" if sex == "male" else "male") and _surnames(c) & family]
    if noun in ("father", "mother"):
        titled = [ci for ci in found if normalise_alias(characters[ci].name).split()[0] in _PARENT_TITLES]
        found = titled or found
    return tuple(found) or None


def character_index(characters: Sequence[Character]) -> dict[str, int]:
    """Name or alias (normalised) -> character index; main names win over aliases."""
    out: dict[str, int] = {}
    for ci, c in enumerate(characters):
        for alias in c.aliases:
            out.setdefault(normalise_alias(alias), ci)
    for ci, c in enumerate(characters):
        out[normalise_alias(c.name)] = ci
    return out


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    characters: tuple[int, ...]  # candidate indexes sharing the alias
    in_quote: bool


@dataclass
class QuoteContext:
    index: int
    start: int
    end: int
    paragraph: int
    spans: list[tuple[int, int]]
    cue: Cue | None = None
    cue_where: str = "none"  # "between", "after", "before", "none"
    cue_characters: tuple[int, ...] = ()  # candidates named by a name cue
    cue_pronoun: str | None = None  # "male", "female", "first", "other" for pronoun cues; a noun cue's gender
    cue_noun_characters: tuple[int, ...] = ()  # candidates whose alias words appear in a noun cue
    first_in_paragraph: bool = True
    last_in_paragraph: bool = True
    inside: list[Mention] = field(default_factory=list)  # mentions inside the quotation
    vocatives: tuple[int, ...] = ()  # candidates addressed by name ("Lizzy, ...")
    words: int = 0
    signed: tuple[int, ...] = ()  # the writer, when the quotation is a letter that ends with a signature


class Conversations:
    """Quotations grouped into turns (one paragraph's speech) and turns into conversations."""

    def __init__(self, ctx: BookContext) -> None:
        self.turn_of: list[int] = []
        self.turn_paragraph: list[int] = []
        self.quotes_of_turn: list[list[int]] = []
        for i, qc in enumerate(ctx.quotes):
            if not self.turn_paragraph or self.turn_paragraph[-1] != qc.paragraph:
                self.turn_paragraph.append(qc.paragraph)
                self.quotes_of_turn.append([])
            self.turn_of.append(len(self.turn_paragraph) - 1)
            self.quotes_of_turn[-1].append(i)
        chapter = ctx.chapter_of_paragraph
        self.first_turn: list[int] = []  # the first turn of each turn's conversation
        for t, p in enumerate(self.turn_paragraph):
            q = self.turn_paragraph[t - 1] if t else None
            joined = q is not None and p - q <= CONVERSATION_GAP and chapter[p] == chapter[q]
            self.first_turn.append(self.first_turn[t - 1] if joined else t)
        self.last_turn = [0] * len(self.turn_paragraph)
        for t in range(len(self.turn_paragraph) - 1, -1, -1):
            nxt = t + 1 < len(self.turn_paragraph) and self.first_turn[t + 1] == self.first_turn[t]
            self.last_turn[t] = self.last_turn[t + 1] if nxt else t

    def others(self, i: int) -> list[tuple[int, int]]:
        """(turn, distance in turns) for the other turns of quotation ``i``'s conversation."""
        t = self.turn_of[i]
        return [(u, abs(u - t)) for u in range(self.first_turn[t], self.last_turn[t] + 1) if u != t]


@dataclass
class BookContext:
    text: str
    paragraphs: list[Paragraph]
    characters: list[Character]
    quotes: list[QuoteContext]
    mentions: list[Mention]  # in text order
    mention_starts: list[int]
    total_mentions: list[int]  # per candidate
    chapter_of_paragraph: list[int]
    in_quote_chars: list[tuple[int, int]]  # merged quotation spans, sorted
    first_person: float = 0.0  # "I" per 100 words of narration: a first-person narrator
    narrator_score: list[float] = field(default_factory=list)  # per candidate
    narrator: int | None = None  # the likeliest narrator in a first-person book

    @cached_property
    def conversations(self) -> Conversations:
        """The book's quotations grouped into turns and conversations (built once)."""
        return Conversations(self)

    def mentions_between(self, start: int, end: int) -> list[Mention]:
        i = bisect.bisect_left(self.mention_starts, start)
        out = []
        while i < len(self.mentions) and self.mentions[i].start < end:
            out.append(self.mentions[i])
            i += 1
        return out


def _merge(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1] + 2:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _inside(intervals: list[tuple[int, int]], starts: list[int], pos: int) -> bool:
    k = bisect.bisect_right(starts, pos) - 1
    return k >= 0 and intervals[k][0] <= pos < intervals[k][1]


def _after_mark(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in QUOTE_MARKS:
        pos += 1
    return pos


def _before_mark(text: str, pos: int) -> int:
    while pos > 0 and text[pos - 1] in QUOTE_MARKS:
        pos -= 1
    return pos


def _cue_subject(cue: Cue) -> str:
    """The words of a cue without its speech verb and small words."""
    from litlens.quotes.lexicon import SPEECH_VERBS

    words = [w for w in _WORD.findall(cue.text) if w.lower() not in SPEECH_VERBS]
    return " ".join(words)


def build_context(
    text: str,
    paragraphs: Sequence[Paragraph],
    quotations: Sequence[Quotation],
    characters: Sequence[Character],
    persons: Sequence[EntityMention] | None = None,
    chapter_starts: Sequence[int] | None = None,
) -> BookContext:
    """Mentions, cues and vocatives for ``quotations`` (sorted by start) of a book."""
    paragraphs = sorted(paragraphs, key=lambda p: p.start)
    p_starts = [p.start for p in paragraphs]
    names = Names(text, sorted(persons, key=lambda m: m.start) if persons else None)
    scanner = AliasScanner(characters, names)
    quote_spans = _merge([s for q in quotations for s in q.spans])
    q_starts = [s for s, _ in quote_spans]

    mentions = [Mention(s, e, owners, _inside(quote_spans, q_starts, s)) for s, e, owners in scanner.scan(text)]
    m_starts = [m.start for m in mentions]
    spouses = _spouses(characters)
    total = [0] * len(characters)
    for m in mentions:
        for ci in m.characters:
            total[ci] += 1

    chapter_starts = sorted(chapter_starts or [])
    chapter_of_paragraph = [max(0, bisect.bisect_right(chapter_starts, p.start) - 1) for p in paragraphs]

    def para_of(pos: int) -> int:
        return max(0, bisect.bisect_right(p_starts, pos) - 1)

    ctxs: list[QuoteContext] = []
    for i, q in enumerate(quotations):
        spans = sorted((int(s), int(e)) for s, e in q.spans)
        ctxs.append(QuoteContext(index=i, start=spans[0][0], end=spans[-1][1], paragraph=para_of(spans[0][0]), spans=spans))
    for i, qc in enumerate(ctxs):
        prev = ctxs[i - 1] if i > 0 else None
        nxt = ctxs[i + 1] if i + 1 < len(ctxs) else None
        qc.first_in_paragraph = prev is None or prev.paragraph != qc.paragraph
        qc.last_in_paragraph = nxt is None or para_of(nxt.start) != qc.paragraph
        para = paragraphs[qc.paragraph]
        cue, where = None, "none"
        for (a_s, a_e), (b_s, b_e) in zip(qc.spans, qc.spans[1:]):
            lo, pa = _after_mark(text, a_e), para_of(a_e)
            if para_of(b_s) == pa:
                hi = _before_mark(text, b_s)
                cue = cue_after(text, lo, hi, names) or cue_before(text, lo, hi, names) if lo < hi else None
            else:  # PDNC joins one speaker's turns across paragraphs: the cue ends the first
                hi = paragraphs[pa].end
                cue = cue_after(text, lo, hi, names) if lo < hi else None
            if cue:
                where = "between"
                break
        if cue is None:
            lo = _after_mark(text, qc.end)
            hi = para.end if qc.last_in_paragraph or nxt is None else _before_mark(text, nxt.start)
            if lo < hi:
                cue = cue_after(text, lo, hi, names)
                if cue:
                    where = "after"
        if cue is None:
            hi = _before_mark(text, qc.start)
            lo = para.start if qc.first_in_paragraph or prev is None else _after_mark(text, prev.end)
            if lo < hi:
                cue = cue_before(text, lo, hi, names)
            elif qc.paragraph > 0 and (prev is None or prev.paragraph < qc.paragraph - 1 or prev.end < paragraphs[qc.paragraph - 1].end - 3):
                pp = paragraphs[qc.paragraph - 1]
                lo = pp.start if prev is None or prev.end < pp.start else _after_mark(text, prev.end)
                tail = text[lo:pp.end].rstrip()
                if tail and (tail.endswith((":", ",", "—", "--", ".")) or tail[-1].isalpha()):
                    cue = cue_before(text, lo, pp.end, names)  # ending in a full stop: "Poirot went on."
            if cue:
                where = "before"
        if cue is None and qc.last_in_paragraph and qc.paragraph + 1 < len(paragraphs) and (nxt is None or nxt.paragraph > qc.paragraph + 1 or nxt.start > paragraphs[qc.paragraph + 1].start + 3):
            np_ = paragraphs[qc.paragraph + 1]
            cue = cleft_cue(text, np_.start, np_.end if nxt is None else min(np_.end, nxt.start), names)
            if cue:
                where = "after"
        qc.cue, qc.cue_where = cue, where
        if cue is not None:
            subject = _cue_subject(cue)
            if cue.subject == "name":
                qc.cue_characters = scanner.match(subject)
                if not qc.cue_characters:  # "the Magistrate said", "said Mademoiselle"
                    qc.cue_noun_characters = scanner.describe(subject)
            elif cue.subject == "pronoun":
                for w in _WORD.findall(cue.text):
                    low = w.lower()
                    if low in _PRONOUN_GENDER:
                        qc.cue_pronoun = _PRONOUN_GENDER[low]
                        break
                    if low in _FIRST_PERSON:
                        qc.cue_pronoun = "first"
                        break
                    if low in {"they", "you", "one", "ye", "thou"}:
                        qc.cue_pronoun = "other"
                        break
            else:
                qc.cue_noun_characters = (scanner.match(subject) or scanner.ranks.get(subject.lower().split()[-1] if subject else "", ())
                                          or scanner.describe(subject))
                tail = _noun_tail(text, cue.end)
                if tail is not None:
                    prep, words = tail
                    last = subject.split()[-1].lower() if subject else ""
                    if prep == "of" and last in _VOICE_WORDS:
                        qc.cue_characters = scanner.match(words)  # "the voice of Aziz" names Aziz
                    else:
                        key = normalise_alias(f"{subject} {prep} {words}")
                        qc.cue_noun_characters = scanner.owners.get(key, qc.cue_noun_characters)
                qc.cue_noun_characters = (_spouse_named(cue, mentions, m_starts, characters, spouses)
                                          or _kin_named(cue, mentions, m_starts, characters) or qc.cue_noun_characters)
                qc.cue_pronoun = next((_NOUN_GENDER[w] for w in subject.lower().split() if w in _NOUN_GENDER), None)
        qc.words = sum(len(text[s:e].split()) for s, e in qc.spans)
    # A noun cue that names one character ("cried his wife") is a mention of that character
    # in the narration, as a name would be: it makes them a candidate for the next turns.
    noun_mentions = [Mention(qc.cue.start, qc.cue.end, qc.cue_noun_characters, False)
                     for qc in ctxs if qc.cue is not None and len(qc.cue_noun_characters) == 1]
    if noun_mentions:
        mentions = sorted(mentions + noun_mentions, key=lambda m: (m.start, m.end))
        m_starts = [m.start for m in mentions]
        for m in noun_mentions:
            total[m.characters[0]] += 1
    # Mentions inside each quotation, and vocatives (a name set off by a comma or at an edge).
    for qc in ctxs:
        voc: set[int] = set()
        for s, e in qc.spans:
            k = bisect.bisect_left(m_starts, s)
            while k < len(mentions) and mentions[k].start < e:
                m = mentions[k]
                qc.inside.append(m)
                before = text[max(s, m.start - 12) : m.start]
                after = text[m.end : min(e, m.end + 2)]
                lead = text[s : m.start].strip(" \t\n—-,;:!?.'\"“”‘’").lower()
                at_start = (not lead or lead in _ADDRESS_LEADS or before.rstrip().endswith((",", "!", "—", "-"))
                            or before.rstrip().lower().endswith(_ADDRESS_LEADS))
                at_end = not text[m.end : e].strip(" \t\n—-,;:!?.'\"“”‘’") or after.startswith((",", "!", "?", ";", "—"))
                if (at_start and (after[:1] in ",!?;—." or m.end >= e - 1)) or (at_end and before.rstrip()[-1:] in ",!—-"):
                    voc.update(m.characters)
                k += 1
        qc.vocatives = tuple(sorted(voc))
        signed = letter_signer(text[qc.spans[-1][0]:qc.spans[-1][1]], scanner.match)
        if not signed and qc.cue_where in ("none", "before"):
            # a letter set out by the narration before it, which names its writer
            prev_end = _after_mark(text, ctxs[qc.index - 1].end) if qc.index > 0 else 0
            lo = paragraphs[qc.paragraph - 1].start if qc.first_in_paragraph and qc.paragraph > 0 \
                else paragraphs[qc.paragraph].start
            lo = max(lo, prev_end)
            if lo < qc.start:
                signed = letter_writer(text[lo:qc.start], text[qc.spans[0][0]:qc.spans[0][1]].lstrip(QUOTE_MARKS),
                                       scanner.match)
        if signed:  # the name under a letter is its writer, not someone addressed
            qc.signed = signed
            qc.vocatives = tuple(c for c in qc.vocatives if c not in signed)
    # A first-person narrator is named mostly inside quotations (when others address them).
    first_person = first_person_rate(text, quote_spans)
    in_q = [0] * len(characters)
    for m in mentions:
        if m.in_quote:
            for ci in m.characters:
                in_q[ci] += 1
    narrator_score = [in_q[ci] / (total[ci] + 3) for ci in range(len(characters))]
    # Others address the narrator by name: of the characters named mostly inside
    # quotations, the one most often addressed ("my dear Watson").
    addressed = Counter(ci for qc in ctxs for ci in qc.vocatives)
    # "said I": the turns next to the narrator's own speak to the narrator, so a name they
    # address counts again (the narrator of a book where others seldom use names).
    for i, qc in enumerate(ctxs):
        if qc.cue_pronoun != "first":
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < len(ctxs) and ctxs[j].paragraph != qc.paragraph and abs(ctxs[j].paragraph - qc.paragraph) <= 1:
                addressed.update(ctxs[j].vocatives)
    narrator = None
    if first_person > FIRST_PERSON_RATE and characters:
        # a list may say who narrates: discovery's entry for an unnamed narrator
        # (litlens.quotes.narrator), or an alias such as PDNC's "Narr"
        marked = [ci for ci, c in enumerate(characters)
                  if any(normalise_alias(a) in _NARRATOR_ALIASES for a in [c.name, *c.aliases])]
        ranked = sorted(marked or range(len(characters)), key=lambda ci: -(narrator_score[ci] * math.log1p(addressed[ci])))
        narrator = ranked[0]
        if marked and total[narrator] == 0:
            narrator_score[narrator] = 1.0  # never named: "I" is all the text calls them
    return BookContext(
        first_person=first_person,
        narrator_score=narrator_score,
        narrator=narrator,
        text=text,
        paragraphs=list(paragraphs),
        characters=list(characters),
        quotes=ctxs,
        mentions=mentions,
        mention_starts=m_starts,
        total_mentions=total,
        chapter_of_paragraph=chapter_of_paragraph,
        in_quote_chars=quote_spans,
    )


# ---- speakers the narration describes but the character list lacks ----------------------

MIN_DESCRIBED_CUES = 2  # a description a cue uses once is too little to make a character of


def described_characters(context: BookContext, min_cues: int = MIN_DESCRIBED_CUES) -> list[Character]:
    """New minor characters for the descriptions that noun cues use for a speaker the list
    does not hold ("said the porter" twice, and no character's alias is "the porter"): one
    per head noun, named by its commonest wording ("The Porter"), of the sex its noun tells.

    Every description, blindly (``benchmarks/speakers_cv.py --described``); discovery reads
    them by whom they answer instead (:func:`litlens.quotes.described.described_entries`)."""
    found: dict[str, Counter] = {}
    for qc in context.quotes:
        cue = qc.cue
        if cue is None or cue.subject != "noun" or qc.cue_noun_characters or qc.cue_characters:
            continue
        desc = description(cue.text)
        if desc is not None:
            found.setdefault(desc[0], Counter())[desc[1]] += 1
    out = []
    for head, forms in sorted(found.items()):
        if sum(forms.values()) < min_cues:
            continue
        wording = forms.most_common(1)[0][0]
        name = "The " + " ".join(w.capitalize() for w in wording.split())
        aliases = sorted({name} | {"The " + " ".join(w.capitalize() for w in f.split()) for f in forms})
        out.append(Character(name, aliases, _NOUN_GENDER.get(head, "unknown")))
    return out
