"""Name forms: the honorific + name words a book uses, collected and filtered.

Step 1 and 2 of :mod:`litlens.quotes.characters`: forms from PERSON mentions, honorific
runs and speech tags, then the non-names (exclamations, common words, places, families)
left out and the names they imply added.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import chain

from litlens.model import EntityMention
from litlens.quotes.lexicon import _NOT_NAMES
from litlens.quotes.names import (
    _ARTICLE_MIN, _ARTICLE_SHARE, _GAP_ONLY, _HONORIFIC_BEFORE, _HONORIFIC_NAME,
    _FIRST_NAME_TITLES, _GIVEN_TOO, _HONORIFIC_PAIR, _HONORIFIC_SPELLINGS, _LEADING_NON_NAME, _NAME_WORD, _NON_NAMES,
    _PARTICLES, _PLACE_SUFFIXES, _SPACE, _SPAN_WORD, _TAG_AFTER, _TAG_BEFORE, _TRAILING_TITLES,
    _TextIndex, _VOCATIVE, _VOCATIVE_MID, _VOCATIVE_YOU, _WORD_START, known_first_name, particles_joined,
)


@dataclass
class _Form:
    """One name form: an honorific (canonical, or "") plus name words."""

    hon: str
    words: tuple[str, ...]
    ner: int = 0  # PERSON mentions that gave this form
    tags: int = 0  # speech tags that name it ("said Cecil", "the Hatter said")
    vocatives: int = 0  # times it is addressed at the edge of a quotation ('"Yes, Lucy."')
    addressed: int = 0  # times it is addressed before a tag interrupts ('"Well, Lucy," she said')
    locative: int = 0  # occurrences after "at", "in", "to", ... (places)
    surfaces: Counter = field(default_factory=Counter)
    count: int = 0  # occurrences in the whole text (assigned by the scan)
    segments: set = field(default_factory=set)  # clauses it occurs in (see _TextIndex)
    parts: dict = field(default_factory=dict)  # clause -> its parts (cut at ";" and ":") it occurs in
    male: int = 0
    female: int = 0
    any_votes: Counter = field(default_factory=Counter)  # pronoun votes, speech included
    speaks_of: Counter = field(default_factory=Counter)  # (hon, words) of forms named in the speech it tags
    spoken: int = 0  # occurrences inside quotations (``count`` less these: the narration's)

    @property
    def given(self) -> str | None:
        return self.words[0] if len(self.words) > 1 else None

    @property
    def surname(self) -> str:
        words = self.words
        i = len(words) - 1
        while i > 0 and words[i - 1] in _PARTICLES:
            i -= 1
        return " ".join(words[i:]) if len(words) > 1 else words[0]


# --------------------------------------------------------------------------- forms


def _canonical_hon(spelling: str) -> str:
    return _HONORIFIC_SPELLINGS[spelling]


def _clean_words(words: list[str], titled: bool = False) -> list[str]:
    """Drop leading non-name words and trailing possessives from a run of name words. After
    a title the last word stays: "Old Jolyon" is "Jolyon", but "Mr. Young" is Mr. Young."""
    while len(words) > titled and (words[0] in _LEADING_NON_NAME or words[0].rstrip(".") in _LEADING_NON_NAME
                     and words[0] not in _HONORIFIC_SPELLINGS):
        words = words[1:]
    while words and words[-1] in _PARTICLES:
        words = words[:-1]
    return words


def _name_runs(text: str, start: int, end: int) -> list[tuple[int, int, list[str]]]:
    """Runs of capitalised words (with inner particles and initials) inside a span."""
    runs: list[tuple[int, int, list[str]]] = []
    current: list[tuple[int, int, str]] = []

    def flush() -> None:
        words = [w for _, _, w in current]
        while words and words[-1] in _PARTICLES:
            words.pop()
            current.pop()
        if words:
            runs.append((current[0][0], current[len(words) - 1][1], words))
        current.clear()

    for m in _SPAN_WORD.finditer(text, start, end):
        word = m.group()
        s, e = m.start(), m.end()
        if word.endswith(("'s", "’s")):
            word, e = word[:-2], e - 2
        elif word.endswith(("'", "’")):
            word, e = word[:-1], e - 1
        gap = text[current[-1][1]:s] if current else ""
        if current and (gap.count("\n") > 1 or gap.strip()):
            flush()
        if re.fullmatch(_NAME_WORD, word):
            current.append((s, e, word))
            if word != m.group():  # possessive ends the name
                flush()
        elif word.endswith(".") and word[:-1] in _HONORIFIC_SPELLINGS:
            current.append((s, e, word[:-1]))
        elif re.fullmatch(r"[A-Z]\.", word) and current:
            current.append((s, e, word))
        elif word in _PARTICLES and current:
            current.append((s, e, word))
        elif word.endswith(".") and re.fullmatch(_NAME_WORD, word[:-1]):
            current.append((s, e - 1, word[:-1]))  # a name that ends its sentence
            flush()
        else:
            flush()
    flush()
    return runs


def _make_form(words: list[str]) -> tuple[str, tuple[str, ...]] | None:
    hon = ""
    if len(words) > 1 and words[-1] in _TRAILING_TITLES and words[0] not in _HONORIFIC_SPELLINGS:
        words = [_TRAILING_TITLES[words[-1]]] + list(words[:-1])  # "Hamidullah Begum"
    if len(words) > 1 and words[0] in _HONORIFIC_SPELLINGS:
        hon, words = _canonical_hon(words[0]), words[1:]
    words = _clean_words(list(words), titled=bool(hon))
    if not words:
        return None
    if len(words) > 1 and words[0] in _HONORIFIC_SPELLINGS and not hon:
        hon, words = _canonical_hon(words[0]), words[1:]
    if any(w in _HONORIFIC_SPELLINGS for w in words):
        return None  # "Mr. Mrs." or a title inside a name run: not a clean form
    if sum(1 for w in words if w not in _PARTICLES and not w.endswith(".")) > 3:
        return None  # "Miss Lucy Honeychurch Drive Out in Carriages": a title, not a name
    # "De Bourgh" and "de Bourgh" are one name, a surname of its own after a title or alone
    return hon, tuple(particles_joined(words))


_NEXT_WORD = re.compile(r"\S+\s+")


def _surface(text: str, start: int, end: int) -> str:
    return _SPACE.sub(" ", text[start:end])


def _collect_forms(text: str, persons: list[EntityMention], scan: _TextIndex) -> dict:
    forms: dict[tuple[str, tuple[str, ...]], _Form] = {}

    def add(key: tuple[str, tuple[str, ...]], surface: str, ner: bool, tag: bool = False,
            vocative: bool = False) -> None:
        form = forms.get(key)
        if form is None:
            form = forms[key] = _Form(hon=key[0], words=key[1])
        # the spelling as the form reads it: "Dear Lady Narborough" is "Lady Narborough"
        kept = surface.split(" ")
        while len(kept) > 1 and kept[0] in _LEADING_NON_NAME and kept[0].rstrip(".") not in _HONORIFIC_SPELLINGS:
            kept = kept[1:]
        surface = " ".join(kept)
        form.surfaces[surface] += 1
        form.ner += ner
        form.tags += tag
        form.vocatives += vocative

    # a name addressed in a quotation is someone spoken to: a person even if the NER missed it
    for m in _VOCATIVE.finditer(text):
        group = "open" if m.group("open") else "close"
        words = _SPACE.split(m.group(group))
        if len(words) > 1 and words[0].endswith(".") and words[0][:-1] in _HONORIFIC_SPELLINGS:
            words[0] = words[0][:-1]
        form = _make_form(words)
        if form is not None:
            surface = _surface(text, m.start(group), m.end(group)) if form[0] else " ".join(form[1])
            add(form, surface, False, vocative=True)

    # speech tags name speakers the NER misses ("said Cecil") and those known by a
    # description ("said the Hatter", "the Colonel replied")
    for regex in (_TAG_AFTER, _TAG_BEFORE):
        for m in regex.finditer(text):
            words = _SPACE.split(m.group("name"))
            if len(words) > 1 and words[0].endswith(".") and words[0][:-1] in _HONORIFIC_SPELLINGS:
                words[0] = words[0][:-1]  # "said Mrs. Long": the speaker is Mrs. Long, not "Long"
            form = _make_form(words)
            if form is None:
                if not (m.group("the") and len(words) == 1 and words[0] in _HONORIFIC_SPELLINGS):
                    continue
                form = ("", (words[0],))
            if m.group("the"):
                if form[0]:
                    continue
                form = ("the", form[1])
                add(form, "the " + " ".join(form[1]), False, True)
            elif not form[0]:
                add(form, " ".join(form[1]), False, True)
            else:
                add(form, _surface(text, m.start("name"), m.end("name")), False, True)

    covered: list[tuple[int, int]] = []
    for m in _HONORIFIC_PAIR.finditer(text):
        name = _clean_words(m.group("name").split(), titled=True)
        if name:
            for hon in ("hon1", "hon2"):
                canonical = _canonical_hon(m.group(hon))
                spelled = m.group(hon) + ("." if text[m.end(hon):m.end(hon) + 1] == "." else "")
                add((canonical, tuple(particles_joined(name))), f"{spelled} {' '.join(name)}", False)
    for m in _HONORIFIC_NAME.finditer(text):
        words = _SPACE.split(m.group("name"))
        end = m.end()
        if _common_tail(words, scan):
            words = words[:-1]  # "Miss Lucy Honeychurch Drive Out in Carriages", a chapter title
            end = _before_last_word(text, m.start(), end)
        form = _make_form([m.group("hon")] + words)
        if form is None:
            continue
        add(form, _surface(text, m.start(), end), False)
        covered.append((m.start(), m.end()))
    covered.sort()
    starts = [c[0] for c in covered]

    for mention in persons:
        if mention.label != "PERSON":
            continue
        for start, end, words in _name_runs(text, mention.start, mention.end):
            before = _HONORIFIC_BEFORE.search(text, max(0, start - 16), start)
            if before:
                start = before.start()
                words = [before.group("hon")] + words
            elif _sentence_opening(words, start, scan):
                words = words[1:]  # "Happily Smith had gone": an adverb that opens a sentence
                start = _NEXT_WORD.match(text, start).end()  # and the alias is "Smith", not "Happily Smith"
            if _common_tail([w for w in words if w not in _HONORIFIC_SPELLINGS], scan):
                words = words[:-1]
                end = _before_last_word(text, start, end)
            i = bisect.bisect_right(starts, start) - 1
            inside = i >= 0 and covered[i][0] <= start and end <= covered[i][1]
            form = _make_form(words)
            if form is None:
                continue
            if inside and form[0]:
                # the honorific regex already has it; just record the NER vote
                if form in forms:
                    forms[form].ner += 1
                continue
            add(form, _surface(text, start, end) if form[0] else " ".join(form[1]), True)
    # a name addressed at the end of a segment the tag interrupts ('"Good morning, Mr. Darcy,"
    # said Elizabeth') or after "you" ('"I sent for you, Annie, because"') is spoken to; it
    # only confirms a form found otherwise, since such a comma also closes clauses that
    # address nobody, so it is counted apart from the vocatives the name rules read
    for m in chain(_VOCATIVE_MID.finditer(text), _VOCATIVE_YOU.finditer(text)):
        words = _SPACE.split(m.group("name"))
        if len(words) > 1 and words[0].endswith(".") and words[0][:-1] in _HONORIFIC_SPELLINGS:
            words[0] = words[0][:-1]
        form = _make_form(words)
        if form is not None and form in forms:
            forms[form].addressed += 1
    return forms


def _article_forms(forms: dict, scan: _TextIndex, name_words: set) -> None:
    """Names the text mostly writes after "the" are known by a description: "the Invisible
    Man", "the March Hare" (the NER leaves the article out); each gets a "the" form too,
    unless it is a family ("the Bennets"). Counted on the name's first word, capitalised
    inside a sentence."""
    for key in [k for k, f in forms.items() if not k[0] and f.ner and not _plural(k[1][-1], name_words, scan)]:
        first = key[1][0]
        the = scan.after_the[first]
        if the < max(_ARTICLE_MIN, _ARTICLE_SHARE * scan.capitalised_mid[first]):
            continue
        described = forms.setdefault(("the", key[1]), _Form(hon="the", words=key[1]))
        described.ner += forms[key].ner
        described.surfaces["the " + " ".join(key[1])] += the


def _filter_forms(forms: dict, scan: _TextIndex) -> dict:
    """Keep the forms that look like people's names, and add the names they imply.

    Implied: the first and last word of a full name ("Montoya" of "Juanito Montoya") and
    a known first name followed by a known surname at least twice ("Edna Pontellier",
    which the NER never tagged).
    """
    name_words = {w for _, words in forms for w in words}
    # surnames the text gives a personal title: "Mr. Hall", "Miss Wood"
    titled = {words[0] for (hon, words), f in forms.items()
              if hon and hon != "the" and hon not in _FIRST_NAME_TITLES and len(words) == 1
              and sum(f.surfaces.values()) >= 2}
    kept = {key: form for key, form in forms.items() if _keep(key, form, scan, name_words, titled)}
    _article_forms(kept, scan, name_words)
    derived: dict = {}
    for (hon, words), source in list(kept.items()):
        # a one-off tag ("Himalayan India") does not make a person of its last word
        if len(words) > 1 and hon != "the" and (hon or source.ner + source.tags >= 2):
            for word in (words[0], source.surname):
                key = ("", (word,))
                if (key not in kept and word not in _NON_NAMES and word not in _PARTICLES
                        and not _plural(word, name_words, scan) and _looks_like_name(word, scan)):
                    derived.setdefault(key, _Form("", (word,)))
    firsts = {k[1][0] for k in list(kept) + list(derived) if not k[0] and len(k[1]) == 1}
    lasts = firsts | {k[1][0] for k in kept if k[0] and k[0] != "the" and len(k[1]) == 1}
    pairs: Counter = Counter()
    text = scan.text
    previous = None
    for m in _WORD_START.finditer(text):
        word = m.group()
        if (previous is not None and word in lasts and previous.group() in firsts
                and word != previous.group()
                and _GAP_ONLY.fullmatch(text, previous.end(), m.start())):
            pairs[(previous.group(), word)] += 1
        previous = m
    for (first, last), n in sorted(pairs.items()):
        key = ("", (first, last))
        if n >= 2 and key not in kept:
            derived.setdefault(key, _Form("", (first, last))).surfaces[f"{first} {last}"] += n
    kept.update(derived)
    return kept


def _keep(key: tuple[str, tuple[str, ...]], form: _Form, scan: _TextIndex, name_words: set,
          titled: set = frozenset()) -> bool:
    hon, words = key
    if hon == "the":
        plural = words[-1].endswith("s") and not words[-1].endswith("ss")  # "the Hindus"
        return form.tags >= 2 and not plural and (words[0] in _HONORIFIC_SPELLINGS or all(
            scan.lower_count(w) <= scan.capitalised_mid[w] for w in words))
    if not hon and form.ner == 0 and form.tags + form.vocatives < 2:
        return False
    if any(w in _NON_NAMES for w in words if len(words) == 1 or not hon):
        if (len(words) == 1 or all(w in _NON_NAMES for w in words)) and not (
                words[0] in _GIVEN_TOO and _speaks(form)):
            return False  # "Sunday", "Sir"; not "said June" twice
    if words[-1] in _PLACE_SUFFIXES and (not hon or len(words) > 1) and not (
            words[-1] in titled and (known_first_name(words[0]) if len(words) > 1 else form.ner or _speaks(form))):
        # "Netherfield Park", "Prince Edward Island"; but "Charles Hall" and "said Hall" where
        # the text also writes "Mr. Hall": a surname
        return False
    if len(words) == 1 and not hon and not _looks_like_name(words[0], scan, form.ner, _speaks(form)):
        return False
    if len(words) == 1 and not hon and _group_plural(words[0], scan):
        return False  # "several Basques said": people of a nation or a kind, not a character
    if len(words) == 1 and _plural(words[0], name_words, scan):
        word = words[0]
        if hon in ("Miss", "Mr") or scan.after_the[word] >= 0.5 * scan.capitalised_mid[word]:
            return False  # "the Bennets", "the Miss Bennets", "the Collinses": a family
    if not hon and len(words) > 1:
        if all(not _looks_like_name(w, scan) for w in words if w not in _PARTICLES):
            return False
        if any(w.lower() in ("and", "or") for w in words):
            return False
    if hon and len(words) == 1 and scan.lower_count(words[0]) > 3 * max(
            scan.capitalised_mid[words[0]], 1) and form.ner == 0:
        return False  # "Miss Lucky", "Lady Luck" once: a common word after a title
    return True


def _group_plural(word: str, scan: _TextIndex) -> bool:
    """A plural the text counts or gathers ("several Basques", "these Hindus", "two
    Englishmen") whose singular it also writes capitalised ("a Basque", "the Basque
    country"): a group, not a person called by a name ending in "s"."""
    if not scan.after_plural[word]:
        return False
    if word.endswith("men"):
        singulars = [word[:-3] + "man"]
    elif word.endswith("s") and not word.endswith("ss"):
        singulars = _singulars(word)
    else:
        return False
    return any(len(s) >= 3 and scan.words[s] for s in singulars)


_PLURAL_SHARE = 0.1  # a family's singular is written at least this share as often as its plural


def _plural(word: str, name_words: set, scan: _TextIndex) -> bool:
    """The word is the plural of a name word of this text ("Bennets", "Collinses"). A family's
    members are named one by one too, so the singular must be written at least
    :data:`_PLURAL_SHARE` as often: one misprinted "Mr. Sike's" does not make the Sikes a
    family of a name written 340 times."""
    if not word.endswith("s"):
        return False
    return any(s in name_words and scan.words[s] >= _PLURAL_SHARE * scan.words[word] for s in _singulars(word))


def _singulars(word: str) -> list[str]:
    """What a word ending in "s" may be the plural of: "Bennets" of "Bennet", "Collinses" of
    "Collinse" or "Collins"."""
    return [word[:-1]] + ([word[:-2]] if word.endswith("es") else [])


def _sentence_opening(words: list[str], start: int, scan: _TextIndex) -> bool:
    """The first word of a run opens a sentence and is no name here: a common word in this
    book (written more often in lower case than capitalised inside sentences), or a word the
    book never capitalises inside a sentence and no first name ("Hitherto Gino")."""
    first = words[0].rstrip(".")
    if len(words) < 2 or first in _HONORIFIC_SPELLINGS or not scan.sentence_initial(start):
        return False
    if first in _PARTICLES:
        return False  # "Van Dyk sat down": the surname's particle, capitalised
    mid = scan.capitalised_mid[first]
    return scan.lower_count(first) > mid or (mid == 0 and not known_first_name(first))


_TAIL_MID = 2  # capitalised uses inside sentences that a trailing common word may have


def _common_tail(words: list[str], scan: _TextIndex) -> bool:
    """The last of two or more name words is a common word of this book that it hardly ever
    capitalises inside a sentence: a title-case heading ran on past the name ("Miss Lucy
    Honeychurch Drive Out", "Mr. Pickwick Takes"). A surname that is also a word ("John
    Hope") is capitalised whenever the person is named, so it stays."""
    if len(words) < 2:
        return False
    last = words[-1]
    mid = scan.capitalised_mid[last]
    return mid <= _TAIL_MID and scan.lower_count(last) > mid


def _before_last_word(text: str, start: int, end: int) -> int:
    """The end of a span without its last word."""
    i = end
    while i > start and not text[i - 1].isspace():
        i -= 1
    while i > start and text[i - 1].isspace():
        i -= 1
    return i


_SPEAKING_MID = 5  # capitalised uses inside sentences that make a speaking common word a name


def _speaks(form: _Form) -> bool:
    """The form is the subject of speech verbs at least twice ("said Montoya", "Montoya said")."""
    return form.tags >= 2


def _looks_like_name(word: str, scan: _TextIndex, ner: int = 0, speaks: bool = False) -> bool:
    """A capitalised word used as a name here, not a common word or a place.

    ``speaks``: the word is the subject of speech verbs ("said Montoya"); places do not
    speak, so its uses as a place ("at Montoya's", his hotel) do not rule it out.
    """
    if "." in word:
        return False
    word = word.split()[-1]  # "de Griers": the name word after its particles
    mid = scan.capitalised_mid[word]
    if mid == 0 and (ner < 2 or scan.lower_count(word)):
        return False  # only ever at the start of a sentence ("Hitherto", "Pray")
    if scan.lower_count(word) > mid and not (speaks and mid >= _SPEAKING_MID and word.lower() not in _NOT_NAMES):
        return False  # mostly a common word ("Hope", "Will" stay when capitalised), unless it
        # speaks and is capitalised inside sentences often enough: "said May" ("may" is a verb)
    if speaks:
        return True
    if word in scan.place_heads:
        return False
    if scan.locative[word] >= max(3, 0.4 * mid):
        return False  # "at Pemberley", "to Brighton", "in Hertfordshire"
    if scan.after_article[word] >= max(2, 0.3 * mid):
        return False  # "a Roman", "a Sikh": a common noun
    return True
