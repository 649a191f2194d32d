"""Speech cues next to a quotation: who speaks, and whether it is a name or a pronoun.

A cue (PDNC's *referring expression*) is a speech verb and the speaker's mention next to
it. :func:`cue_after` looks for one at the start of the narration that follows a quotation
("said he", "replied Mr. Collins, smiling", "said dour Major Callendar", "Mr. Bennet
coolly observed", "Freddy was saying", "was the answer", "was Mr. Weston's quick
amendment", and any past tense in the inverted order: "pronounced Poirot"); :func:`cue_before`
at the end of the narration that introduces one ("Elizabeth coloured and said,", "she
began:", "and I hedged:"). Both detection (:mod:`litlens.quotes.grouping` joins the pieces
of a speech around a cue) and typing (:mod:`litlens.quotes.types`) read them, and so does
speaker attribution.

The subject decides the cue's type. Pronouns, indefinite pronouns and noun phrases with a
determiner ("the old man", "his wife", "the Jew") are anaphoric. A capitalised word is a
proper name, so explicit, when the book mostly writes it capitalised mid-sentence or a
PERSON mention covers it (see :class:`~litlens.quotes.lexicon.Names`); honorific + word
("Mrs. Bennet"), "the" + such a name ("the Gryphon", "the Dodger", "the Professor") and
"poor Oliver", "de Worms" count as names too. In a cue before a quotation the subject is
the nearest such phrase to the verb, unless it is an object or sits in a relative clause
while an earlier name or pronoun of the sentence can be the subject ("Mr. Crawford,
stepping forward to Maria, said", "Fielding, who did not dislike Miss Derek, replied"); a
relative clause holding the verb makes its antecedent the subject ("at Darcy, who said").
The one a perception verb hears speaks ("Emma heard him add", "to hear her friend exclaim"),
a clause after ", and" with a noun subject of its own is that subject's ("and his wife was
exclaiming"), a name right after a verb is its object ("She had met Fielding by chance,
said"), and a passive ("and was immediately greeted with") names nobody.

:func:`clause_start` and :func:`clause_end` find the sentence of narration a cue or a
not-speech rule reads, in time linear in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from litlens.model import QuoteType
from litlens.quotes.lexicon import (
    _ABBREV,
    _NOT_NAMES,
    DETERMINERS,
    HONORIFICS,
    INDEFINITES,
    NAME_PARTICLES,
    PERSONAL_PRONOUNS,
    SPEECH_NOUNS,
    SPEECH_VERBS,
    Names,
    _is_demonym,
    _Tok,
    _tokens,
)


# Words allowed between an inverted speech verb and its subject ("said he", "went on the
# old man", "cried out Lydia", "said, at last, Mrs. Bennet" is too rare to bother).
_PARTICLES = {"out", "up", "in", "on", "back", "forth", "again", "aloud", "softly", "quietly", "now", "then"}
_CONJ_START = {"and", "but", "then", "so", "yet", "or", "at", "last", "length", "presently", "now", "here", "there", "again", "still", "once", "more"}


_SENTENCE_END = re.compile(r"[.!?]+[)\]'’\"”]*(?=\s|$)|;|\n\s*\n")


@dataclass(frozen=True)
class Cue:
    """A referring expression: a speech verb and the speaker's mention next to it."""

    type: QuoteType
    text: str
    start: int
    end: int
    subject: str


_NAME_ADJECTIVES = frozenset(
    "poor little old young dear good kind honest sweet stout pretty unhappy wretched gentle faithful brave wise silly".split()
)


def _subject_after(toks: list[_Tok], i: int, names: Names) -> tuple[str, int] | None:
    """Classify the noun phrase starting at ``toks[i]``: ("pronoun"|"noun"|"name", last index)."""
    if i >= len(toks):
        return None
    tok = toks[i]
    low = tok.low
    if low in PERSONAL_PRONOUNS or low in INDEFINITES:
        return "pronoun", i
    if low in DETERMINERS:
        # "the old man", "his wife"; "the Dodger" when the book writes Dodger as a name
        return _phrase_after(toks, i, names)
    if (low in _NAME_ADJECTIVES or low in NAME_PARTICLES) and i + 1 < len(toks) and toks[i + 1].start - tok.end <= 1:
        # "inquired poor Oliver", "said little Roo", "cried old Sikes"
        rest = _subject_after(toks, i + 1, names)
        if rest and rest[0] == "name":
            return rest
    if names.is_name_token(tok):
        j = _name_run_end(toks, i, names)
        if tok.low in HONORIFICS and j == i:
            # A bare honorific ("said Sir") is an address word, unless a name follows.
            return "noun", i
        if toks[j].low.endswith(("'s", "’s")):
            # A possessor is not the speaker ("Fanny's looks ... he said", "Mr. Bumble's good
            # lady"), unless what is possessed is the speech itself: "Cecil's voice came"
            voiced = _voiced_at(toks, j + 1)
            if voiced is not None:
                return "name", voiced
            phrase = _phrase_after(toks, j, names)
            return "noun", phrase[1] if phrase else j
        return "name", j
    return None


