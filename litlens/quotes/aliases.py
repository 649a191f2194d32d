"""Grouping name forms into characters (step 4 and 5 of :mod:`litlens.quotes.characters`).

Most specific forms first: full names, bare first names, honorific + one word, other bare
words, diminutives; a form that fits several characters is kept ambiguous.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from litlens.quotes.forms import _Form, _canonical_hon
from litlens.quotes.gender import _form_gender, _hon_gender, _vote, first_name_gender, name_gender
from litlens.quotes.names import (
    _COOCCURRENCE, _DIMINUTIVES, _HONORIFICS, _HONORIFIC_SPELLINGS, _INCOMPATIBLE_GROUPS,
    _TITLED_GROUPS,
)

_SPOKEN_OF = 2  # speeches a form tags that name another name, making them two people
_SPOKEN_SHARE = 0.1  # ... and the share of the form's speech tags they are
_PET_NARRATED = 3  # narration mentions of a pet name that make its register the narrator's ...
_FORMAL_SHARE = 2 / 3  # ... and the share of title + surname that make the full name's another
_TITLED_FIRST = 3  # a title + first name ("Miss Lydia", "Mr. Edmund") this often marks a younger child
_EARLIER_USES = 3  # clauses naming the short form before a full name that make it someone else


@dataclass
class _Entity:
    forms: list[_Form]
    ambiguous: list[_Form] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(f.count for f in self.forms)

    def honorifics(self) -> set[str]:
        return {f.hon for f in self.forms if f.hon}

    def hon_gender(self) -> str:
        votes = Counter()
        for f in self.forms:
            g = _hon_gender(f)
            if g:
                votes[g] += max(f.count, 1)
        if not votes:
            return ""
        (top, n), total = votes.most_common(1)[0], sum(votes.values())
        return top if n >= 0.8 * total else ""

    def pronoun_gender(self, strong: bool = True) -> str:
        return _vote(sum(f.male for f in self.forms), sum(f.female for f in self.forms), strong)

    def gender(self, strong: bool = True) -> str:
        """"m", "f" or "": honorifics first, then pronouns (``strong`` asks for more votes)."""
        return self.hon_gender() or self.pronoun_gender(strong)

    def given_names(self) -> set[str]:
        names = {f.given for f in self.forms if f.given}
        names |= {f.words[0] for f in self.forms if len(f.words) == 1 and not f.hon}
        names |= {f.words[0] for f in self.forms
                  if len(f.words) == 1 and f.hon and _HONORIFICS[f.hon][2] == "any"
                  and _HONORIFICS[f.hon][1] in _TITLED_GROUPS}
        return names

    def surnames(self) -> set[str]:
        return {f.surname for f in self.forms if len(f.words) > 1}

    def titled(self) -> bool:
        return any(_HONORIFICS[h][1] in _TITLED_GROUPS for h in self.honorifics())

    def mostly_titled(self) -> bool:
        """Most of its mentions bear a rank ("Lady Catherine"), not one stray "King James"."""
        titled = sum(f.count for f in self.forms if f.hon and _HONORIFICS[f.hon][1] in _TITLED_GROUPS)
        return titled > 0 and 2 * titled >= self.count

    def segments(self) -> set[int]:
        out: set[int] = set()
        for f in self.forms:
            out |= f.segments
        return out


@dataclass
class Found:
    """The grouped entries of one book and what the learned steps read about them."""

    scan: object  # the _TextIndex
    entities: list[_Entity]
    ambiguous: list[tuple[_Form, list[_Entity]]]
    occurrences: list[tuple[int, int, _Form]]  # every counted mention, in text order
    speech: list[tuple[int, int]]  # quotation spans, sorted


class _Union:
    """Entries joined into groups (union-find over their indexes)."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def root(self, k: int) -> int:
        while self.parent[k] != k:
            self.parent[k] = self.parent[self.parent[k]]
            k = self.parent[k]
        return k

    def join(self, keep: int, other: int) -> None:
        self.parent[self.root(other)] = self.root(keep)

    def apply(self, entities: list[_Entity], ambiguous: list[tuple[_Form, list[_Entity]]]
              ) -> tuple[list[_Entity], list[tuple[_Form, list[_Entity]]]]:
        """One entry per group, and the ambiguous forms' candidates read as groups: a form
        whose candidates all fell into one group belongs to it ("Miss Dashwood" fitted two
        entries that are one person)."""
        groups: dict[int, _Entity] = {}
        out = []
        for k, e in enumerate(entities):
            r = self.root(k)
            if r not in groups:
                groups[r] = _Entity([], [])
                out.append(groups[r])
            groups[r].forms.extend(e.forms)
            groups[r].ambiguous.extend(e.ambiguous)
        index = {id(e): k for k, e in enumerate(entities)}
        still = []
        for form, candidates in ambiguous:
            targets: list[_Entity] = []
            for c in candidates:
                g = groups[self.root(index[id(c)])] if id(c) in index else None
                if g is not None and all(t is not g for t in targets):
                    targets.append(g)
            if len(targets) == 1:
                targets[0].forms.append(form)
            elif targets:
                still.append((form, targets))
        return out, still


