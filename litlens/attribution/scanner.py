"""Finding a character list's names in a book: :class:`AliasScanner`.

Used by :func:`litlens.attribution.context.build_context` for every mention of a
character, and for the names a speech cue gives ("said Mr. Turton", "said the count").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from litlens.model import Character
from litlens.quotes.described import _GENERIC_HEADS, _HONORIFIC_WORDS
from litlens.quotes.lexicon import HONORIFICS, NAME_PARTICLES, Names, elided_particle

_MALE_TITLES = {"mr", "sir", "dr", "lord", "monsieur", "captain", "colonel", "professor", "major", "general", "rev", "inspector"}
_TITLE_WORDS = _MALE_TITLES | {"mrs", "miss", "ms", "lady", "madame", "mme", "mlle", "mademoiselle"}
# Ranks and offices a narrator uses as a noun for the one character who holds them
# ("said the count" for Count Mippipopolous, "the general" for General Tilney).
_RANKS = {"dr": "doctor", **{w: w for w in """doctor professor captain colonel major general inspector sergeant
          lieutenant admiral count countess baron baroness duke duchess marquis prince princess judge
          bishop abbé abbe""".split()}}
# Titles a narrator may use alone for the one character who bears them ("said Mademoiselle"
# for Mademoiselle Reisz), read like ranks.
_TITLES_ALONE = {"mademoiselle": "mademoiselle", "mlle": "mademoiselle", "madame": "madame", "mme": "madame",
                 "monsieur": "monsieur", "signor": "signor", "signora": "signora", "signorina": "signorina",
                 "herr": "herr", "frau": "frau", "señor": "señor", "señora": "señora", "senor": "señor", "senora": "señora"}
# The sex a title before a name tells ("Mr. Bertram" is none of the Miss Bertrams).
_TITLE_GENDER = {**dict.fromkeys("mr sir lord monsieur signor herr master".split(), "male"),
                 **dict.fromkeys("mrs miss ms lady madame mme mlle mademoiselle signora signorina frau".split(), "female")}
_DETERMINERS = ("the", "a", "an")
MIN_LINK_MENTIONS = 2  # a bare-name entry is linked only to fuller characters named at least this often
LINK_SHARE = 10  # ... and at least 1/LINK_SHARE as often as the bare name itself


def normalise_alias(alias: str) -> str:
    """Case-, period- and whitespace-insensitive form of a name ("Mr.  Darcy" -> "mr darcy")."""
    return " ".join(alias.replace(".", " ").replace("’", "'").lower().split())


_TOKEN = re.compile(r"[^\W\d_][\w'’-]*")
_JOIN = re.compile(r"[\s.]*")


# Words before a name that are never a name themselves; "young", "old", "little" and "poor"
# go before names too ("old Sikes") but are also surnames ("Mr. Young", "said Young")
_TITLES_ONLY = _HONORIFIC_WORDS - {"young", "old", "little", "poor"}


_MARRIED_TITLES = frozenset("mrs mistress madame mme frau signora senora".split())


# Titles a list's placeholder entry may carry for a fuller character: a man's plain "Mr.",
# an unmarried woman's "Miss" (a "Mrs." or a "Major" of the surname is a parent).
_PLACEHOLDER_TITLES = {"mr": "male", "miss": "female"}


def _placeholders(characters: Sequence[Character]) -> list[tuple[int, str, set[int]]]:
    """A minor entry that is only "Mr." or "Miss" and a surname ("Mr. Crawford" beside
    "Henry Crawford", "Miss Bertram" beside Maria and Julia Bertram): a list's placeholder
    for the form the text calls a fuller character by. (entry, its key, the fuller entries
    of its sex with that surname whose names carry no title). Only where the list says the
    entry is minor (an imported gold list); the ranker then chooses among them by who the
    text says speaks, as for a bare surname."""
    by_surname: dict[str, set[int]] = {}
    for fi, f in enumerate(characters):
        names = [normalise_alias(a).split() for a in [f.name, *f.aliases]]
        if any(w and w[0] in _TITLE_WORDS for w in names):
            continue
        for words in names:
            if len(words) >= 2:
                by_surname.setdefault(words[-1], set()).add(fi)
    out = []
    for ci, c in enumerate(characters):
        keys = {normalise_alias(a) for a in [c.name, *c.aliases]} - {""}
        words = next(iter(keys)).split() if len(keys) == 1 else []
        if c.category != "minor" or len(words) != 2 or words[0] not in _PLACEHOLDER_TITLES:
            continue
        sex = _PLACEHOLDER_TITLES[words[0]]
        fuller = {fi for fi in by_surname.get(words[1], ()) if fi != ci and characters[fi].gender == sex}
        if fuller:
            out.append((ci, " ".join(words), fuller))
    return out


def _husbands_names(characters: Sequence[Character]) -> set[tuple[int, str]]:
    """(entry, full name) for each married title + full name that another entry holds
    without the title: "Mrs. John Dashwood" beside "John Dashwood" is his wife, and "John"
    is his first name, not hers."""
    def cores(c: Character) -> list[tuple[str | None, str]]:
        out = []
        for alias in [c.name, *c.aliases]:
            words = normalise_alias(alias).split()
            hon = words[0] if words and words[0] in _HONORIFIC_WORDS else None
            core = words[1:] if hon else words
            if len(core) >= 2:
                out.append((hon, " ".join(core)))
        return out

    held = [cores(c) for c in characters]
    plain: dict[str, set[int]] = {}
    for ci, forms in enumerate(held):
        for hon, core in forms:
            if hon not in _MARRIED_TITLES:
                plain.setdefault(core, set()).add(ci)
    return {(ci, core) for ci, forms in enumerate(held) for hon, core in forms
            if hon in _MARRIED_TITLES and plain.get(core, set()) - {ci}}


_ABBREVIATED = frozenset("mr mrs ms dr st mme mlle capt col gen lieut rev prof".split())


def _title_before_name(text: str, toks: list[tuple[int, int, str]], i: int) -> bool:
    """``toks[i]`` is a title word that opens a longer name ("Master" of "Master Charles
    Bates", "Dr." of "Dr. Bull"), not one that ends a sentence ("said the General. General
    Tilney bowed")."""
    if i + 1 >= len(toks) or toks[i][2] not in HONORIFICS or not text[toks[i + 1][0]].isupper():
        return False
    gap = text[toks[i][1] : toks[i + 1][0]]
    if gap.startswith(".") and toks[i][2] in _ABBREVIATED:
        gap = gap[1:]
    return gap.isspace() and "\n\n" not in gap


class AliasScanner:
    """Finds the aliases of a character list in text, longest match first.

    Matching is on words (case-insensitive, periods and spacing ignored), and a match
    must start with a capital letter or a surname's particle: "rabbit" is not "Rabbit",
    "de Worms" is "De Worms".

    Besides the listed aliases, the first and last words of a full name count as its
    aliases ("Bill" and "Gorton" of "Bill Gorton"), and so does a surname listed only after
    a title ("Turton" of "Mr. Turton"). With the book's ``names``, such a
    derived word that the book writes in lower case more often than capitalised inside
    sentences is a common word ("That" of "That Inspector In The Cab", "Man" of "the
    Wooden-Legged Man", "One" of "One Of The Police"): in the book's text it is found only
    where a capital inside a sentence marks it as a name, never at the start of a sentence.

    An entry that is only a bare name ("Smith" beside "John Smith"), or a minor entry of a
    gold list that is only "Mr." or "Miss" and a surname ("Mr. Crawford" beside "Henry
    Crawford"), is linked to the fuller characters: its form names them all (``linked``).

    ``ranks`` maps a rank or office ("count", "colonel", "doctor") to the characters whose
    names start with it, for noun cues that name no one else ("said the count").
    """

    def __init__(self, characters: Sequence[Character], names: Names | None = None):
        owners: dict[str, set[int]] = {}
        for ci, c in enumerate(characters):
            for alias in [c.name, *c.aliases]:
                key = normalise_alias(alias)
                if len(key) < 2 or key in _TITLES_ONLY:
                    continue
                owners.setdefault(key, set()).add(ci)
                if key.startswith("the ") and key.count(" ") >= 1:
                    owners.setdefault(key[4:], set()).add(ci)  # "the White Rabbit" -> "White Rabbit"
        # Parts of full names the list leaves out ("Bill" of "Bill Gorton", "Mr. Gorton"),
        # unless they are somebody's alias already. A wife named by her husband's full name
        # ("Mrs. John Dashwood" beside "John Dashwood") does not take his first name.
        husbands = _husbands_names(characters)
        derived: dict[str, set[int]] = {}
        for ci, c in enumerate(characters):
            for alias in [c.name, *c.aliases]:
                words = normalise_alias(alias).split()
                hon = words[0] if words and words[0] in _HONORIFIC_WORDS else None
                core = words[1:] if hon else words
                if len(core) < 2:
                    continue
                forms = [core[0], core[-1]] + ([f"{hon} {core[-1]}"] if hon else [])
                if (ci, " ".join(core)) in husbands:
                    forms = forms[1:]
                for form in forms:
                    if len(form) > 2 and form not in owners and form not in _TITLES_ONLY:
                        derived.setdefault(form, set()).add(ci)
        # A surname the list has only after an honorific ("Mr. Turton", "Miss Lavish") is an
        # alias too ("said Turton"); shared by several holders, it names the one man among
        # them if there is one (a bare surname is how novels of the period refer to men).
        surnames: dict[str, dict[int, str]] = {}
        for ci, c in enumerate(characters):
            for alias in [c.name, *c.aliases]:
                words = normalise_alias(alias).split()
                if len(words) == 2 and words[0] in _TITLE_WORDS and len(words[1]) > 2 and words[1] not in _TITLES_ONLY:
                    surnames.setdefault(words[1], {})[ci] = words[0]
        for form, holders in surnames.items():
            if form in owners or form in derived:
                continue
            men = {ci for ci, title in holders.items() if title in _MALE_TITLES}
            derived[form] = men if len(holders) > 1 and len(men) == 1 else set(holders)
        for form, cis in derived.items():
            owners[form] = cis
        # A list entry that is only a bare first name or surname ("Smith" beside "John
        # Smith", "Small" beside "Jonathan Small") is linked to the fuller characters it is
        # part of: the word names all of them and the ranker chooses by who the text says
        # speaks. Two known sexes that differ keep them apart ("Hamidullah" and "Hamidullah Begum").
        parts: dict[str, set[int]] = {}
        for ci, c in enumerate(characters):
            for alias in [c.name, *c.aliases]:
                words = normalise_alias(alias).split()
                core = words[1:] if words and words[0] in _HONORIFIC_WORDS else words
                if len(core) >= 2:
                    # a wife listed by her husband's full name has his surname, not his first name
                    ends = (core[-1],) if (ci, " ".join(core)) in husbands else (core[0], core[-1])
                    for w in ends:
                        parts.setdefault(w, set()).add(ci)
        self.linked: dict[int, tuple[int, ...]] = {}
        for ci, c in enumerate(characters):
            keys = {normalise_alias(a) for a in [c.name, *c.aliases]} - {""}
            if not keys or any(len(k.split()) != 1 for k in keys):
                continue
            for key in keys:
                fuller = {fi for fi in parts.get(key, ()) if fi != ci and not (
                    c.gender in ("male", "female") and characters[fi].gender in ("male", "female")
                    and characters[fi].gender != c.gender)}
                if fuller and key in owners:
                    owners[key] = set(owners[key]) | fuller
                    self.linked[ci] = tuple(sorted(set(self.linked.get(ci, ())) | fuller))
        for ci, key, fuller in _placeholders(characters):
            owners[key] = set(owners[key]) | fuller
            self.linked[ci] = tuple(sorted(set(self.linked.get(ci, ())) | fuller))
        self.genders = [c.gender for c in characters]
        self.names = names
        self.common = {f for f in derived if names and names.mostly_lower(f.split()[-1])}
        self.owners = {k: tuple(sorted(v)) for k, v in owners.items()}
        self.max_words = max((len(k.split()) for k in self.owners), default=0)
        self.first_words = {k.split()[0] for k in self.owners}
        ranks: dict[str, set[int]] = {}
        for ci, c in enumerate(characters):
            for alias in [c.name, *c.aliases]:
                words = normalise_alias(alias).split()
                if len(words) >= 2 and words[0] in _RANKS:
                    ranks.setdefault(_RANKS[words[0]], set()).add(ci)
                if len(words) >= 2 and words[0] in _TITLES_ALONE:
                    ranks.setdefault(_TITLES_ALONE[words[0]], set()).add(ci)
        self.ranks = {k: tuple(sorted(v)) for k, v in ranks.items()}
        # Descriptions in the list ("The Old Gentleman", "the Porter") by their head noun,
        # for a cue that words them differently ("said the gentleman", "the worthy porter").
        heads: dict[str, set[int]] = {}
        for ci, c in enumerate(characters):
            for alias in [c.name, *c.aliases]:
                words = normalise_alias(alias).split()
                if len(words) < 2 or words[0] not in _DETERMINERS:
                    continue
                for stop in ("of", "in", "with", "from", "at"):
                    if stop in words[1:]:
                        words = words[: words.index(stop, 1)]
                head = words[-1]
                if len(words) >= 2 and head not in _HONORIFIC_WORDS and head not in _GENERIC_HEADS:
                    heads.setdefault(head, set()).add(ci)
        self.heads = {k: tuple(sorted(v)) for k, v in heads.items() if len(v) == 1}
        # A fuller name the book seldom uses is no reason to share a bare name with it (a
        # misread "Miss Lucy Honeychurch Drive", "Miss Lucy" five times, beside "Lucy" used
        # 458 times): with the book at hand, a link needs the fuller character named by
        # forms of its own at least twice and at least a tenth as often as the bare name.
        if self.linked and names is not None:
            found = self.scan(names.text)
            solo = Counter(owners[0] for _, _, owners in found if len(owners) == 1)
            shared = Counter(ci for _, _, owners in found for ci in owners)
            for ci, fuller in list(self.linked.items()):
                least = max(MIN_LINK_MENTIONS, shared[ci] / LINK_SHARE)
                weak = {fi for fi in fuller if solo[fi] < least}
                if not weak:
                    continue
                for key in {normalise_alias(a) for a in [characters[ci].name, *characters[ci].aliases]}:
                    if key in self.owners:
                        self.owners[key] = tuple(o for o in self.owners[key] if o not in weak)
                self.linked[ci] = tuple(fi for fi in fuller if fi not in weak)

    def scan(self, text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, tuple[int, ...]]]:
        if not self.owners:
            return []
        end = len(text) if end is None else end
        toks = []
        for m in _TOKEN.finditer(text, start, end):
            word = m.group().lower().replace("’", "'")
            stop = m.end()
            if word.endswith("'s") and len(word) > 3:  # possessive: "Mr. Woodhouse's"
                word, stop = word[:-2], stop - 2
            elif word.endswith("'"):
                word, stop = word[:-1], stop - 1
            toks.append((m.start(), stop, word))
        out = []
        i = 0
        # Common derived words are refused at sentence starts only in the book's own text.
        names = self.names if self.common and self.names is not None and text is self.names.text else None
        n = len(toks)
        while i < n:
            s0, e0, w0 = toks[i]
            # a surname's particle may open it in lower case ("said de Worms")
            if not (text[s0].isupper() or w0 in NAME_PARTICLES or elided_particle(text[s0:e0])) \
                    or w0 not in self.first_words:
                i += 1
                continue
            best = None
            words = [w0]
            j = i
            initial = names is not None and names.sentence_initial(s0)
            while True:
                key = " ".join(words)
                if key in self.owners and not (initial and key in self.common):
                    best = (j, self.owners[key])
                if len(words) >= self.max_words or j + 1 >= n:
                    break
                gap = text[toks[j][1] : toks[j + 1][0]]
                if len(gap) > 3 or _JOIN.fullmatch(gap) is None:
                    break
                j += 1
                words.append(toks[j][2])
            if best is None or (best[0] == i and _title_before_name(text, toks, i)):
                i += 1  # a title listed as a character ("The Master") before a name is the
                continue  # name's: "Master Charles Bates" is Charley Bates
            j, owners = best
            if len(owners) > 1 and i > 0 and toks[i - 1][2] in _TITLE_GENDER and s0 - toks[i - 1][1] <= 3:
                sex = _TITLE_GENDER[toks[i - 1][2]]
                kept = tuple(ci for ci in owners if self.genders[ci] == sex)
                owners = kept or owners  # "Mr. Bertram": the men of the family
            out.append((s0, toks[j][1], owners))
            i = j + 1
        return out

    def describe(self, phrase: str) -> tuple[int, ...]:
        """Candidates a noun cue's subject describes: its longest opening words that are an
        alias ("the mariner, rising" -> "the mariner"), a title or rank alone ("the
        Colonel", "Mademoiselle"), else a description in the list with the same head noun
        ("said the worthy matron" for "The Matron")."""
        words = normalise_alias(phrase).split()
        body = words[1:] if words and words[0] in _DETERMINERS else words
        for seq in (words, body):
            for n in range(min(len(seq), self.max_words), 0, -1):
                key = " ".join(seq[:n])
                if key in self.owners and key not in self.common:
                    return self.owners[key]
        if body and body[0] in self.ranks:
            return self.ranks[body[0]]
        for w in body[:4]:
            if w in self.heads:
                return self.heads[w]
            if w in _RANKS and _RANKS[w] in self.ranks:
                return self.ranks[_RANKS[w]]
        return ()

    def match(self, phrase: str) -> tuple[int, ...]:
        """Candidates named by a short phrase (a cue's subject): exact alias first, else the
        first alias inside (the longest one that starts there). The subject comes first in a
        cue's words once its verb is taken out: "Fielding, who didn't dislike Miss Derek,
        replied", "asked the Dodger, winking upon Charley"."""
        key = normalise_alias(phrase)
        if key in self.owners:
            return self.owners[key]
        found = self.scan(phrase)
        return tuple(sorted(found[0][2])) if found else ()