# Lower-case words that cannot be an epithet in front of a title: "said to Mr. Knox",
# "told them Mrs. Lynde's news", "said that Mr. Elton".
_NOT_EPITHETS = frozenset(
    """to at with of for from on upon by towards toward near into about after before than that
    which who whom whose and but or nor so as if when while then there here not never also only
    even just still again once all both each every any no some this these those such very more
    most much""".split()
)


def _epithet_before_title(toks: list[_Tok], i: int) -> bool:
    """``toks[i]`` is a lower-case word, an epithet, before a title or another epithet that
    leads to one ("dour" in "said dour Major Callendar", "pleasure-loving" before "Miss
    Derek"). Read only right after an inverted speech verb, where nothing but the speaker's
    description stands; elsewhere such a word may govern the name ("snubbing Mrs. Norris").
    Only before a title, where the name that follows is sure."""
    def epithet(k: int) -> bool:
        if k + 1 >= len(toks):
            return False
        tok = toks[k]
        if not tok.text[:1].islower() or toks[k + 1].start - tok.end > 1:
            return False
        word = tok.low
        return not (word in _NOT_EPITHETS or word in _OBJECT_LEADS or word in PERSONAL_PRONOUNS
                    or word in DETERMINERS or word in INDEFINITES or word in SPEECH_VERBS
                    or not word.replace("-", "").isalpha() or len(word) < 3)

    def title(k: int) -> bool:
        return k < len(toks) and toks[k].low in HONORIFICS and toks[k].text[:1].isupper()

    return epithet(i) and (title(i + 1) or (epithet(i + 1) and title(i + 2)))


def _name_run_end(toks: list[_Tok], i: int, names: Names) -> int:
    """The last token of the name that starts at ``toks[i]``: name words, and a surname's
    lower-case particles between them ("Mr. van der Luyden", "Catherine de Bourgh")."""
    j = i
    while True:
        k = j + 1
        while k < len(toks) and k <= j + 2 and toks[k].low in NAME_PARTICLES and toks[k].start - toks[k - 1].end <= 1:
            k += 1
        if k < len(toks) and toks[k].start - toks[k - 1].end <= 1 and names.is_name_token(toks[k]):
            j = k
        else:
            return j


def _name_run_start(text: str, toks: list[_Tok], k: int, names: Names) -> int:
    """The first token of the name that ends with ``toks[k]``, walking back over name words
    and a surname's lower-case particles ("Mr. van der Luyden said", "then de Worms said")."""

    def joined(a: int) -> bool:  # only spaces between toks[a] and the next token
        return text[toks[a].end:toks[a + 1].start].isspace() and toks[k].start - toks[a].end < 40

    k0 = k
    while True:
        m = k0 - 1
        while m > 0 and m >= k0 - 2 and toks[m].low in NAME_PARTICLES and joined(m):
            m -= 1
        if m >= 0 and names.is_name_token(toks[m]) and joined(m):
            k0 = m
        elif m >= 0 and m < k0 - 1 and not names.is_name_token(toks[m]):
            return m + 1  # the particles open the name: "then de Worms said"
        elif m == 0 and toks[0].low in NAME_PARTICLES and joined(0):
            return 0
        else:
            return k0


_SPEECH_NOUNS = frozenset(
    """voice voices remark remarks comment comments reply replies answer answers words tone tones
    question questions exclamation exclamations cry cries response rejoinder retort whisper
    whispers greeting verdict observation speech accents""".split()
)
_POSSESSED_LEADS = frozenset("only first last next own usual further".split())


