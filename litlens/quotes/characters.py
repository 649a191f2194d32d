"""Characters and their aliases, from PERSON mentions, honorifics and pronouns.

:func:`discover_characters` turns the noisy PERSON entities of one spaCy pass into a
list of :class:`~litlens.model.Character`, most mentioned first.

1. **Name forms.** A form is an honorific (or none) plus name words; the period of
   "Mr." is optional and ignored, "De Bourgh" = "de Bourgh". Sources: every PERSON
   mention, cleaned (cut at punctuation, possessive ``'s`` and a leading "Dear"/"Poor"/
   "Old" dropped, extended left over an honorific the NER left out: "Mrs." + "Bennet");
   honorific + capitalised words the NER missed ("Colonel Fitzwilliam", "Mr. and Mrs.
   Gardiner"); speech tags ("said Cecil", "said the Hatter", "the Colonel replied") —
   a "the" form is a character known by a description, as is a kept PERSON name the
   text mostly writes after "the" ("the Invisible Man"); and the names those imply: the
   first and last word of a full name the text gives at least twice or with an
   honorific (a one-off tag, "Himalayan India", implies nothing), and a known first name
   followed by a known surname at least twice ("Edna Pontellier"). A capitalised common
   word that opens a sentence is no first name ("Happily Smith", "Take Harris"), nor is a
   word the book never capitalises inside a sentence and no lexicon lists as a first name
   ("Hitherto Gino"); a common word that a title-case heading runs on after a name is
   dropped ("Miss Lucy Honeychurch Drive Out in Carriages").
2. **Non-names out.** Exclamations and address words ("Oh", "Sir", "Majesty"); words
   this book mostly writes in lower case or capitalises only at a sentence start ("Pray",
   "Hitherto"); common nouns ("a Roman"); places ("Netherfield" beside "Netherfield
   Park", and names found mostly after "at", "in", "to", "from": "Pemberley",
   "Brighton") — unless the name is the subject of speech verbs twice ("said Montoya":
   places do not speak); family plurals ("the Bennets"); plurals the text counts or
   gathers whose singular it also writes ("several Basques", "these Hindus", "two
   Englishmen"), a group even when a tag makes it speak ("several Basques said").
3. **Counting.** Every kept form is searched over the whole text: case-sensitive, whole
   words, leftmost-longest ("Mr. Darcy" is not also a "Darcy"), a bare word right after
   an unknown "Mr."/"Mrs." is not counted, nor a common-word name at a sentence start.
   Each occurrence votes for a gender with the first he/him/his or she/her/hers after
   it, in the same or the next sentence and before the next name (coreference-lite),
   unless a "he"/"she" of that sex stands before it in its sentence ("He thought of May,
   and of what his mother had said": the subject's).
4. **Grouping**, most specific forms first:

   a. full names, one character per first name + surname ("Mr. John Knightley" and his
      wife "Mrs. John Knightley" are two; plain "John Knightley" is the man);
   b. a bare first name joins the one full name it starts ("Jane" -> "Jane Bennet"), or of
      several, the one whose surname the text uses beyond it ("Lucy" -> "Miss Lucy
      Honeychurch", not a one-off "Lucy Italian");
   c. honorific + one word ("Mr. Darcy", "Lady Catherine", "Miss Bingley"), grouped with
      compatible spellings ("Mr. Poirot" = "Monsieur Poirot"), joins the one full name it
      fits: the surname, or the first name after Miss/Lady/Sir/Lord/...; honorifics must
      agree (Mr, Mrs and Miss differ; Sir/Lord and military ranks are never "Mr"; a
      Captain is no General), and so must the gender. A wife's title ("Mrs.", "Madame",
      "Lady") joins a full name only when the text shows that person is a woman and the
      first name is no man's ("Mrs. Vane" is not her son "Jim Vane"); where a man and a
      woman share title + surname and the pronouns say nothing, the first name decides
      ("Thomas Palmer" is Mr. Palmer); "Miss" or "Mr." + surname fitting several of a
      family is the eldest daughter or son, the one never titled by first name while every
      other one often is ("Miss Bennet" is Jane beside "Miss Lydia" and "Miss Elizabeth
      Bennet"; "Mr. Bertram" is Tom beside "Mr. Edmund Bertram"), if named at least as
      often as the title; a title fitting a full name and a pet name's full name the
      narration calls by the pet name goes to the former ("Mr. Gradgrind" is "Thomas
      Gradgrind", not "Tom Gradgrind"); a title
      that fits several full names of one family ("Mrs. Dashwood" beside Elinor, Marianne
      and Margaret Dashwood) is a person of her own (the parent); a title + surname is not
      the person the text calls by title + first name when the text shows two people:
      both in one clause (unless the short form restates the full name after a semicolon
      or colon: "Master Charles Bates ...; against Master Bates"), or the short form
      naming someone in three clauses before the full name first appears ("Mr. Knightley"
      is not "Mr. John Knightley"; "Mr. Jones" is "Mr. Athelney Jones", introduced first;
      "Miss Miller" is "Daisy Miller", named just before, unless the text shows sisters:
      "the Miss Steeles"); "Mrs. Rachel" is Mrs. + first name when
      the text also writes "Mrs. Rachel Lynde", and a title + first name alone tells apart
      only an unmarried daughter ("Miss Marianne" is not "Miss Dashwood"); a description
      ("the Doctor") is placed after the titled names ("Doctor Mandelet");
   d. a bare word ("Darcy", "Elizabeth", "Aziz") joins the one character it fits; a bare
      surname shared by several goes to the only man among them when he is the one the
      book talks about most and its own pronouns are not female (the narrators' "Darcy");
   e. a small table of English diminutives links "Lizzy"/"Eliza" to the one untitled
      character whose first name is "Elizabeth" (never invents a name), unless the
      narration calls the pet name's bearer by it and the other mostly by title + surname
      (a narrator keeps one register for one person: "Tom" is not "Mr. Gradgrind").
   e'. a former name the text gives joins the person: "Mrs. Weston (poor Miss Taylor that
      was)", "Mrs. Elton, formerly Miss Hawkins", "Noah Claypole, alias Morris Bolter"
      (:mod:`~litlens.quotes.former`), unless one entry is a man and the other a woman.

   f. **learned: same person?** (:mod:`~litlens.quotes.same_person`) a LightGBM
      classifier over pairs of entries (name-form relations, honorifics and genders,
      clauses shared, naming near each other, the same company, where in the book, naming
      inside speech) joins the pairs the names alone leave apart ("Cecil" and "Mr. Vyse"),
      never a group whose titles or first names state both sexes ("Miss Bingley" and
      "Charles");
   g. **learned: a person?** (:mod:`~litlens.quotes.people`) a LightGBM classifier over
      entries (mentions, NER share, speech tags, places' contexts, how the words are
      written elsewhere) leaves out entries that are no person; an entry that speaks
      ("said Mrs. Long", or named as a detected quotation's speaker) always stays.
      Both are trained on PDNC's character lists with thresholds chosen by leave-novels-out
      cross-validation; the data-only model file is read by :mod:`~litlens.quotes.learned`.
   h. a name in address joins the entry that answers to it: when speeches addressing
      "Harry" are answered, mostly, by speeches tagged "said Lord Henry", and "Harry"
      seldom answers for himself, they are one man (:mod:`~litlens.quotes.answers`); a
      speech after narration that names its speaker opens a new scene and answers nobody.
   i. a description that noun cues use twice for a speaker no entry covers ("said the
      mariner"; a general noun that a phrase after the cue marks out: "said the gentleman
      in the white waistcoat") joins the one listed name it answers (the painter answers "Basil": an
      epithet) or, answering none, becomes a minor character of its own
      (:mod:`~litlens.quotes.described`).
   j. a role entry ("the Collector") joins the one named entry the narration sets it
      beside in apposition ("the Collector, Mr. Turton, with whom ...")
      (:mod:`~litlens.quotes.apposition`).

   Two names that often share a clause (a sentence, cut at quotation marks) are never
   merged: they are two people ("Mrs. Bennet ... Jane"). Nor are two when one's tagged
   speech often names the other ('"May is very happy," said Mrs. Welland'; steps c, f
   and h), nor "Mrs." + a surname and the wife the text names by her husband's full name
   ("Mrs. Musgrove", the elder, and "Mrs. Charles Musgrove"), nor a sexless title men
   bear ("Dr.", "Professor") and a woman's. One-off full names (misprints, "Madamsell
   Adela") do not make a frequent name ambiguous.
5. **Ambiguity.** A form that fits several characters is not guessed: "Miss Bennet"
   (Jane, Elizabeth and Lydia Bennet) and "Bennet" (the whole family) go into
   ``ambiguous_aliases`` of every candidate, are in no character's ``aliases``, and
   their mentions count for nobody. A form that fits no character becomes one.
6. **Gender**: from the honorifics when 80 % of their mentions agree ("the Duchess"
   counts as a title), else from the pronoun votes (3 votes and a 60 % majority); a
   mention in narration skips the pronouns inside quoted speech ('Frances said: "He is
   late."'); when those votes decide nothing, the first names do where a name lexicon
   (gender-guesser's) calls them male or female outright ("Charlotte", whose pronouns are
   often the "he" of the man beside her; not "Jo" or a bare surname); then all pronouns
   vote; when even those are too few or too close, any majority of them decides; "unknown" only when
   they are even or there are none. "nonbinary" is never inferred.
7. **Keeping**: characters mentioned at least twice, or with an honorific form ("Mr.
   Stone" once), or speaking a quotation (and kept by step 4g); ``quote_count`` counts quotations whose
   ``speaker`` is one of the character's aliases (case and periods ignored).
8. **An unnamed narrator.** A book told in the first person whose narrator no kept entry
   names (nobody is addressed in the answers to "said I" and named almost only inside
   quotations) gets one more entry, ``Narrator`` (:mod:`~litlens.quotes.narrator`).

The steps live in their own modules: tables, patterns and the text index in
:mod:`~litlens.quotes.names`; steps 1-2 in :mod:`~litlens.quotes.forms`; step 3 in
:mod:`~litlens.quotes.mentions`; steps 4-5 in :mod:`~litlens.quotes.aliases` (4e' in
:mod:`~litlens.quotes.former`); gender
in :mod:`~litlens.quotes.gender`; the learned steps 4f-g in :mod:`~litlens.quotes.same_person`,
:mod:`~litlens.quotes.people` and :mod:`~litlens.quotes.learned`; step 8 in
:mod:`~litlens.quotes.narrator`; this module runs them and
builds the list. :func:`find_entities` stops before the learned steps (training reads it).

The function is pure and deterministic; only compiled regexes and constant tables are
module-level (and the bundled model, read once). About 0.5 s for Pride and Prejudice on one
core for the rules, a few seconds more for the learned steps' features.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from litlens.errors import Cancelled as CancelledError
from litlens.model import Cancelled, Character, EntityMention, Progress, Quotation
from litlens.quotes.aliases import Found, _Entity, _group
from litlens.quotes.same_person import pair_rows
from litlens.quotes.forms import _Form, _collect_forms, _filter_forms, _speaks
from litlens.quotes.answers import dialogue_leads, join_answered_names, note_speech_naming
from litlens.quotes.apposition import join_appositions
from litlens.quotes.described import described_entries
from litlens.quotes.former import join_former_names
from litlens.quotes.gender import _vote_pronouns, final_gender
from litlens.quotes.mentions import _alias_key, _scan_mentions, count_mentions
from litlens.quotes.names import (
    DIALECT_TITLES,
    _ABBREVIATIONS,
    _DIMINUTIVES,
    _HONORIFICS,
    _PARTICLES,
    _SPACE,
    _TextIndex,
    known_first_name,
)
from litlens.quotes.learned import CharacterModel, default_model
from litlens.quotes.narrator import narrator_character, needs_narrator


# --------------------------------------------------------------------------- API


def discover_characters(
    text: str,
    persons: list[EntityMention],
    quotations: list[Quotation] | None = None,
    *,
    progress: Progress | None = None,
    model: CharacterModel | None | str = "default",
) -> list[Character]:
    """Characters of a book, most mentioned first.

    ``persons`` are the PERSON mentions of the NLP pass (offsets into ``text``);
    ``quotations`` with a ``speaker`` (a name or alias) give ``quote_count``. A character
    is kept when it is mentioned at least twice, has an honorific form ("Mr. Stone") or
    speaks a quotation. ``model`` holds the learned steps (4f-g: join the entries of one
    person, leave out entries that are no person); "default" is the bundled model, None
    keeps the name rules' list as it is.
    """
    report = progress or (lambda fraction, message: None)
    report(0.0, "finding names")
    found = find_entities(text, persons, quotations, progress=lambda f, m: report(0.8 * f, m))
    if model == "default":
        model = default_model()
    if model is not None:
        report(0.8, "joining entries of one person")
        found = model.apply(found, quotations)
    found = join_answered_names(found, quotations)
    found = described_entries(found, quotations)
    found = join_appositions(found)
    report(0.9, "building characters")
    characters = _build(text, found.entities, found.ambiguous, quotations or [])
    if quotations and needs_narrator(text, quotations, _owned_mentions(found)):
        characters.append(narrator_character(quotations))
    report(1.0, f"{len(characters)} characters")
    return characters


SUGGEST_FLOOR = 0.05  # the same-person probability from which two entries are worth a look
SHORTER_SCORE = 0.5  # a shorter form is as likely another person's, shared among the names it shortens


@dataclass(frozen=True)
class MergeSuggestion:
    """Two entries of a character list that may be one person: ``fold`` into ``keep`` (the
    more mentioned). ``reason`` is "names" when the name rules put their names in one
    person (1.0: an entry split by hand, or a list imported with one person twice);
    "learned", with the same-person probability of the likeliest pair of their names; or
    what the dialogue says (:func:`~litlens.quotes.answers.dialogue_leads`): "answers" (a
    name in address that the other mostly answers) or "family" (a first name a relative of
    the other sex calls the other by), with the share of that evidence and ``evidence``; or
    "shorter" (``fold`` holds only a shorter form of the names of ``keep``, however often
    each is mentioned), with :data:`SHORTER_SCORE` shared among the entries it may shorten."""

    keep: int  # index into the list (the more mentioned; for "shorter", the full name)
    fold: int
    probability: float
    reason: str = "learned"
    evidence: str = ""  # the evidence in words ("answers", "family" and "shorter")


# Titles of kinship that go before a first name ("Aunt Emily", "Uncle George", "Cousin Kate"):
# the name after one is a first name when the lexicon knows it as one ("Uncle Knightley" is not).
_KIN_TITLES = frozenset({"Aunt", "Uncle", "Cousin", "Sister"})
# A married woman's titles ("Mrs.", "Madame"): the names after one may be her husband's.
_MARRIED = frozenset(t for t, (_, group, _) in _HONORIFICS.items() if group == "f-married")


def _name_words(alias: str) -> tuple[str, list[str]]:
    """(canonical title or "the" or "", name words without particles) of an alias."""
    title, words = _alias_key(alias) or ("", ())
    return title, [w for w in words if w not in _PARTICLES]


def _first_names(characters: list[Character]) -> list[set[str]]:
    """Each entry's first names as its aliases write them: the first word of a full name
    ("Lucy Honeychurch"), one word that is some entry's first name ("Lucy"), or a first
    name after a title of kinship ("Aunt Emily").
    A married woman's title + full name ("Mrs. John Knightley") names her husband, so it
    gives none."""
    split_aliases = [[_name_words(a) for a in {c.name, *c.aliases}] for c in characters]
    full = [{words[0] for title, words in aliases if len(words) > 1 and title not in _MARRIED}
            for aliases in split_aliases]
    known = set().union(*full) if full else set()
    out = []
    for names, aliases in zip(full, split_aliases):
        one = {words[0] for title, words in aliases if len(words) == 1 and words[0] in known
               and (not title or _HONORIFICS[title][2] == "any")}
        kin = {words[0] for title, words in aliases if len(words) == 1 and title in _KIN_TITLES
               and known_first_name(words[0])}
        out.append(names | one | kin)
    return out


def _surnames(characters: list[Character]) -> list[set[str]]:
    """Each entry's surnames as its aliases write them: the last word of a full name
    ("Athelney Jones") or the name after a title that takes a surname ("Dr. Watson",
    "Inspector Ratcliffe"). A married woman's title is left out: her surname may be new."""
    out = []
    for c in characters:
        names = set()
        for alias in {c.name, *c.aliases}:
            title, words = _name_words(alias)
            if title in _MARRIED or title == "the" or not words:
                continue
            if len(words) > 1 or (title and _HONORIFICS[title][2] == "surname"):
                names.add(words[-1].lower())
        out.append(names)
    return out