# --------------------------------------------------------------------------- grouping


def _hon_compatible(a: str, b: str) -> bool:
    if not a or not b or a == b:
        return True
    ga, groupa, _ = _HONORIFICS[a]
    gb, groupb, _ = _HONORIFICS[b]
    if ga and gb and ga != gb:
        return False
    if groupa == groupb == "m-rank":
        return False  # Captain Tilney is not General Tilney
    if {groupa, groupb} & {"f-married", "f-unmarried", "f-title"} and "m-plain" in {groupa, groupb}:
        return False  # "Dr. Spencer" is not "Mrs. Spencer": a title without a sex of its own that men bear
    return frozenset({groupa, groupb}) not in _INCOMPATIBLE_GROUPS



def _compatible(form: _Form, entity: _Entity) -> bool:
    if form.hon and not all(_hon_compatible(form.hon, h) for h in entity.honorifics()):
        return False
    a, b = _form_gender(form), entity.gender()
    return not (a and b and a != b)


def _speaks_of(forms: list[_Form], entity: _Entity) -> bool:
    """The speech the forms tag names the entity (its forms or first names) often, or the
    entity's speech names them: two people. "May is very happy," said Mrs. Welland: the
    mother, not May Welland. A person seldom names herself (Anne Shirley in 4 % of her
    tagged speeches, the most of the 20 dev novels), so it takes :data:`_SPOKEN_OF`
    speeches and :data:`_SPOKEN_SHARE` of the speaker's tags."""
    own = {(f.hon, f.words) for f in entity.forms} | {("", (g,)) for g in entity.given_names()}
    theirs = {(f.hon, f.words) for f in forms}
    for speakers, named in ((forms, own), (entity.forms, theirs)):
        said = sum(f.speaks_of[k] for f in speakers for k in named)
        if said >= _SPOKEN_OF and said >= _SPOKEN_SHARE * sum(f.tags for f in speakers):
            return True
    return False


def _cooccur(segments: set, entity: _Entity, first_names: dict | None = None) -> bool:
    """True when the two often share a clause: they name different people.

    ``first_names`` (word -> clauses) adds the clauses of the entity's bare first names.
    """
    other = entity.segments()
    for name in entity.given_names() if first_names else ():
        other = other | first_names.get(name, set())
    shared = len(segments & other)
    return shared >= 3 and shared >= _COOCCURRENCE * min(len(segments), len(other))