def _voiced_at(toks: list[_Tok], k: int) -> int | None:
    """Index of the speech a possessor owns when the phrase at ``toks[k]`` names it ("voice",
    "only comment", "giving a sigh and saying"), else None."""
    while k < len(toks) and toks[k].low in _POSSESSED_LEADS:
        k += 1
    if k >= len(toks):
        return None
    low = toks[k].low.rstrip(".")
    return k if low in _SPEECH_NOUNS or (low.endswith("ing") and len(low) > 4) else None


def _phrase_after(toks: list[_Tok], i: int, names: Names) -> tuple[str, int] | None:
    """The noun phrase led by the determiner or possessor ``toks[i]``: ("noun"|"name", last index)."""
    j = i + 1
    last = i
    kind = "noun"
    while j < len(toks) and j <= i + 4:
        t = toks[j]
        gap = t.start - toks[j - 1].end
        if gap > 2 or (gap == 2 and t.text[:1].islower()):
            break  # punctuation between: the phrase ended, unless a name stands in apposition
        verb = t.low in SPEECH_VERBS and not (t.text[:1].isupper() and names.mostly_capitalised(t.low))
        if verb or t.low in {"to", "with", "in", "at", "and", "but", "who", "as", "from", "of", "on"}:
            break
        last = j
        if t.text[:1].isupper() and not _is_demonym(t.low) and names.is_name_token(t):
            kind = "name"  # "the Gryphon", "the Dodger", "the Professor" (not "the Jew")
        j += 1
        if not t.text[:1].isupper() and t.low.endswith(("man", "woman", "lady", "girl", "boy", "one")):
            break
    return (kind, last) if last > i else None


def _kind_to_type(kind: str) -> QuoteType:
    return "explicit" if kind == "name" else "anaphoric"


def _cue(text: str, toks: list[_Tok], a: int, b: int, kind: str) -> Cue:
    start, end = toks[a].start, toks[b].end
    if text[end - 1] == "." and _ABBREV.search(text[max(0, end - 6) : end]) is None:
        end -= 1
    return Cue(type=_kind_to_type(kind), text=text[start:end], start=start, end=end, subject=kind)


def clause_end(text: str, start: int, end: int) -> int:
    """End of the first sentence of narration ``text[start:end]``."""
    for m in _SENTENCE_END.finditer(text, start, end):
        if m.group().startswith(".") and _ABBREV.search(text[max(start, m.start() - 8) : m.start() + 1]):
            continue
        return m.start()
    return end


# Narration read back from its end at first by clause_start: enough for most clauses.
_CLAUSE_WINDOW = 400
# No sentence of narration before a quotation is read further back than this: the longest
# clause_start finds on the 20 PDNC novels and the sample is 814 characters. Without a
# bound, a paragraph of many quotations and no full stop (100,000 opening quote marks) made
# every quotation read the paragraph back to its start: quadratic time.
CLAUSE_LIMIT = 2000


def clause_start(text: str, start: int, end: int, ends: re.Pattern[str] = _SENTENCE_END) -> int:
    """Start of the last sentence of narration ``text[start:end]`` (``ends``: what ends one;
    by default a semicolon does too), at most :data:`CLAUSE_LIMIT` characters before ``end``.

    The answer is the end of the last sentence end before ``end``, so only the last few
    hundred characters are read, then four times as many until one is found: the time
    grows with the clause, not with the paragraph (a book on one line is one paragraph).
    A scan begun inside one of these patterns' matches finds a match ending where that
    one ends, so from its first match on it sees the same matches as a scan from ``start``;
    that first one is not trusted (its start, which the abbreviation test reads, may differ).
    """
    start = max(start, end - CLAUSE_LIMIT)
    if ends is not _SENTENCE_END and ends is not _FULL_STOP:
        return _last_clause_end(text, start, start, end, ends)  # type: ignore[return-value]
    window = _CLAUSE_WINDOW
    while True:
        begin = max(start, end - window)
        last = _last_clause_end(text, start, begin, end, ends)
        if last is not None:
            return last
        window *= 4