def _different_first_names(a: set[str], b: set[str]) -> bool:
    """Both entries have first names and none is the other's, even as a pet form."""
    def related(x: str, y: str) -> bool:
        return x == y or y in _DIMINUTIVES.get(x, ()) or x in _DIMINUTIVES.get(y, ())

    return bool(a) and bool(b) and not any(related(x, y) for x in a for y in b)


def _shortens(short: str, long: str) -> bool:
    """``short`` is how a book shortens ``long``: its first name alone ("Tom" for "Tom
    Chitling"), its surname alone ("Lesley" for "Mrs. Lesley"), or the same title with the
    surname alone ("Mr. Dashwood" for "Mr. John Dashwood"). Not after a married woman's
    title: "Mrs. Dashwood" is often not "Mrs. John Dashwood" but her mother-in-law."""
    return _parsed_shortens(_name_words(short), _name_words(long))


def _parsed_shortens(short: tuple[str, list[str]], long: tuple[str, list[str]]) -> bool:
    (ts, ws), (tl, wl) = short, long
    if len(ws) != 1 or not wl or "the" in (ts, tl):
        return False
    if not ts:
        first = len(wl) > 1 and tl not in _MARRIED and ws[0] == wl[0]
        last = (len(wl) > 1 or bool(tl)) and ws[0] == wl[-1]
        return first or last
    return ts == tl and ts not in _MARRIED and len(wl) > 1 and ws[0] == wl[-1]