def _group(forms: dict, sisters: frozenset = frozenset()) -> tuple[list[_Entity], list[tuple[_Form, list[_Entity]]]]:
    """Group the forms into entries (steps 1-5); ``sisters`` are surnames the text writes in
    the plural after "Miss" ("the Miss Steeles"): a family of unmarried sisters."""
    entities: list[_Entity] = []
    ambiguous: list[tuple[_Form, list[_Entity]]] = []
    values = [f for f in forms.values() if f.count > 0]
    order = lambda f: (-f.count, f.hon, f.words)  # noqa: E731 — deterministic order
    full = sorted((f for f in values if len(f.words) > 1), key=order)
    titled_single = sorted((f for f in values if len(f.words) == 1 and f.hon), key=order)
    bare = sorted((f for f in values if len(f.words) == 1 and not f.hon), key=order)

    # 1. full names, one entity per (first name, surname) and gender of honorific
    by_name: dict[tuple[str, str], list[_Form]] = defaultdict(list)
    wives: set[int] = set()  # entities of "Mrs." + a man's full name the text names him by
    for f in full:
        by_name[(f.words[0], f.surname)].append(f)
    for name_forms in by_name.values():
        male = [f for f in name_forms if f.hon and _HONORIFICS[f.hon][0] == "m"]
        female = [f for f in name_forms if f.hon and _HONORIFICS[f.hon][0] == "f"]
        rest = [f for f in name_forms if f not in male and f not in female]
        wife = [f for f in female if _HONORIFICS[f.hon][1] == "f-married"]
        if male and female:
            # "Mr. John Knightley" and "Mrs. John Knightley", his wife: plain "John
            # Knightley" is the man whose first name it is, unless its pronouns say "she"
            he, she = _Entity(male), _Entity(female)
            entities += [he, she]
            if any(_HONORIFICS[f.hon][1] == "f-married" for f in female):
                wives.add(id(she))
            for f in rest:
                (she if _form_gender(f) == "f" else he).forms.append(f)
        elif wife and rest and (name_gender(rest[0].words[0]) == "m"
                                or all(_form_gender(f) == "m" or f.male > f.female for f in rest)):
            # "Mrs. Newland Archer" is the wife of the man the text calls "Newland Archer"
            # and "he" (by the first name when the lexicon knows it, else by any majority of
            # the pronouns after the plain name); "Mrs. Rachel Lynde" is Rachel Lynde
            entities += [_Entity(rest), _Entity([f for f in name_forms if f not in rest])]
            if name_gender(rest[0].words[0]) == "m":
                wives.add(id(entities[-1]))  # the lexicon, not a pronoun vote, says he is a man
        else:
            entities.append(_Entity(name_forms))

    # 2. bare first names of full names ("Jane" -> Jane Bennet), so that the gender and
    #    the clauses of the first name are known before honorific forms are placed; a word
    #    that is also a surname ("Fitzwilliam": Colonel Fitzwilliam) waits for step 4
    known_given = {f.words[0] for f in full}
    surname_words = {f.surname for f in full if f.count > 1 or f.hon}  # not a one-off misreading
    # ... nor a word the full names use far more as a first name ("Jane Andrews", 19
    # mentions, beside one "Flora Jane", 4)
    first_in_full, last_in_full = Counter(), Counter()
    for f in full:
        first_in_full[f.words[0]] += f.count
        last_in_full[f.surname] += f.count
    surname_words = {w for w in surname_words if first_in_full[w] < 3 * last_in_full[w]}
    # "Mr. Edward" is Mr. + first name when Edward is no surname and is used more as a
    # first name ("Edward Ferrars", "Edward") than after a title; "Colonel Fitzwilliam"
    # (30 mentions) keeps his surname beside one "Fitzwilliam Darcy"
    as_first = first_in_full.copy()
    for f in bare:
        as_first[f.words[0]] += f.count
    after_title: Counter = Counter()
    for f in titled_single:
        after_title[f.words[0]] += f.count
    given_after_title = {w for w in after_title
                         if w in known_given - surname_words and after_title[w] <= as_first[w]}
    # "Mrs. Rachel" is Mrs. + first name when the text also says "Mrs. Rachel Lynde"
    titled_full = {(f.hon, f.words[0]) for f in full if f.hon and f.count > 1}
    given_after_title |= {f.words[0] for f in titled_single if (f.hon, f.words[0]) in titled_full}
    surname_words |= {f.words[0] for f in titled_single
                      if _HONORIFICS[f.hon][2] == "surname" and f.words[0] not in given_after_title}
    # surnames the text uses beyond a single full name: with a title, alone, or in a full
    # name it writes more than once
    attested_surnames = {f.words[0] for f in titled_single + bare} | {
        f.surname for f in full if f.count > 1 or f.hon}
    placed: set[int] = set()
    for f in bare:
        word = f.words[0]
        if word in surname_words:
            continue
        candidates = [e for e in entities
                      if word in {x.words[0] for x in e.forms if len(x.words) > 1}
                      and _compatible(f, e) and not _cooccur(f.segments, e)]
        if len(candidates) > 1:
            # "Lucy" of "Miss Lucy Honeychurch" (the text also says "Miss Honeychurch"), not
            # of a one-off "Lucy Italian" whose surname the text never uses again
            attested = [e for e in candidates if e.surnames() & attested_surnames]
            candidates = attested if len(attested) == 1 else candidates
        if candidates:
            candidates = _prefer(f, candidates, [])
            _attach(f, candidates, entities, ambiguous)
            placed.add(id(f))

    # 3. honorific + one word ("Mr. Darcy", "Lady Catherine", "Miss Bennet"). Forms of one
    #    word with compatible honorifics go together ("Mr. Poirot", "Monsieur Poirot");
    #    a first name that is still ambiguous counts for the clauses ("Mrs. Maylie and Rose")
    first_names = {f.words[0]: f.segments for f in bare}
    first_votes = {f.words[0]: (f.male, f.female) for f in bare}
    title_counts = {(f.hon, f.words[0]): f.count for f in titled_single}
    title_genders: dict[str, Counter] = defaultdict(Counter)
    for f in titled_single:
        if f.hon != "the" and _HONORIFICS[f.hon][0]:
            title_genders[f.words[0]][_HONORIFICS[f.hon][0]] += f.count
    clusters: list[list[_Form]] = []
    merged: dict[int, _Entity] = {}  # entities joined into another, for the ambiguous forms
    for f in titled_single:
        for c in clusters:
            if (f.hon != "the" and c[0].hon != "the" and c[0].words == f.words
                    and _compatible(f, _Entity(c)) and not _cooccur(f.segments, _Entity(c))
                    and not _opposite(_title_sex(f), _title_sex(*c))):
                # "Comrade Gregory" (he) is not "Miss Gregory": a title without a sex of its
                # own goes by the pronouns after it
                c.append(f)
                break
        else:
            clusters.append([f])

    def gender_of(e: _Entity) -> str:
        if e.gender():
            return e.gender()
        votes = [first_votes.get(g, (0, 0)) for g in e.given_names()]
        return _vote(sum(v[0] for v in votes), sum(v[1] for v in votes), True)

    # a description ("the Doctor") is placed once every titled name ("Doctor Mandelet") is;
    # "Mrs. Hilbery" after "Miss Hilbery": Katharine Hilbery, who is "Miss Hilbery", is not
    # her mother
    unmarried = {c[0].words[0] for c in clusters if _HONORIFICS[c[0].hon][1] == "f-unmarried"}
    clusters.sort(key=lambda c: (c[0].hon == "the",
                                 _HONORIFICS[c[0].hon][1] == "f-married" and c[0].words[0] in unmarried))
    for c in clusters:
        lead = c[0]
        word = lead.words[0]
        role = "any" if word in given_after_title or any(
            _HONORIFICS[f.hon][2] == "any" for f in c) else "surname"
        segments = set().union(*(f.segments for f in c))
        candidates = []
        for e in entities:
            if lead.hon == "the" and word in _HONORIFIC_SPELLINGS:
                fits = _canonical_hon(word) in e.honorifics()  # "the Colonel": Colonel Brandon
            else:
                fits = word in e.surnames() or (
                    role == "any" and word in {x.given for x in e.forms})
                fits = fits or any(x.hon and x.words == lead.words for x in e.forms)
                if fits and not e.honorifics():
                    g, named = gender_of(e), first_name_gender(e)
                    if not _Entity(list(c)).hon_gender() and _opposite(_title_sex(*c), g or named):
                        fits = False  # "Comrade Gregory" (he) is not Rosamond Gregory
                    contested = not g and _contested(title_genders[word])
                    if contested:
                        # "Thomas Palmer" fits Mr. and Mrs. Palmer: his or hers? The first
                        # name says, when the text's pronouns do not
                        g = named
                    if contested and not g:
                        fits = False
                    elif any(_HONORIFICS[f.hon][0] not in ("", sex) for sex in {g, named} - {""} for f in c):
                        # "Mrs. Miller" is not Randolph Miller, "Mr. Wells" not Elizabeth Wells;
                        # nor "Mr. Welland" May Welland, though the "he" of the man she is
                        # always beside follows her name
                        fits = False
                    elif (g != "f" or named == "m") and any(
                            _HONORIFICS[f.hon][1] in ("f-married", "f-title") for f in c):
                        # a wife bears her husband's surname: "Madame Lebrun" joins a
                        # "Robert Lebrun" only if the text shows that person is a woman
                        fits = False
            if fits and _HONORIFICS[lead.hon][1] == "f-married" and any(
                    x.hon and _HONORIFICS[x.hon][1] == "f-title" and len(x.words) > 1 for x in e.forms):
                # "Lady Anne Darcy", a peer's daughter, keeps her "Lady" when she marries: she
                # is not the "Mrs. Darcy" Elizabeth is to become
                fits = False
            if fits and id(e) in wives and _HONORIFICS[lead.hon][1] == "f-married" and sum(
                    f.count for f in c) >= sum(x.count for x in e.forms if x.hon and len(x.words) > 1):
                # "Mrs. Musgrove" beside "Mrs. Charles Musgrove", whose husband Charles
                # Musgrove the text names: the married title alone, the more used, is the
                # elder Mrs. Musgrove; the given name is there to tell the younger from her.
                # A rarer "Mrs. Knightley" beside "Mrs. John Knightley" is her shorthand
                fits = False
            if (fits and all(_compatible(f, e) for f in c)
                    and not _cooccur(segments, e, first_names) and not _speaks_of(c, e)):
                candidates.append(e)
        if lead.hon != "the":
            candidates = _drop_noise(candidates)
            if len(candidates) > 1 and _speaks_of(c, _Entity([f for e in candidates for f in e.forms])):
                # "Tom, go to your room," said Mr. Gradgrind, and "Thomas must learn": he
                # is neither Tom Gradgrind nor the "Thomas" of them
                candidates = []
            if len(candidates) > 1 and _one_name(candidates):
                pets = [e for e in candidates if e.given_names() <= _DIMINUTIVES.keys() and _narrated_apart(e, _Entity(c))]
                if pets and len(pets) < len(candidates):
                    # "Mr. Gradgrind" fits "Thomas Gradgrind" and "Tom Gradgrind", whom the
                    # narration calls "Tom": the title is the one named in full, the father
                    candidates = [e for e in candidates if e not in pets]
                if len(candidates) > 1:
                    # "Mr. Chitling" fits "Tom Chitling" and "Tommy Chitling": one person
                    keep = max(candidates, key=lambda e: e.count)
                    for e in candidates:
                        if e is not keep:
                            keep.forms.extend(e.forms)
                            e.forms = []
                            merged[id(e)] = keep
                    entities = [e for e in entities if e.forms]
                    candidates = [keep]
            if len(candidates) > 1 and (_HONORIFICS[lead.hon][1] == "f-unmarried" or lead.hon == "Mr") and all(
                    word in e.surnames() for e in candidates):
                # "Miss Bennet" among Jane, "Miss Elizabeth" and "Miss Lydia" is the eldest
                # unmarried daughter, the one sister the text never titles by first name, when
                # each other one it often does; "Mr. Bertram" beside "Mr. Edmund Bertram" and
                # Sir Thomas is the eldest son. A child of the family ("Harry Dashwood", named
                # less than the title) is not; a "Mr." beside younger sons and no eldest is
                # their father
                titles = {id(e): _first_name_titles(lead.hon, e, title_counts) for e in candidates}
                eldest = [e for e in candidates if not e.titled() and not titles[id(e)]]
                younger = [e for e in candidates if e.titled() or titles[id(e)] >= _TITLED_FIRST]
                if len(eldest) == 1 and len(eldest) + len(younger) == len(candidates) \
                        and eldest[0].count >= sum(f.count for f in c):
                    candidates = eldest
                elif lead.hon == "Mr" and any(titles[id(e)] >= _TITLED_FIRST for e in younger):
                    candidates = []
            if len(candidates) > 1:
                same = [e for e in candidates if e.honorifics() & {f.hon for f in c}]
                if len(same) == 1:
                    candidates = same  # "Sir William" -> Sir William Lucas
            if len(candidates) > 1 and _HONORIFICS[lead.hon][1] != "f-unmarried":
                # "Mrs. Dashwood" among Elinor, Marianne and Margaret Dashwood is their
                # mother, "Lady Lucas" is not Charlotte or Maria Lucas: a person of her own
                candidates = []
            elif len(candidates) == 1 and any(
                    _distinguished(f, candidates[0], title_counts, entities, sisters) for f in c):
                # "Mr. Knightley" is not John Knightley, called "Mr. John Knightley"
                candidates = []
        if len(candidates) == 1:
            candidates[0].forms.extend(c)
        elif not candidates:
            entities.append(_Entity(list(c)))
        else:
            ambiguous.extend((f, candidates) for f in c)

    # 4. the other bare words ("Darcy", "Elizabeth", "Aziz")
    for f in bare:
        if id(f) in placed:
            continue
        word = _epithet_name(f.words[0])
        as_surname, as_given = [], []
        for e in entities:
            if not _compatible(f, e) or _cooccur(f.segments, e):
                continue
            if word in e.given_names():
                as_given.append(e)
            elif word in e.surnames() or any(x.hon and x.words == f.words for x in e.forms):
                as_surname.append(e)
        candidates = as_given + as_surname
        if len(candidates) > 1:
            candidates = _prefer(f, as_given, as_surname)
        _attach(f, candidates, entities, ambiguous)

    # 5. diminutives ("Lizzy" -> the one Elizabeth not mostly called by a rank)
    for e in sorted(entities, key=lambda e: (-e.count, e.forms[0].words)):
        nicknames = e.given_names()
        if len(nicknames) != 1 or e.titled():
            continue
        nick = next(iter(nicknames))
        full_names = _DIMINUTIVES.get(nick)
        if not full_names:
            continue
        surnames = e.surnames()
        targets = [t for t in entities if t is not e and t.forms
                   and t.given_names() & set(full_names) and not t.mostly_titled()
                   and (not surnames or not t.surnames() or surnames & t.surnames())
                   and (all(_compatible(x, t) for x in e.forms) or _named_for(e, t))
                   and not _cooccur(e.segments(), t) and not _narrated_apart(e, t)]
        if len(targets) == 1:
            targets[0].forms += e.forms
            e.forms = []
            merged[id(e)] = targets[0]
    entities = [e for e in entities if e.forms]
    resolved = []
    for form, candidates in ambiguous:
        targets = []
        for e in candidates:
            while id(e) in merged:
                e = merged[id(e)]
            if all(t is not e for t in targets):
                targets.append(e)
        resolved.append((form, targets))
    return entities, resolved