def _last_clause_end(text: str, start: int, begin: int, end: int, ends: re.Pattern[str]) -> int | None:
    """End of the last sentence end in ``text[begin:end]`` that is not the text's end, not
    an abbreviation's full stop and not the first match when ``begin > start`` (see
    :func:`clause_start`); ``start`` if ``begin == start`` and there is none, else None."""
    last = start if begin == start else None
    trusted = begin == start
    for m in ends.finditer(text, begin, end):
        if m.end() >= end:
            break
        if not trusted:
            trusted = True
            continue
        if m.group().startswith(".") and _ABBREV.search(text[max(start, m.start() - 8) : m.start() + 1]):
            continue
        last = m.end()
    return last


_IRREGULAR_PAST = frozenset(
    """began broke came went gave took spoke thought stood sat rose put got made ran shook threw
    held kept felt knew saw drew flung struck caught bent fell found hung led left let lay met
    read rang sent set shut sprang stole swept swung tore told wept won wrote""".split()
)


def _past_verb(tok: _Tok) -> bool:
    """A lower-case past-tense verb ("hedged", "lowered", "went")."""
    if not tok.text[:1].islower():
        return False
    return tok.low in _IRREGULAR_PAST or (len(tok.low) > 4 and tok.low.endswith("ed") and tok.low not in _NOT_VERBS_ED)


_NOT_VERBS_ED = frozenset("indeed need feed seed bred wed shed red bed led fed sped fled".split())


def _inverted_verb(tok: _Tok) -> bool:
    """A speech verb, or any past-tense verb in the inverted order right after a quotation
    ("pronounced Poirot", "acquiesced the undertaker": English puts no other verb there)."""
    if tok.low in SPEECH_VERBS:
        return True
    return tok.text[:1].islower() and len(tok.low) > 4 and tok.low.endswith("ed") and tok.low not in _NOT_VERBS_ED


def _cleft(text: str, toks: list[_Tok], names: Names) -> Cue | None:
    """"It was Poirot who spoke.", "It was Marilla who spoke, alarm in every jerky word."."""
    if len(toks) > 4 and toks[0].low == "it" and toks[1].low == "was":
        subj = _subject_after(toks, 2, names)
        if subj and subj[1] + 2 < len(toks) and toks[subj[1] + 1].low == "who" and toks[subj[1] + 2].low in SPEECH_VERBS:
            return _cue(text, toks, 2, subj[1], subj[0])
    return None


def cleft_cue(text: str, start: int, end: int, names: Names) -> Cue | None:
    """A cleft naming who spoke at the start of ``text[start:end]``: read in the paragraph
    after a quotation that ends its own, where no other cue is ("It was Marilla who spoke")."""
    return _cleft(text, _tokens(text, start, clause_end(text, start, end)), names)


def cue_after(text: str, start: int, end: int, names: Names) -> Cue | None:
    """A cue at the very start of the narration ``text[start:end]`` that follows a quotation."""
    stop = clause_end(text, start, end)
    toks = _tokens(text, start, stop)
    if not toks:
        return None
    # Inverted: [adverb] VERB [particle] SUBJECT — "said Elizabeth", "replied he", "cried her mother".
    i = 0
    if toks[0].low.endswith("ly") and len(toks) > 1 and _inverted_verb(toks[1]):
        i = 1
    elif len(toks) > 2 and [t.low for t in toks[:2]] in (["at", "last"], ["at", "length"]) and toks[2].low in SPEECH_VERBS:
        i = 2  # "at last said Jem"
    if _inverted_verb(toks[i]):
        j = i + 1
        while j < len(toks) and toks[j].low in _PARTICLES and j < i + 3:
            j += 1
        epithets = j
        while j < epithets + 2 and _epithet_before_title(toks, j):
            j += 1  # "said dour Major Callendar", "sighed pleasure-loving Miss Derek"
        subj = _subject_after(toks, j, names)
        if subj:
            return _cue(text, toks, 0, subj[1], subj[0])
        return None
    cleft = _cleft(text, toks, names)
    if cleft:
        return cleft
    # "was the answer", "was her reply", "came the answer", "was Emma's calm answer".
    if toks[0].low in {"was", "were", "came"} and len(toks) > 1:
        owned = _possessed_speech(text, toks, names)
        if owned is not None:
            return _cue(text, toks, 0, owned, "name")
        for k in range(1, min(len(toks), 6)):
            if toks[k].low in SPEECH_NOUNS:
                kind = "noun"
                for t in toks[1:k]:
                    if t.text[:1].isupper() and t.low.rstrip("'s").rstrip("'") not in _NOT_NAMES:
                        kind = "name"
                        break
                return _cue(text, toks, 0, k, kind)
    # Subject first: SUBJECT [adverbs / short clause] VERB — "she cried", "Mr. Bennet coolly observed".
    subj = _subject_after(toks, 0, names)
    if subj:
        kind, last = subj
        for k in range(last + 1, min(len(toks), last + 4)):
            if toks[k].low in SPEECH_VERBS:
                return _cue(text, toks, 0, k, kind)
            if k + 1 < len(toks) and _PHRASAL.get(toks[k].low) == toks[k + 1].low:
                return _cue(text, toks, 0, k + 1, kind)  # "Jem shot back", "Polly struck in"
            if k == last + 1 and toks[last].low in _SPEECH_NOUNS and toks[k].low in _VOICE_VERBS:
                return _cue(text, toks, 0, k, kind)  # "Jem's voice came"
            if toks[k].low in _PROGRESSIVE and k + 1 < len(toks) and toks[k + 1].low.endswith("ing") \
                    and toks[k + 1].low in SPEECH_VERBS:
                return _cue(text, toks, 0, k + 1, kind)  # "Freddy was saying", never "was told"
            if toks[k].low == "to" and toks[k - 1].low not in _CATENATIVES:
                break  # "The words she would like to have said" has no speaker
            if not (toks[k].low.endswith("ly") or toks[k].low in _BEFORE_SPEECH):
                break
    return None