def _shorter_names(characters: list[Character]) -> dict[tuple[int, int], tuple[float, str]]:
    """Entries that hold nothing but a shorter form of the names of others (:func:`_shortens`):
    (short, long) -> (:data:`SHORTER_SCORE` over how many entries it may shorten, the evidence
    in words). The name rules leave such a form apart when the book writes it for two people
    ("Tom White" and "Tom Chitling"), so it is offered, not joined: a scholar knows which."""
    aliases = [list(dict.fromkeys([c.name, *c.aliases])) for c in characters]
    parsed = [[(a, _name_words(a)) for a in mine] for mine in aliases]
    by_word: dict[str, set[int]] = {}  # a name word -> the entries with a longer name it ends or begins
    for j, forms in enumerate(parsed):
        for _, (_, words) in forms:
            if words:
                by_word.setdefault(words[0], set()).add(j)
                by_word.setdefault(words[-1], set()).add(j)
    out: dict[tuple[int, int], tuple[float, str]] = {}
    for i, forms in enumerate(parsed):
        if any(len(words) != 1 for _, (_, words) in forms):
            continue  # a full name of its own
        longer: dict[int, tuple[str, str]] = {}
        covered = set()
        for j in sorted(set().union(*(by_word.get(words[0], set()) for _, (_, words) in forms)) - {i}):
            for a, pa in forms:
                b = next((b for b, pb in parsed[j] if _parsed_shortens(pa, pb)), None)
                if b is not None:
                    longer.setdefault(j, (a, b))
                    covered.add(a)
        if not longer or len(covered) < len(forms):
            continue
        for j, (a, b) in longer.items():
            others = [f'"{longer[k][1]}"' for k in longer if k != j]
            also = f" (and of {', '.join(others)})" if others else ""
            out[(i, j)] = (round(SHORTER_SCORE / len(longer), 3), f'"{a}" is a shorter form of "{b}"{also}')
    return out


