"""Step 4e' of :mod:`litlens.quotes.characters`: another name of a person, as the text gives it.

A novel sometimes says outright that two names are one person, most often a married woman
and her maiden name, or a man and the name he goes by:

* "Mrs. Weston (poor Miss Taylor that was)", "Mrs. Bumble, Mrs. Corney that was";
* "Mrs. Elton, formerly Miss Hawkins", "Lady Russell, née Ward", "Lady Bertram, who had
  been Miss Maria Ward,";
* "Noah Claypole, alias Morris Bolter", "Mr. Fang, otherwise Mr. Laing".

Two name forms written next to each other in one of these ways join their entries, unless
one entry is a man and the other a woman. The names themselves never say it ("Miss Taylor"
and "Mrs. Weston" share no word), so the name rules (:mod:`~litlens.quotes.aliases`) and
the learned same-person step cannot.
"""

from __future__ import annotations

import re

from litlens.quotes.aliases import _Entity, _Union
from litlens.quotes.forms import _Form

_GAP = 40  # characters at most between the two names
# what stands between the names: "A (poor B that was)", "A, formerly B", "A alias B"
_BEFORE_THAT_WAS = re.compile(r"\s*(?:[,(\u2014]|--)\s*(?:poor\s+|dear\s+)?", re.IGNORECASE)
_THAT_WAS = re.compile(r"\s+that\s+was\b")
_LINK = re.compile(r"\s*(?:[,(\u2014]|--)?\s*(?:formerly|previously|n[ée]e|born|alias|otherwise|a\.k\.a\.|"
                   r"who\s+had\s+been|whose\s+maiden\s+name\s+was)\s+", re.IGNORECASE)
# ... and the second name closes the aside ("Mr. Claypole, otherwise Bolter, when"), so that
# "Mr. Darcy, otherwise Bingley would have come" links nobody
_CLOSE = re.compile(r"\s*(?:[,;:.!?)\u2014]|--|$)")


def _linked(text: str, first: tuple[int, int], second: tuple[int, int]) -> bool:
    between = text[first[1]:second[0]]
    if len(between) > _GAP:
        return False
    if _LINK.fullmatch(between):
        return bool(_CLOSE.match(text, second[1]))
    return bool(_BEFORE_THAT_WAS.fullmatch(between) and _THAT_WAS.match(text, second[1]))


def join_former_names(text: str, entities: list[_Entity], ambiguous: list[tuple[_Form, list[_Entity]]],
                      occurrences: list[tuple[int, int, _Form]]
                      ) -> tuple[list[_Entity], list[tuple[_Form, list[_Entity]]]]:
    """``entities`` with the entries the text names as one person joined (see the module
    docs), and ``ambiguous`` with its candidates read as the joined entries: a form whose
    candidates all joined into one belongs to it."""
    owner = {id(f): k for k, e in enumerate(entities) for f in e.forms}
    union = _Union(len(entities))
    joined = False
    for (s1, e1, f1), (s2, e2, f2) in zip(occurrences, occurrences[1:]):
        a, b = owner.get(id(f1)), owner.get(id(f2))
        if a is None or b is None or union.root(a) == union.root(b) or not _linked(text, (s1, e1), (s2, e2)):
            continue
        genders = {entities[a].gender(strong=False), entities[b].gender(strong=False)} - {""}
        if len(genders) > 1:
            continue  # a man and a woman: "Mr. and Mrs. ..." read wrongly, not one person
        union.join(a, b)
        joined = True
    return union.apply(entities, ambiguous) if joined else (entities, ambiguous)