_PROGRESSIVE = frozenset("was were is are".split())
# Words between a subject and its speech verb after a quotation: "Jem then said", "Jem had
# said", "Jem used to say", "Jem kept saying", "Jem managed to say".
_BEFORE_SPEECH = frozenset(
    "then again now only just still presently at last once had has have would could did used kept managed to".split()
)
_CATENATIVES = frozenset("used managed had".split())
# Verbs that mean speech only with their particle: "Jem shot back", "Polly struck in".
_PHRASAL = {"shot": "back", "flung": "back", "threw": "in", "struck": "in", "cut": "in", "chimed": "in", "broke": "in"}
_VOICE_VERBS = frozenset("came rang sounded broke".split())
_POSSESSED_WORDS = 3


def _possessed_speech(text: str, toks: list[_Tok], names: Names) -> int | None:
    """Right after a quotation, "was Mr. Weston's quick amendment", "were Colonel Fitzwilliam's
    words", "was Mrs. Moore's thought": a name in the possessive and a short phrase of
    lower-case words that ends the clause. What the name owns there is the quotation, whatever
    the noun. Index of the phrase's last word, else None."""
    if not names.is_name_token(toks[1]):
        return None
    j = _name_run_end(toks, 1, names)
    if not toks[j].low.endswith(("'s", "’s")) or j + 1 >= len(toks):
        return None
    for k in range(j + 1, min(len(toks), j + 1 + _POSSESSED_WORDS)):
        if not toks[k].text[:1].islower() or toks[k].start - toks[k - 1].end > 1:
            return None
        if k + 1 == len(toks) or toks[k + 1].start - toks[k].end > 1:
            return k  # the clause or a comma ends the phrase
    return None


# A sentence of its own before a quotation that says only who takes up the speech: "Poirot
# went on.", "Miss Bertram began again.", "Aziz joined in.", "Gilbert it was who spoke up
# stoutly." Verbs that need a particle to mean speech name it.
_TAKES_UP = {"began": (), "continued": (), "resumed": (), "spoke": (), "interposed": (), "added": (),
             "replied": (), "answered": (), "said": (), "went": ("on",), "joined": ("in",), "broke": ("in",),
             "struck": ("in",), "chimed": ("in",), "put": ("in",)}
_AFTER_TAKING_UP = frozenset("again at once last length then now up presently too also".split())
_SENTENCE_CUE_WORDS = 10
_NO_SPEAKER = frozenset("it one we they us them there this that".split())  # subjects of no one speaker
_CLOSING_MARKS = "\"'’”»"


def _speaker_opening(toks: list[_Tok], limit: int, names: Names) -> tuple[int, int, str] | None:
    """The one person a sentence opens with, after "And", "Then", ... (looked for before
    ``toks[limit]``): (first index, last index, "pronoun" | "name"), else None ("it", "they",
    a noun phrase)."""
    first = 0
    while first < min(limit, len(toks)) and toks[first].low in _CONJ_START:
        first += 1
    if first >= len(toks) or toks[first].low in _NO_SPEAKER:
        return None
    if toks[first].low in PERSONAL_PRONOUNS:
        return first, first, "pronoun"
    subj = _subject_after(toks, first, names)
    return (first, subj[1], "name") if subj is not None and subj[0] == "name" else None