def suggest_merges(
    text: str,
    persons: list[EntityMention],
    quotations: list[Quotation] | None,
    characters: list[Character],
    *,
    model: CharacterModel | None | str = "default",
    floor: float = SUGGEST_FLOOR,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> list[MergeSuggestion]:
    """Pairs of entries of ``characters`` (the list as it stands, edits included) that may
    be one person: those whose names the name rules put in one person, and those the
    learned same-person step (4f) scores at ``floor`` or more without joining them (a first
    name and a married name, a nickname, a title never written beside the name), unless
    the list has one as a man and the other as a woman, gives both first names and they
    differ ("Mr. Thaddeus Sholto", "Mr. Bartholomew Sholto"; a pet form is the same), or
    gives both surnames, they differ, and neither entry is a woman's.

    Then what the dialogue shows (:func:`~litlens.quotes.answers.dialogue_leads`), with
    its evidence in words: a name in address that the other entry mostly answers, and a
    first name that a relative of the other sex calls the other by ('"Janny," said Mr.
    Hall': Mrs. Hall), again never a man with a woman. Last, an entry that holds nothing
    but a shorter form of names listed under others (:func:`_shorter_names`: "Tom" beside
    "Tom Chitling", "Mr. Dashwood" beside "Mr. John Dashwood"), the form the name rules keep
    apart when the book writes it for two people; the evidence names every entry it may be.

    The name forms are found again as discovery finds them; each form belongs to the entry
    that lists it as an alias. A person of the rules whose forms belong to several entries
    suggests them; so does a scored pair of people whose forms belong to two entries.
    Likeliest first (the rules' first); without a same-person model only the rules' and the
    dialogue's and the shorter forms' suggestions are made. On the 20 PDNC novels, with
    models that never saw the novel, 14 of the 24 suggestions join two entries of one
    person, and they reach 13 of the 34 speaking characters left split in several entries
    (the shorter forms: 6 right of 11, reaching 5 of the 13).
    """
    report = progress or (lambda fraction, message: None)
    if model == "default":
        model = default_model()
    if len(characters) < 2:
        return []
    report(0.0, "finding names")
    found = find_entities(text, persons, quotations, progress=lambda f, m: report(0.6 * f, m))
    if cancelled and cancelled():
        raise CancelledError("suggesting merges")
    entry_of: dict[str, int] = {}
    for k, c in enumerate(characters):
        for alias in [c.name, *c.aliases]:
            entry_of.setdefault(_normal(alias), k)

    # the entries each person of the rules' forms belong to
    owners = {id(e): {entry_of[n] for f in e.forms for a in _aliases(f) if (n := _normal(a)) in entry_of}
              for e in found.entities}

    def ordered(i: int, j: int) -> tuple[int, int]:
        return (i, j) if (characters[i].mention_count, -i) >= (characters[j].mention_count, -j) else (j, i)

    first_names = _first_names(characters)
    surnames = _surnames(characters)

    def apart(key: tuple[int, int]) -> bool:
        """The list as it stands has a man and a woman (its genders may be the user's), two
        first names ("Mr. Thaddeus Sholto" and "Mr. Bartholomew Sholto": two brothers), or
        two surnames and no woman ("Mr. Athelney Jones" and "Dr. Watson"; a woman's
        surname changes when she marries, a man's does not)."""
        genders = {characters[k].gender for k in key}
        a, b = (surnames[k] for k in key)
        return (genders == {"male", "female"}
                or _different_first_names(*(first_names[k] for k in key))
                or ("female" not in genders and bool(a) and bool(b) and not a & b))

    best: dict[tuple[int, int], tuple[float, str]] = {}
    for e in found.entities:
        for i in owners[id(e)]:
            for j in owners[id(e)]:
                if i < j:
                    best[ordered(i, j)] = (1.0, "names")
    if model is not None and model.same_person is not None:
        report(0.6, "scoring pairs of names")
        pairs, rows = pair_rows(found)
        probabilities = model.same_person.probabilities(rows)
        if cancelled and cancelled():
            raise CancelledError("suggesting merges")
        for (a, b), p in zip(pairs, probabilities):
            ea, eb = owners[id(a)], owners[id(b)]
            if p < floor or len(ea) != 1 or len(eb) != 1 or ea == eb:
                continue
            key = ordered(next(iter(ea)), next(iter(eb)))
            if apart(key):
                continue
            if key not in best or best[key] < (float(p), "learned"):
                best[key] = (float(p), "learned")
    said: dict[tuple[int, int], str] = {}
    for lead in dialogue_leads(found, quotations):
        ea, eb = owners[id(lead.a)], owners[id(lead.b)]
        if len(ea) != 1 or len(eb) != 1 or ea == eb:
            continue
        key = ordered(next(iter(ea)), next(iter(eb)))
        if key in best or apart(key):
            continue
        best[key] = (lead.score, lead.reason)
        said[key] = lead.evidence
    for (short, long), (score, evidence) in _shorter_names(characters).items():
        key = ordered(short, long)
        if apart(key) or (key in best and (best[key][1] != "learned" or best[key][0] >= score)):
            continue  # a weaker learned score gives way: the evidence says what else it may be
        best.pop(key, None)
        best[(long, short)] = (score, "shorter")  # the short form goes into the full name
        said[(long, short)] = evidence
    report(1.0, f"{len(best)} suggestions")
    return [MergeSuggestion(keep, fold, round(p, 3), reason, said.get((keep, fold), ""))
            for (keep, fold), (p, reason) in sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))]


