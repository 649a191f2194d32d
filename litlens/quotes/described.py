"""Speakers the narration describes: "said the porter", "the old beadle replied".

A noun cue names its speaker by a description. :func:`description` reads the head noun and
wording of one; the attributor resolves it against the character list
(:mod:`litlens.attribution.context`), and discovery (:mod:`litlens.quotes.characters`) makes
a description the list lacks into an alias of the named person it stands for, or into a
minor character of its own (:func:`described_entries`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from litlens.quotes.aliases import Found, _Entity
from litlens.quotes.answers import _sex, speech_turns
from litlens.quotes.apposition import apposed
from litlens.quotes.cues import _PARTICLES
from litlens.quotes.forms import _Form
from litlens.quotes.gender import _vote_pronouns
from litlens.quotes.lexicon import SPEECH_VERBS

# Nouns that tell a speaker's gender in a noun cue ("said his wife", "her father replied")
_NOUN_GENDER = {
    **dict.fromkeys("wife mother sister daughter aunt niece lady woman girl mistress widow grandmother "
                    "governess maid housekeeper hostess landlady queen duchess".split(), "female"),
    **dict.fromkeys("husband father brother son uncle nephew gentleman man boy master widower grandfather "
                    "host landlord king duke".split(), "male"),
}
# Titles and the words that go before a name ("the old", "poor")
_HONORIFIC_WORDS = {"mr", "mrs", "miss", "ms", "dr", "sir", "lady", "lord", "madame", "mme", "mlle", "monsieur",
                    "mademoiselle", "captain", "colonel", "professor", "aunt", "uncle", "cousin", "the", "old", "young", "little", "poor"}

# Nouns too general to stand for one described character ("said the man").
_GENERIC_HEADS = {"man", "woman", "voice", "person", "one", "other", "people", "fellow", "girl", "boy", "lady",
                  "gentleman", "child", "stranger", "figure", "creature", "thing", "party"}
_VOICE_WORDS = {"voice", "tones", "tone", "accents"}

# Relatives named by a noun cue ("said her father"): a person of the list, not a new one
_KIN_GENDER = {**dict.fromkeys(("father", "brother", "son", "uncle", "nephew"), "male"),
               **dict.fromkeys(("mother", "sister", "daughter", "aunt", "niece"), "female")}

# The description after "the" in a cue, up to three words
_DESCRIBED = re.compile(r"\bthe\s+((?:[a-z][a-z'’-]*\s+){0,2}[a-z][a-z'’-]*)", re.IGNORECASE)
_NOT_IN_DESCRIPTION = {"of", "in", "with", "from", "at", "and", "or", "who", "as", "to", "would", "could", "should",
                       "will", "shall", "might", "must", "did", "had", "was", "were", "is", "has", "then", "now"}
_NOT_A_PERSON = {"first", "second", "third", "latter", "former", "last", "other", "rest", "whole", "same", "men",
                 "women", "children", "two", "three", "wife", "husband", "spouse", "answer", "reply", "question",
                 "words", "word", "cry", "exclamation", "remark", "response", "retort", "door", "room", "way"}


# Words an inverted cue may put between its verb and its subject ("cried out the porter",
# "said at last the porter"): the cue grammar's own particles
_BEFORE_SUBJECT = _PARTICLES | {"at", "last", "length"}


def description(text: str, after: str = "") -> tuple[str, str] | None:
    """The head noun and the words of a cue's "the ..." phrase ("said the worthy matron,
    setting it down" -> ("matron", "worthy matron")), stopping at a speech verb, a
    preposition or punctuation; None for a general noun ("the man") or a kin word. A general
    noun that the text ``after`` the cue marks out with "in" or "with" is one person, the
    phrase its head ("said the gentleman" + " in the white waistcoat" -> ("gentleman in
    waistcoat", "gentleman in the white waistcoat")), unless the phrase tells how
    the words were said ("with a smile", "in a low voice")."""
    m = _DESCRIBED.search(text)
    if m is None or not all(w in SPEECH_VERBS or w in _BEFORE_SUBJECT or w.endswith("ly")
                            for w in text[: m.start()].lower().split()):
        return None  # only the cue's subject: not "He surveyed the company, ..., and said"
    words: list[str] = []
    for w in m.group(1).split():
        low = w.lower()
        if low in SPEECH_VERBS or low in _NOT_IN_DESCRIPTION or low.endswith(("ed", "ing", "ly")):
            break
        words.append(low)
    if not words:
        return None
    head = words[-1]
    if head in _GENERIC_HEADS and after and m.end() == len(text.rstrip()) and len(words) == len(m.group(1).split()):
        return _marked(words, after)
    if (head in _GENERIC_HEADS or head in _KIN_GENDER or head in _HONORIFIC_WORDS or head in _VOICE_WORDS
            or head in _NOT_A_PERSON or (head.endswith("s") and not head.endswith("ss"))
            or len(head) < 3 or not head.isalpha()):
        return None
    return head, " ".join(words)


# "in the white waistcoat", "with spectacles": a phrase right after a cue's general noun
_MARKED = re.compile(r"[ \t]*\n?[ \t]*(in|with)\s+(?:(the|a|an)\s+)?((?:[a-z][a-z'’-]*\s+){0,2}[a-z][a-z'’-]*)")
# ... that tells how the words were said, not who said them
_MANNER = set("""voice voices tone tones undertone whisper accent accents breath smile smiles sigh laugh laughter
grin frown bow nod shrug look glance air manner way gesture wink start groan sneer scowl shudder yawn cough
growl chuckle surprise astonishment amazement anger alarm haste hurry despair disgust triumph delight horror
contempt scorn earnest spite reply answer return turn time moment tears agitation emotion effort
dignity indignation impatience irritation satisfaction relief""".split())


def _marked(words: list[str], after: str) -> tuple[str, str] | None:
    m = _MARKED.match(after)
    if m is None:
        return None
    prep, det = m.group(1).lower(), m.group(2)
    tail: list[str] = []
    for w in m.group(3).split():
        low = w.lower()
        if low in SPEECH_VERBS or low in _NOT_IN_DESCRIPTION or low.endswith(("ing", "ly")):
            break
        tail.append(low)
    if not tail or tail[-1] in _MANNER or len(tail[-1]) < 3 or not tail[-1].isalpha():
        return None
    head = " ".join([words[-1], prep, tail[-1]])  # "the man with the (black) beard": one man
    return head, " ".join([*words, prep, *([det.lower()] if det else []), *tail])


def head_noun(wording: str) -> str:
    """The noun of a description ("matron" of "worthy matron", "gentleman" of "old
    gentleman in the white waistcoat")."""
    words = wording.split()
    marked = next((k for k, w in enumerate(words) if w in ("in", "with")), len(words))
    return words[marked - 1] if marked else words[-1]


# ---- discovery: descriptions the list lacks -----------------------------------------------

MIN_CUES = 2  # a description a cue uses once is too little to make anyone of
EPITHET_ANSWERS = 2  # answers to one name in address that make a description that person's
EPITHET_SHARE = 0.75  # ... and the share of all its answers to names they must be
_NOUN_VOTES = 3  # pronoun votes a description's sex counts as ("the landlady": she)


def described_entries(found: Found, quotations: list | None) -> Found:
    """``found`` with the descriptions that noun cues use at least :data:`MIN_CUES` times for
    a speaker no entry covers ("said the beadle", "replied the old mariner"). One the
    narration sets beside one name in apposition ("Mr. Eager, the English chaplain at
    Florence"; :mod:`litlens.quotes.apposition`) is that person's; the others are read by
    whom they answer (:mod:`litlens.quotes.answers`). A description whose speech answers, at
    least :data:`EPITHET_ANSWERS` times and mostly, a speech addressing one listed name is that
    person's epithet and joins the entry as an alias (the beadle answers "Mr. Bumble" 9 times
    of 11; the painter, "Basil" 6 of 6); one that answers no name at all is a minor character
    of its own, its sex from the pronouns after it and its noun (the mariner, the barman); the
    others, which answer several people or one only once, stay out (the lad answers Dorian and
    James Vane)."""
    if not quotations:
        return found
    turns = speech_turns(found, quotations)
    entities = turns.entities
    covered = {w.lower() for e in entities for f in e.forms for w in (*f.words, f.hon) if w}
    wordings: dict[str, Counter] = defaultdict(Counter)
    answered: dict[str, Counter] = defaultdict(Counter)
    for q in quotations:
        found_description = None
        if q.type == "anaphoric":
            after = found.scan.text[q.cue_span[1]:q.cue_span[1] + 80] if q.cue_span else ""
            found_description = description(q.referring_expression or "", after)
        if found_description is None or found_description[0] in covered:
            continue  # no description, or one the list has ("the Jew", "the Inspector")
        head, wording = found_description
        wordings[head][wording] += 1
        before = turns.before(turns.paragraph_of(q.start))
        if before is not None:
            answered[head].update(turns.by_paragraph[before][0])
    added: list[_Entity] = []
    joined = False
    heads = {head for head, forms in wordings.items() if sum(forms.values()) >= MIN_CUES}
    beside = apposed(found, entities, heads)
    for head, forms in sorted(wordings.items()):
        if head not in heads:
            continue
        form = _Form(hon="the", words=tuple(forms.most_common(1)[0][0].split()))
        form.surfaces.update({"the " + w: n for w, n in forms.items()})
        form.count = sum(forms.values())
        if len(beside[head]) == 1:  # "Mr. Wells, the lawyer": named in apposition
            who = next(iter(beside[head]))
            if not {_sex(entities[who]), _NOUN_GENDER.get(head_noun(head), "")[:1]} >= {"m", "f"}:
                entities[who].forms.append(form)
                joined = True
                continue
        by = answered[head]
        if not by:
            _vote(found, form, forms)
            added.append(_Entity([form]))
            continue
        who, n = by.most_common(1)[0]
        if n >= EPITHET_ANSWERS and n >= EPITHET_SHARE * sum(by.values()):
            entities[who].forms.append(form)
            joined = True
    if not added and not joined:
        return found
    return Found(found.scan, entities + added, found.ambiguous, found.occurrences, found.speech)


def _vote(found: Found, form: _Form, wordings: Counter) -> None:
    """The new entry's sex: the pronouns after the description in the text, as for names
    (:func:`~litlens.quotes.gender._vote_pronouns`), and its noun's sex ("the landlady")."""
    text = found.scan.text
    pattern = re.compile(r"\bthe\s+(?:%s)\b" % "|".join(
        r"\s+".join(map(re.escape, w.split())) for w in sorted(wordings, key=len, reverse=True)), re.IGNORECASE)
    _vote_pronouns(text, [(m.start(), m.end(), form) for m in pattern.finditer(text)], found.scan, found.speech)
    sex = _NOUN_GENDER.get(head_noun(" ".join(form.words)))
    if sex == "male":
        form.male += _NOUN_VOTES
        form.any_votes["m"] += _NOUN_VOTES
    elif sex == "female":
        form.female += _NOUN_VOTES
        form.any_votes["f"] += _NOUN_VOTES