def _epithet_name(word: str) -> str:
    """The name a hyphenated epithet ends with ("Winnie-the-Pooh" -> "Pooh"); a double
    surname ("Grant-Menzies"), whose parts are all capitalised, is a name of its own."""
    parts = word.split("-")
    if len(parts) > 2 and any(p.islower() for p in parts[1:-1]) and parts[-1][:1].isupper():
        return parts[-1]
    return word


def _title_sex(*forms: _Form) -> str:
    """The sex the forms' titles give, or else (titles without a sex of their own: "Comrade",
    "Dr") the pronouns after them, by the weaker vote."""
    entity = _Entity(list(forms))
    return entity.hon_gender() or entity.pronoun_gender(strong=False)


def _opposite(a: str, b: str) -> bool:
    return bool(a and b and a != b)


def _contested(genders: Counter) -> bool:
    """Both a man and a woman bear the title + surname, each often enough to matter."""
    return len(genders) > 1 and min(genders.values()) >= 0.25 * max(genders.values())


def _first_name_titles(hon: str, entity: _Entity, title_counts: dict) -> int:
    """How often the text gives the entity the title with a first name ("Miss Lydia", "Miss
    Elizabeth Bennet"): never for the eldest sister, often (:data:`_TITLED_FIRST`) for a
    younger one."""
    given = entity.given_names()
    n = sum(title_counts.get((hon, g), 0) for g in given)
    return n + sum(x.count for x in entity.forms if x.hon == hon and len(x.words) > 1 and x.words[0] in given)