def _sentence_cue(text: str, start: int, stop: int, names: Names) -> Cue | None:
    """A cue that is the whole last sentence of ``text[start:stop]`` (which ends in a full stop)."""
    s = clause_start(text, start, stop)
    if start > 0 and text[start - 1] in _CLOSING_MARKS and not text[start:s].strip():
        return None  # right after a quotation it is that quotation's cue: '"...," Brett said.'
    toks = _tokens(text, s, stop - 1)
    if not toks or len(toks) > _SENTENCE_CUE_WORDS:
        return None
    opening = _speaker_opening(toks, len(toks) - 1, names)  # not "The rain began."
    if opening is None:
        return None
    first, last, kind = opening
    j = last + 1
    if [t.low for t in toks[j : j + 3]] == ["it", "was", "who"]:
        j += 3
    while j < len(toks) and j <= last + 2 and toks[j].low.endswith("ly") and toks[j].low not in _TAKES_UP:
        j += 1
    if j >= len(toks) or toks[j].low not in _TAKES_UP:
        return None
    verb = j
    needs = _TAKES_UP[toks[j].low]
    if needs:
        if j + 1 >= len(toks) or toks[j + 1].low not in needs:
            return None
        j += 1
    if not all(t.low in _AFTER_TAKING_UP or t.low.endswith("ly") for t in toks[j + 1 :]):
        return None
    if text[toks[first].end : toks[verb].start].count(",") or text[toks[verb].end : stop].count(","):
        return None
    return _cue(text, toks, first, j, kind)


# Words after which a name is an object, not the one who speaks: "stepping forward to
# Maria, said", "Cecil bent towards Lucy and said", "Mr. Crawford approaching Julia said".
_OBJECT_LEADS = frozenset(
    "to at with of for from on upon by towards toward near opposite beside behind against into".split()
)
_ING_NOUNS = frozenset(
    "morning evening nothing something anything everything during darling wedding pudding "
    "building meeting ceiling shilling farthing stocking lodging offspring beginning".split()
)
_SUBORDINATORS = frozenset("when after before as while till until if though although because since once".split())
_BASE_VERBS = frozenset("see meet find leave join watch tell ask help visit".split())
_RELATIVE = re.compile(r",\s*(?:who|whom|whose|which|that)\b[^,]*$", re.IGNORECASE)
_WHO_BEFORE_VERB = re.compile(r",?\s*who(?:\s*,\s*\w+ing\b[^,.;:!?]*,)?\s+(?:\w+ly\s+)?")
_FULL_STOP = re.compile(r"[.!?]+[)\]'’\"”]*(?=\s|$)|\n\s*\n")


def _could_be_subject(text: str, start: int, end: int, names: Names) -> bool:
    """Is there a name or a personal pronoun in the sentence part ``text[start:end]``?"""
    start = clause_start(text, start, end, _FULL_STOP)
    return any(names.is_name_token(t) or (t.low in PERSONAL_PRONOUNS and t.low != "it") for t in _tokens(text, start, end))