def _owned_mentions(found: Found) -> list[tuple[int, int, int]]:
    """Every counted mention of a listed entry: (start, end, the entry's index), in text order."""
    owner = {id(f): k for k, e in enumerate(found.entities) for f in e.forms}
    return [(s, e, owner[id(f)]) for s, e, f in found.occurrences if id(f) in owner]


def find_entities(text: str, persons: list[EntityMention], quotations: list[Quotation] | None = None,
                  *, progress: Progress | None = None) -> Found:
    """Steps 1-5: the name forms of the book grouped into people by the name rules."""
    report = progress or (lambda fraction, message: None)
    scan = _TextIndex(text)
    forms = _collect_forms(text, persons, scan)
    report(0.3, "filtering names")
    forms = _filter_forms(forms, scan)
    report(0.4, "counting mentions")
    occurrences = _scan_mentions(text, forms, scan)
    for form in forms.values():
        if form.hon in ("", "the") and form.locative >= max(3, 0.4 * form.count) and not _speaks(form):
            form.count = 0  # "at Thornton Lacey", "to San Sebastian", "at the Angel": a place
    speech = sorted(span for q in quotations or [] for span in q.spans)
    _vote_pronouns(text, occurrences, scan, speech)
    note_speech_naming(text, [o for o in occurrences if o[2].count > 0], quotations or [])
    report(0.7, "grouping aliases")
    entities, ambiguous = _group(forms, frozenset(scan.sisters))
    counted = [o for o in occurrences if o[2].count > 0]
    entities, ambiguous = join_former_names(text, entities, ambiguous, counted)
    return Found(scan, entities, ambiguous, counted, speech)