def _distinguished(form: _Form, entity: _Entity, title_counts: dict, entities: list[_Entity],
                   sisters: frozenset = frozenset()) -> bool:
    """The text names the entity with this honorific and its first name ("Mr. John
    Knightley", "Miss Marianne") and shows two people: the honorific with the surname
    alone is someone else. A title with a first name alone tells a younger unmarried
    daughter from the eldest ("Miss Marianne", "Miss Dashwood") when the text names a
    sister (see :func:`_sister`) or writes the title in the plural (``sisters``: "the Miss
    Steeles"); an only daughter is "Miss Maylie" and "Miss Rose" both.
    "Mrs. Rachel" and "Mrs. Lynde" are one woman."""
    own = entity.given_names()
    if form.words[0] in own:
        return False  # "Miss Daisy" is Daisy Miller
    unmarried = _HONORIFICS[form.hon][1] == "f-unmarried"
    sister = unmarried and (form.words[0] in sisters or _sister(form.words[0], entity, entities))
    if sister and any(title_counts.get((form.hon, g), 0) >= 3 for g in own):
        return True
    # the full name's first appearance, with or without a title: "Alfred Inglethorp" is
    # introduced before "Mr. Inglethorp" and "Mr. Alfred Inglethorp" comes later, "Daisy
    # Miller" before "Miss Miller". Not for "Miss" + surname in a family of sisters, where
    # it names the eldest: "Marianne Dashwood", named once early, is not "Miss Dashwood",
    # nor is Lucy Steele "Miss Steele" (her elder sister) because "Lucy Steele" is written
    # before "Miss Lucy Steele"
    introduced = [y.segments for y in entity.forms if len(y.words) > 1 and y.surname == form.words[0] and y.segments]
    first = min((min(seg) for seg in introduced), default=None) if not sister else None
    return any(x.hon == form.hon and x.count >= 3 and len(x.words) > 1
               and x.surname == form.words[0] and _two_people(form, x, first) for x in entity.forms)


