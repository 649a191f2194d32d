"""Step 4j of :mod:`litlens.quotes.characters`: a role the narration sets beside a name.

Some people speak under the post they hold: "cried the Collector", "said the chaplain". The
list then holds the role as an entry of its own beside the person ("the Collector" beside
Mr. Turton), and the attributor splits one speaker's lines between the two. The narration
usually says once who holds the post, in apposition: "the Collector, Mr. Turton, with whom
they had dined", "Mr. McBryde, the District Superintendent of Police, was ...", "Mr. Eager,
the English chaplain at Florence."

A role entry is one whose every form is a description ("the Collector") or a name the book
writes after "the" at least half the time ("Superintendent", "Civil Surgeon"). It joins the
named entry that its appositions name, when they name one entry only, of the same sex or of
no known sex. Only a definite phrase names ("a surgeon in the neighbourhood" says what he
is). A series ("the King, the Queen, and the Knave") is no apposition: the role phrase must
not be followed by another name (after "and" or not), nor the name preceded by one; and a
name followed by its verb is a clause's subject ("On their way to the magistrate, Mr. Bumble
instructed Oliver").
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from litlens.quotes.aliases import Found
from litlens.quotes.answers import _two_sexes, join_entries

_DETERMINER = r"(?:the|our|their|his|her|its|my|your)"  # definite: "a surgeon" classifies, "the surgeon" names
# ', the District Superintendent' after a name: up to three words before the role's noun, which
# ends the phrase or is followed by "of" / "at" / "in" ("the English chaplain at Florence")
_ROLE_AFTER = re.compile(r",\s+" + _DETERMINER + r"\s+((?:[\w'’-]+\s+){0,3}?[\w'’-]+)"
                         r"(?=\s*[,.;:!?)]|\s+(?:of|at|in)\b)", re.IGNORECASE)
# 'the Collector, ' before a name
_ROLE_BEFORE = re.compile(r"\b" + _DETERMINER + r"\s+((?:[\w'’-]+\s+){0,2}?[\w'’-]+),\s+$", re.IGNORECASE)
# what follows an item of a series (a name, or "and" before one), or what precedes an item
_SERIES = re.compile(r"\s*(?:,\s*)?(?:(?:and|or|nor)\s+)?(?:the\s+)?[A-Z]")
# (a name may carry its own description: "Fielding, the servant Antony, the Nawab Bahadur")
_SERIES_BEFORE = re.compile(r"(?:,|\b(?:and|or|nor))\s*(?:" + _DETERMINER + r"\s+(?:[\w'’-]+\s+){0,2})?$",
                            re.IGNORECASE)
# the name in 'the Collector, Mr. Turton, with whom' closes the apposition; a name followed by
# its verb is the subject of a clause the role phrase only leads into ("On their way to the
# magistrate, Mr. Bumble instructed Oliver")
_CLOSED = re.compile(r"\s*[,.;:!?)—-]")
_THE_SHARE = 0.5  # a name the book writes after "the" this often is a description ("the Superintendent")


def _role_heads(found: Found, entities: list) -> dict[str, int]:
    """The words of each role entry's forms ("collector", "civil surgeon"), for entries whose
    every form is a description; words two entries share are left out."""
    flat = " " + " ".join(found.scan.text.lower().split())
    heads: dict[str, set[int]] = defaultdict(set)
    for k, entity in enumerate(entities):
        nouns = set()
        for form in entity.forms:
            if form.hon == "the" or not form.hon and _after_the(flat, form.words):
                nouns.add(" ".join(form.words).lower())
            else:
                break
        else:
            for noun in nouns:
                heads[noun].add(k)
    return {noun: next(iter(owners)) for noun, owners in heads.items() if len(owners) == 1}


def _after_the(flat: str, words: tuple[str, ...]) -> bool:
    """``flat``: the text in lower case, its spaces single (a quick count, not by whole words)."""
    phrase = " " + " ".join(words).lower()
    uses = flat.count(phrase)
    return uses > 0 and flat.count(" the" + phrase) >= _THE_SHARE * uses


def _role(phrase: str, roles: set[str]) -> str | None:
    """The longest of ``roles`` that ends the phrase ("the District Superintendent":
    "superintendent"; "the old man" is not "invisible man")."""
    words = " " + " ".join(phrase.lower().split())
    return max((r for r in roles if words.endswith(" " + r)), key=len, default=None)


def apposed(found: Found, entities: list, roles: set[str], skip: set[int] = frozenset()) -> dict[str, Counter]:
    """For each role (its words in lower case: "collector", "civil surgeon"), the entries
    (indexes into ``entities``, none of ``skip``) the narration names in apposition with a
    definite phrase ending in it, and how often."""
    text = found.scan.text
    owner = {id(f): k for k, e in enumerate(entities) for f in e.forms}
    named: dict[str, Counter] = defaultdict(Counter)
    for start, end, form in found.occurrences:
        who = owner.get(id(form))
        if who is None or who in skip:
            continue
        window = text[max(0, start - 60):start]
        after = _ROLE_AFTER.match(text, end, end + 80)
        role = after and _role(after.group(1), roles)
        if role and not _SERIES.match(text, after.end()) and not _SERIES_BEFORE.search(window):
            named[role][who] += 1
        before = _ROLE_BEFORE.search(window)
        role = before and _role(before.group(1), roles)
        if role and _CLOSED.match(text, end) and not _SERIES.match(text, end) \
                and not _SERIES_BEFORE.search(window[:before.start()]):
            named[role][who] += 1
    return named


def join_appositions(found: Found) -> Found:
    """``found`` with each role entry joined to the one named entry its appositions name."""
    entities = [e for e in found.entities if e.forms]
    heads = _role_heads(found, entities)
    if not heads:
        return found
    pairs = []
    for words, by in apposed(found, entities, set(heads), set(heads.values())).items():
        if len(by) != 1:
            continue  # two people named beside one role: a post held in turn, or a series
        role, who = heads[words], next(iter(by))
        if not _two_sexes(entities[role], entities[who]):
            pairs.append((who, role))
    return join_entries(found, entities, pairs)