# --------------------------------------------------------------------------- output


def _display(form: _Form) -> str:
    if form.surfaces:
        # the most used spelling, a dialect title last ("Mr. Oakley", not "Mistah Oakley")
        surface, _ = max(form.surfaces.items(), key=lambda kv: (kv[0].split()[0] not in DIALECT_TITLES, kv[1], kv[0]))
        return surface
    hon = form.hon + "." if form.hon in _ABBREVIATIONS else form.hon
    return " ".join(([hon] if hon else []) + list(form.words))


def _aliases(form: _Form) -> list[str]:
    """The spellings of a form seen in the text (display form first)."""
    out = [_display(form)]
    for surface in sorted(form.surfaces):
        if surface not in out:
            out.append(surface)
    return out


def _main_form(entity: _Entity) -> _Form:
    """The most informative of the frequent forms, a name before a description ("Fagin",
    not "the Jew")."""
    top = max(f.count for f in entity.forms)
    frequent = [f for f in entity.forms if f.count >= 0.2 * top]
    described = {f.words for f in entity.forms if f.hon == "the"}  # "Duck" of "the Duck" is no name
    main = max(frequent, key=lambda f: (f.hon != "the" and f.words not in described,
                                        len(f.words) + 0.5 * bool(f.hon), f.count, f.words))
    if main.hon and main.hon != "the" and len(main.words) == 1:
        # "Miss Bennet" and "Jane", both frequent, are "Jane Bennet" when the text writes it
        given = {f.words[0] for f in frequent if not f.hon and len(f.words) == 1}
        full = [f for f in entity.forms if not f.hon and len(f.words) > 1
                and f.given in given and f.surname == main.words[0]]
        if full:
            return max(full, key=lambda f: (f.count, f.words))
    return main