def _is_object(text: str, toks: list[_Tok], k: int, last: int, verb: int, names: Names, start: int) -> bool:
    """Is the name ``toks[k..last]`` the object of a word before it or inside a relative
    clause, rather than the subject of the speech verb ``toks[verb]``: "stepping forward
    to Maria, said", "approaching Julia said", "Fielding, who did not dislike Miss Derek,
    replied"? Only when a name or pronoun earlier in the sentence (from ``start``) can
    be the subject instead ("Before leaving Madame Ratignolle said", "broken by Isabella,
    who in a voice of cold resentment said"); and a relative clause that holds the verb
    makes the name its subject ("looked at Darcy, who said")."""
    if _WHO_BEFORE_VERB.fullmatch(text, toks[last].end, toks[verb].start):
        return False  # "joined by Thorpe, who, coming to them with a gayer look, said"
    if toks[k - 1].low == "by" and last >= verb - 1 and toks[verb - 1].low.endswith("'s"):
        return False  # the speech is the name's own: "she was stopped by Sir Thomas's saying"
    prev = toks[k - 1]
    if not _could_be_subject(text, start, prev.start, names):
        return False
    if prev.low in _OBJECT_LEADS:
        return True
    joined = text[prev.end : toks[k].start].isspace()
    if joined and prev.text.islower() and prev.low.endswith("ing") and len(prev.low) > 5 and prev.low not in _ING_NOUNS:
        return True  # a participle with its object: "approaching Julia", "snubbing George"
    if joined and prev.low not in SPEECH_VERBS and (
            _past_verb(prev) or (prev.low in _BASE_VERBS and k >= 2 and toks[k - 2].low == "to")):
        # a verb's object: "She had met Fielding by chance, said", "to see Fanny alone, and said";
        # not the end of a clause that opens the sentence: "When he had finished Fielding said"
        return not any(t.low in _SUBORDINATORS for t in toks[: k - 1])
    # A relative clause opened after the subject and closed before the verb.
    before = text[toks[0].start : toks[k].start]
    return _RELATIVE.search(before) is not None and "," in text[toks[k].end : toks[verb].start]


# How many words may follow the speech verb of a cue before the quotation ("said, in a
# low voice that nobody else could hear,").
_CUE_TAIL = 11


def cue_before(text: str, start: int, end: int, names: Names) -> Cue | None:
    """A cue ending the narration ``text[start:end]`` just before a quotation.

    The last sentence must end in a speech verb, optionally followed by a few words
    ("to her", "in a low voice") and a comma, colon or dash: "Elizabeth said,",
    "he withdrew his own and coldly said,", "she began:".
    """
    tail = text[start:end].rstrip()
    if tail.endswith("."):
        return _sentence_cue(text, start, start + len(tail), names)
    if tail and tail[-1] in "!?":
        return None
    s = clause_start(text, start, end)
    toks = _tokens(text, s, end)
    if not toks:
        return None
    verb = None
    for k in range(len(toks) - 1, max(-1, len(toks) - _CUE_TAIL), -1):
        if toks[k].low in SPEECH_VERBS:
            verb = k
            break
    if verb is None and tail.endswith(":"):
        # "My thoughts flew to Mary, and I hedged:", "the thought flashed across my mind:"
        for k in range(len(toks) - 1, -1, -1):
            if _past_verb(toks[k]):
                verb = k
                break
    if verb is None:
        return None
    aux = verb - 1
    while aux > 0 and toks[aux].low.endswith("ly") and len(toks[aux].low) > 4:
        aux -= 1
    if aux >= 0 and toks[aux].low in _PASSIVE and toks[verb].low.endswith(("ed", "told")):
        return None  # "and was immediately greeted with": the subject is spoken to
    heard = _heard_speaker(toks, verb, names) or _coordinate_subject(text, toks, verb, names)
    if heard is not None:
        return _cue(text, toks, heard[1], verb, heard[0])
    # The subject: the nearest noun phrase before the verb in its comma-chunk, else the
    # sentence's first phrase (after "And", "Then", "At last", ...).
    candidates = list(range(verb - 1, -1, -1))
    first = 0
    while first < verb and toks[first].low in _CONJ_START:
        first += 1
    best = None
    for k in candidates:
        low = toks[k].low
        if low in PERSONAL_PRONOUNS and low not in {"it", "one", "himself", "herself", "myself", "themselves"}:
            best = ("pronoun", k, k)
            break
        subj = _subject_after(toks, k, names)
        if subj and subj[0] == "name" and (k == 0 or toks[k - 1].low not in DETERMINERS):
            # Walk back to the start of a multi-word name.
            k0 = _name_run_start(text, toks, k, names)
            if k0 > 0 and _is_object(text, toks, k0, subj[1], verb, names, start):
                continue
            best = ("name", k0, subj[1])
            break
        if low in DETERMINERS and k == first:
            subj = _subject_after(toks, k, names)
            if subj:
                best = (subj[0], k, subj[1])
                break
    if best is None:
        return _subject_before_semicolon(text, start, s, end, toks, verb, names)
    kind, a, _ = best
    return _cue(text, toks, a, verb, kind)