def _sister(surname: str, entity: _Entity, entities: list[_Entity]) -> bool:
    """Does the text name another woman of the surname with another first name, more than
    twice or beside her ("Elinor Dashwood and Marianne Dashwood")? Daisy Miller's "Annie P.
    Miller", twice on her card, is no sister, nor her brother Randolph, whom the pronouns
    leave open and the name makes a boy."""
    own = entity.given_names()
    for e in entities:
        if e is entity or surname not in e.surnames() or not e.given_names() - own:
            continue
        if e.count <= 2 and not e.segments() & entity.segments():
            continue
        if (e.gender() or first_name_gender(e)) != "m":
            return True
    return False


def _two_people(short: _Form, full: _Form, first: int | None = None) -> bool:
    """Does the text show that "Mr. Knightley" and "Mr. John Knightley" are two men? Yes
    when it names both in one clause, or when the short form named someone (three clauses
    or more) before the full name (``first``: its first clause in any form) first appears:
    a writer who introduces "Mr. Athelney Jones" and goes on with "Mr. Jones" never uses
    the short form first."""
    if not full.segments or not short.segments:
        return False
    if any(min(short.parts.get(s, {0})) <= min(full.parts.get(s, {0})) for s in short.segments & full.segments):
        # one clause names both, the short form first or in the same part; a short form
        # after a semicolon or colon restates the full name ("Miss Josephine Barry would
        # have liked to board her, ...; so Miss Barry hunted up a boarding-house")
        return True
    first = min(full.segments) if first is None else first
    return sum(1 for s in short.segments if s < first) >= _EARLIER_USES