def _normal(alias: str) -> str:
    return _SPACE.sub(" ", alias.replace(".", " ")).strip().lower()


def _build(text: str, entities: list[_Entity], ambiguous: list,
           quotations: list[Quotation]) -> list[Character]:
    by_alias: dict[str, _Entity] = {}
    for e in entities:
        for f in e.forms:
            for a in _aliases(f):
                by_alias.setdefault(_normal(a), e)
    quotes: Counter = Counter()
    for q in quotations:
        if q.speaker:
            e = by_alias.get(_normal(q.speaker))
            if e is not None:
                quotes[id(e)] += 1
    kept = [e for e in entities
            if e.count >= 2 or any(f.hon for f in e.forms) or quotes[id(e)]]
    for form, candidates in ambiguous:
        for e in candidates:
            e.ambiguous.append(form)
    characters = []
    taken: set[str] = set()  # an alias names one character only
    for e in sorted(kept, key=lambda e: (-e.count, _main_form(e).words)):
        aliases = []
        for f in [_main_form(e)] + sorted(e.forms, key=lambda f: (-f.count, f.words, f.hon)):
            for a in _aliases(f):
                if a not in aliases and a not in taken:
                    aliases.append(a)
        if not aliases:
            continue
        taken.update(aliases)
        ambiguous_aliases = []
        for f in sorted(e.ambiguous, key=lambda f: (-f.count, f.words, f.hon)):
            for a in _aliases(f):
                if a not in ambiguous_aliases:
                    ambiguous_aliases.append(a)
        characters.append(Character(
            name=aliases[0],
            aliases=aliases,
            gender=final_gender(e),
            mention_count=e.count,
            quote_count=quotes[id(e)],
            ambiguous_aliases=ambiguous_aliases,
        ))
    # the counts a user will see again after editing the list (count_mentions)
    counts = count_mentions(text, characters)
    for c in characters:
        c.mention_count = counts.get(c.name, 0)
    characters.sort(key=lambda c: (-c.mention_count, c.name))
    return characters