_PERCEPTION = frozenset("hear heard hears hearing overhear overheard overhears overhearing".split())
_OBJECT_PRONOUNS = frozenset("him her it them".split())
_BETWEEN_SUBJECT_AND_VERB = frozenset(
    "thus then again still just now was were had would could did might should must once more".split()
)
_PASSIVE = frozenset("was were been being".split())
_TIME_NOUNS = frozenset("moment minute instant second time day night morning evening while".split())
_CLAUSE_LINKS = frozenset("and but while when whereupon till until".split())


def _before_verb(toks: list[_Tok], verb: int) -> int:
    """Index of the last word before ``toks[verb]`` that is no adverb or auxiliary ("his
    wife was exclaiming", "heard him thus saying")."""
    k = verb - 1
    while k > 0 and (toks[k].low in _BETWEEN_SUBJECT_AND_VERB or (toks[k].low.endswith("ly") and len(toks[k].low) > 4)):
        k -= 1
    return k


def _heard_speaker(toks: list[_Tok], verb: int, names: Names) -> tuple[str, int] | None:
    """The one a perception verb's subject hears speak: "Emma heard her saying", "not too soon
    to hear her friend exclaim", "she could hear his voice saying", "heard a low voice say".
    (kind, first index of the phrase), else None: a name there is the nearest phrase anyway,
    and "He heard himself remark" or "was heard to say" leave the subject speaking."""
    k = _before_verb(toks, verb)
    p = next((j for j in range(k - 1, max(-1, k - 5), -1) if toks[j].low in _PERCEPTION), None)
    if p is None:
        return None
    obj = p + 1
    if toks[obj].start - toks[p].end > 1:
        return None  # punctuation: "he heard, and said"
    low = toks[obj].low
    if obj == k and low in _OBJECT_PRONOUNS:
        return "pronoun", obj
    if low in DETERMINERS:
        phrase = _phrase_after(toks, obj, names)
        if phrase is not None and _before_verb(toks, phrase[1] + 1) <= k <= phrase[1]:
            # "his voice saying" is his, as "he said" would be
            voiced = low in {"his", "her"} and toks[k].low in _SPEECH_NOUNS
            return ("pronoun" if voiced else phrase[0]), obj
    return None


def _coordinate_subject(text: str, toks: list[_Tok], verb: int, names: Names) -> tuple[str, int] | None:
    """A clause after ", and" with a noun phrase of its own as the verb's subject: "Mr. Elton
    had just joined them, and his wife was exclaiming", "Gregory fell back in his seat, and
    the chairman repeated". The name earlier in the sentence is someone else. A voice or
    look of someone ("and her voice said") is left to the sentence's subject."""
    k = _before_verb(toks, verb)
    for d in range(k, max(1, k - 4), -1):
        if toks[d].low not in DETERMINERS or toks[d - 1].low not in _CLAUSE_LINKS:
            continue
        if d < 2 or not re.search(r"[,;]", text[toks[d - 2].end : toks[d - 1].start]):
            return None
        phrase = _phrase_after(toks, d, names)
        if phrase is None or not (_before_verb(toks, phrase[1] + 1) <= k <= phrase[1]) \
                or toks[k].low in _SPEECH_NOUNS or toks[k].low in _TIME_NOUNS:
            return None  # "and her voice said", "and the next moment said"
        return phrase[0], d
    return None


def _subject_before_semicolon(text: str, start: int, s: int, end: int, clause: list[_Tok], verb: int, names: Names) -> Cue | None:
    """The cue of a clause after a semicolon whose verb has no subject of its own: the
    sentence's subject ("Lady Catherine ... declined eating any thing; and then rising up,
    said to Elizabeth,"). Only when the clause opens with "and", "but" or "then" and no
    pronoun or name stands between that word and the verb."""
    if s <= start or not text[max(start, s - 8):s].rstrip().endswith(";") or clause[0].low not in {"and", "but", "then"}:
        return None
    if any(t.low in PERSONAL_PRONOUNS or names.is_name_token(t) for t in clause[1:verb]):
        return None
    s2 = clause_start(text, start, s, _FULL_STOP)
    toks = _tokens(text, s2, end)
    opening = _speaker_opening(toks, len(toks), names)  # not "The name seemed to strike them all; and ... said"
    if opening is None or toks[opening[0]].start >= s:
        return None
    first, last, kind = opening
    verb = next((k for k in range(len(toks) - 1, last, -1) if toks[k].low in SPEECH_VERBS), None)
    if verb is None or toks[verb].start < s:
        return None
    return _cue(text, toks, first, verb, kind)