def _named_for(nickname: _Entity, target: _Entity) -> bool:
    """The pet form's own sex, by the name lexicon, is the target's ("Jim" for James Vane),
    though the pronouns after it say otherwise ("Jim, she is gone": his sister's "she"),
    and no honorific stands against it."""
    g = target.gender()
    return bool(g) and first_name_gender(nickname) == g and all(
        not x.hon or _hon_compatible(x.hon, h) for x in nickname.forms for h in target.honorifics())


def _narrated_apart(pet: _Entity, target: _Entity) -> bool:
    """Does the narration call the pet form's bearer by that name ("Tom kicked the fender")
    and the full name's by title and surname ("Mr. Gradgrind looked at the children")? A
    narrator keeps one register for one person, so these are two (a son and his father);
    "Evie", only ever spoken, may still be Miss Howard."""
    if sum(f.count - f.spoken for f in pet.forms if len(f.words) == 1 and not f.hon) < _PET_NARRATED:
        return False  # the pet name alone: "Bill" only ever spoken, "Bill Sikes" narrated, is Mr. Sikes
    narrated = sum(f.count - f.spoken for f in target.forms)
    formal = sum(f.count - f.spoken for f in target.forms if f.hon and f.hon != "Master"
                 and _HONORIFICS[f.hon][1] != "any")
    return narrated > 0 and formal >= _FORMAL_SHARE * narrated


