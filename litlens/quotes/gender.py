"""Gender of name forms and characters: honorifics first, then pronoun votes (step 6 of
:mod:`litlens.quotes.characters`)."""

from __future__ import annotations

import bisect

from litlens.model import Gender
from litlens.quotes.forms import _Form
from litlens.quotes.names import (
    _HONORIFICS, _MAJORITY, _MIN_VOTES, _PRONOUN, _PRONOUN_WINDOW, _STRONG_MAJORITY,
    _STRONG_VOTES, _TextIndex,
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


def _vote_pronouns(text: str, occurrences: list, scan: _TextIndex) -> None:
    """Each mention votes with the first gendered pronoun after it (same or next sentence)."""
    pronouns = [(m.start(), "m" if m.group(1) else "f") for m in _PRONOUN.finditer(text)]
    positions = [p for p, _ in pronouns]
    starts = scan.sentence_starts
    for i, (start, end, form) in enumerate(occurrences):
        limit = min(end + _PRONOUN_WINDOW, len(text))
        if i + 1 < len(occurrences):
            limit = min(limit, occurrences[i + 1][0])
        sentence = scan.sentence_of(start)
        if sentence + 2 < len(starts):
            limit = min(limit, starts[sentence + 2])
        j = bisect.bisect_left(positions, end)
        if j < len(positions) and positions[j] < limit:
            if pronouns[j][1] == "m":
                form.male += 1
            else:
                form.female += 1



def _form_gender(form: _Form) -> str:
    return (_HONORIFICS[form.hon][0] if form.hon else "") or _vote(form.male, form.female, True)



_GENDERS: dict[str, Gender] = {"m": "male", "f": "female", "": "unknown"}
