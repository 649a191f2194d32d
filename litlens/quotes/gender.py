"""Gender of name forms and characters: honorifics first, then pronoun votes, then the
first names (step 6 of :mod:`litlens.quotes.characters`)."""

from __future__ import annotations

import bisect
from collections import Counter

from litlens.model import Gender
from litlens.quotes.forms import _Form
from litlens.quotes.names import (
    _HONORIFIC_SPELLINGS, _HONORIFICS, _MAJORITY, _MIN_VOTES, _PRONOUN, _PRONOUN_WINDOW, _STRONG_MAJORITY,
    _STRONG_VOTES, _TextIndex, name_lexicon,
)


def _vote(male: int, female: int, strong: bool = False) -> str:
    """Gender from pronoun votes; ``strong`` (used to keep names apart) asks for more."""
    total = male + female
    least, majority = (_STRONG_VOTES, _STRONG_MAJORITY) if strong else (_MIN_VOTES, _MAJORITY)
    if total < least:
        return ""
    if male >= majority * total:
        return "m"
    if female >= majority * total:
        return "f"
    return ""


def _vote_pronouns(text: str, occurrences: list, scan: _TextIndex,
                   speech: list[tuple[int, int]] | None = None) -> None:
    """Each mention votes with the first gendered pronoun after it (same or next sentence).

    ``speech`` (spans of quoted speech): a mention in narration votes with a pronoun of
    the narration only — 'Frances said: "He is late."' says nothing about Frances. The
    votes with speech left in go to ``form.any_votes``, the fallback of :func:`final_gender`.
    """
    found = list(_PRONOUN.finditer(text))
    pronouns = [(m.start(), "m" if m.group(1) else "f") for m in found]
    subjects = {m.start() for m in found if m.group().lower() in ("he", "she")}
    positions = [p for p, _ in pronouns]
    starts = scan.sentence_starts
    spans = sorted(speech or [])
    span_starts = [s for s, _ in spans]

    def quotation(position: int) -> int:
        k = bisect.bisect_right(span_starts, position) - 1
        return k if k >= 0 and position < spans[k][1] else -1

    def _subject_before(j: int, start: int, sentence: int, previous: int) -> bool:
        """'He thought of May, and of what his mother had said': a subject pronoun of the
        same sex stands before the mention in its sentence, with no other name between, so
        the later pronoun is that person's too."""
        k = bisect.bisect_left(positions, max(starts[sentence] if sentence >= 0 else 0, previous))
        return any(pronouns[m][1] == pronouns[j][1] and positions[m] in subjects
                   for m in range(k, bisect.bisect_left(positions, start)))

    for i, (start, end, form) in enumerate(occurrences):
        limit = min(end + _PRONOUN_WINDOW, len(text))
        if i + 1 < len(occurrences):
            limit = min(limit, occurrences[i + 1][0])
        sentence = scan.sentence_of(start)
        if sentence + 2 < len(starts):
            limit = min(limit, starts[sentence + 2])
        j = bisect.bisect_left(positions, end)
        # "Jacky waited for him": an object "him" in the mention's own sentence is someone
        # else (he would be "himself"); the vote goes to the next pronoun
        while j < len(positions) and positions[j] < limit and scan.sentence_of(positions[j]) == sentence \
                and text.startswith("him", positions[j]) and not text.startswith("himself", positions[j]):
            j += 1
        if j < len(positions) and positions[j] < limit:
            form.any_votes[pronouns[j][1]] += 1  # the vote before speech is left out (a fallback)
        if spans and quotation(start) < 0:
            while j < len(positions) and positions[j] < limit and quotation(positions[j]) >= 0:
                j += 1
        if j < len(positions) and positions[j] < limit and not _subject_before(
                j, start, sentence, occurrences[i - 1][1] if i else 0):
            if pronouns[j][1] == "m":
                form.male += 1
            else:
                form.female += 1


# what a family calls its elders, used as a name ("said Granny", "Grandpapa came in"); "Papa"
# and "Mamma" are never names to discovery (forms._NON_NAMES)
_KIN_NAMES = {**dict.fromkeys(("Granny", "Grannie", "Grandmother", "Grandmama", "Grandmamma", "Mammy", "Mummy"), "f"),
              **dict.fromkeys(("Grandpapa", "Grandfather", "Grandad", "Granddad", "Daddy"), "m")}


def _hon_gender(form: _Form) -> str:
    """The gender of a form's honorific: "Mrs. Hall", and "the Duchess" (a title as
    description); a family's name for an elder ("Granny", "Grandpapa") is one too."""
    if not form.hon and len(form.words) == 1 and form.words[0] in _KIN_NAMES:
        return _KIN_NAMES[form.words[0]]
    if form.hon == "the":
        title = _HONORIFIC_SPELLINGS.get(form.words[0]) if len(form.words) == 1 else None
        return _HONORIFICS[title][0] if title and title != "the" else ""
    return _HONORIFICS[form.hon][0] if form.hon else ""


def _form_gender(form: _Form) -> str:
    return _hon_gender(form) or _vote(form.male, form.female, True)



_GENDERS: dict[str, Gender] = {"m": "male", "f": "female", "": "unknown"}
_NAME_SHARE = 0.8  # of the mentions whose first name the lexicon knows, for one gender
_NAME_KNOWN = 0.5  # of all the mentions read, known to the lexicon


def name_gender(word: str) -> str:
    """"m" or "f" when the lexicon calls the first name male or female outright ("Charlotte",
    "Edna"), else "" (names used for both, "mostly" one, or unknown: "Jo", "Darcy")."""
    return {"male": "m", "female": "f"}.get(name_lexicon().get_gender(word), "")


def first_name_gender(entity) -> str:
    """The gender the entity's first names give: the first word of each full name and each
    untitled single word, weighted by mentions; "" unless 80 % of the known ones agree and the
    lexicon knows at least half of the mentions (a bare surname, "Holmes", says nothing)."""
    votes: Counter = Counter()
    for f in entity.forms:
        if len(f.words) == 1 and f.hon:
            continue  # "Mr. Weston": a surname
        votes[name_gender(f.words[0])] += max(f.count, 1)
    known = votes["m"] + votes["f"]
    if not known or known < _NAME_KNOWN * sum(votes.values()):
        return ""
    return "m" if votes["m"] >= _NAME_SHARE * known else "f" if votes["f"] >= _NAME_SHARE * known else ""


def final_gender(entity) -> Gender:
    """A character's gender: honorifics, then the pronouns after its mentions in the
    narration (three votes, a 60 % majority); when those do not decide, its first names
    ("Charlotte", whose pronouns are often the "he" of the man beside her); then all pronouns
    with speech left in, then any majority of them (fewer than three votes, or a thin one) —
    "unknown" only when they are even or there are none."""
    g = entity.gender(strong=False) or first_name_gender(entity)
    male = sum(f.any_votes["m"] for f in entity.forms)
    female = sum(f.any_votes["f"] for f in entity.forms)
    if not g:
        g = _vote(male, female)
    if not g:
        narration = (sum(f.male for f in entity.forms), sum(f.female for f in entity.forms))
        for m, f in (narration, (male, female)):
            if m != f:
                g = "m" if m > f else "f"
                break
    return _GENDERS[g]