def _diminutive_kin(a: str, b: str) -> bool:
    """Two first names of one person: "Tom" and "Tommy" (both Thomas), "Charley" and
    "Charles"."""
    ka = {a, *_DIMINUTIVES.get(a, ())}
    kb = {b, *_DIMINUTIVES.get(b, ())}
    return a != b and bool(ka & kb)


def _one_name(candidates: list[_Entity]) -> bool:
    """Full names of one surname whose first names are forms of one name ("Tom
    Chitling", "Tommy Chitling"), all fitting one titled surname: one person, when
    none bears a rank ("Sir Thomas Bertram" is Tom Bertram's father), their genders agree
    and the text never names two of them in one clause."""
    if any(e.titled() or len(e.surnames()) != 1 for e in candidates):
        return False
    if len(set().union(*(e.surnames() for e in candidates))) != 1:
        return False
    names = [e.given_names() for e in candidates]
    if any(len(n) != 1 for n in names):
        return False
    firsts = [next(iter(n)) for n in names]
    if not all(_diminutive_kin(a, b) for a in firsts for b in firsts if a != b):
        return False
    genders = {e.gender() for e in candidates} - {""}
    if len(genders) > 1:
        return False
    return not any(_cooccur(a.segments(), b) for k, a in enumerate(candidates) for b in candidates[k + 1:])


def _drop_noise(candidates: list[_Entity]) -> list[_Entity]:
    """Leave out one-off names ("Atheney Jones", a misprint) beside a frequent one."""
    if len(candidates) > 1 and max(e.count for e in candidates) >= 10:
        kept = [e for e in candidates if e.count > 2]
        return kept or candidates
    return candidates


def _prefer(form: _Form, as_given: list[_Entity], as_surname: list[_Entity]) -> list[_Entity]:
    """Narrow a bare word's candidates when the text's conventions make one clear."""
    ranked = _drop_noise(sorted(as_given + as_surname, key=lambda e: -e.count))
    if len(ranked) == 1:
        return ranked  # a one-off full name ("Madamsell Adela") does not make "Adela" ambiguous
    as_given = [e for e in as_given if any(e is r for r in ranked)]
    as_surname = [e for e in as_surname if any(e is r for r in ranked)]
    if not (as_given and as_surname) and ranked[0].count >= 10 * sum(e.count for e in ranked[1:]):
        # "Jane" for Jane Fairfax (100 mentions) over Jane Austen (10)
        return ranked[:1]
    if as_surname and not as_given:
        # a bare surname names a man ("Darcy", "Bingley", "Weston") when he is the one of
        # its bearers the book talks about most; a family of named characters ("Bennet":
        # Mr. and Mrs. Bennet, Jane, Elizabeth, Lydia) leaves it ambiguous
        men = [e for e in as_surname if e.gender() == "m"]
        if len(men) > 1:
            # "Knightley": Mr. Knightley, not John Knightley whom the text names in full
            plain = [e for e in men if not any(len(x.words) > 1 and x.count >= 3 for x in e.forms)]
            men = plain if len(plain) == 1 else men
        total = sum(e.count for e in as_surname)
        if len(men) == 1 and _form_gender(form) != "f" and men[0].count >= 0.5 * total:
            return men
        women = [e for e in as_surname if e.gender() == "f"]
        if len(women) == 1 and _form_gender(form) == "f":
            return women
    if form.count >= sum(e.count for e in ranked):
        # "Lucy" (450 mentions) is no guess between two one-off full names: a character
        return []
    return ranked


def _attach(form: _Form, candidates: list[_Entity], entities: list, ambiguous: list) -> None:
    if len(candidates) == 1:
        candidates[0].forms.append(form)
    elif not candidates:
        entities.append(_Entity([form]))
    else:
        ambiguous.append((form, candidates))
