"""Quotation types in the PDNC sense, from the narration around a quotation.

* **explicit** — the narration next to the quotation names the speaker with a proper
  name and a speech verb ("said Elizabeth", "Mrs. Bennet said", "cried Lydia");
* **anaphoric** — a speech verb with a pronoun or a common noun phrase ("she cried",
  "said his lady to him", "I said", "said her mother", "was the answer");
* **implicit** — no such cue: the speaker follows from turn-taking.

The cue (PDNC's *referring expression*) is looked for by :func:`cue_after` at the start
of the narration that follows a quotation ("said he", "replied Mr. Collins, smiling",
"Mr. Bennet coolly observed", "was the answer", and any past tense in the inverted
order: "pronounced Poirot") and by :func:`cue_before` at the end of the narration that
introduces one ("Elizabeth coloured and said,", "she began:", "and I hedged:").
:mod:`litlens.quotes.detect` decides which narration belongs to which quotation.

The subject decides the type. Pronouns, indefinite pronouns and noun phrases with a
determiner ("the old man", "his wife", "the Jew") are anaphoric. A capitalised word is a
proper name, so explicit, when the book mostly writes it capitalised mid-sentence or a
PERSON mention covers it (see :class:`Names`); honorific + word ("Mrs. Bennet"),
"the" + such a name ("the Gryphon", "the Dodger", "the Professor") and "poor Oliver",
"de Worms" count as names too. In a cue before a quotation the subject is the nearest
such phrase to the verb, unless it is an object or sits in a relative clause while an
earlier name or pronoun of the sentence can be the subject ("Mr. Crawford, stepping
forward to Maria, said", "Fielding, who did not dislike Miss Derek, replied"); a
relative clause holding the verb makes its antecedent the subject ("at Darcy, who said").

Everything is regular expressions and small tables; no model is loaded here.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from litlens.model import EntityMention, QuoteType

# Verbs (all inflections listed) that introduce or tag direct speech or thought.
_VERB_STEMS = """
say said says saying
cry cried cries crying
reply replied replies replying
ask asked asks asking
answer answered answers answering
return returned returns
exclaim exclaimed exclaims exclaiming
continue continued continues continuing
add added adds adding
observe observed observes observing
remark remarked remarks remarking
whisper whispered whispers whispering
mutter muttered mutters muttering
murmur murmured murmurs murmuring
shout shouted shouts shouting
call called calls calling
begin began begins beginning begun
repeat repeated repeats repeating
inquire inquired inquires inquiring enquire enquired enquires enquiring
rejoin rejoined rejoins
resume resumed resumes
pursue pursued pursues
retort retorted retorts
interpose interposed interposes
interrupt interrupted interrupts interrupting
explain explained explains explaining
demand demanded demands demanding
declare declared declares declaring
protest protested protests protesting
persist persisted persists
suggest suggested suggests suggesting
conclude concluded concludes concluding
admit admitted admits admitting
agree agreed agrees
urge urged urges
announce announced announces announcing
falter faltered falters faltering
venture ventured ventures
ejaculate ejaculated ejaculates
plead pleaded pleads pleading
respond responded responds responding
sob sobbed sobs sobbing
sigh sighed sighs sighing
gasp gasped gasps gasping
growl growled growls growling
scream screamed screams screaming
shriek shrieked shrieks shrieking
stammer stammered stammers stammering
stutter stuttered stutters
echo echoed echoes echoing
laugh laughed laughs laughing
chuckle chuckled chuckles
giggle giggled giggles
smile smiled smiles smiling
grin grinned grins
sneer sneered sneers
snap snapped snaps
snarl snarled snarls
bark barked barks
roar roared roars roaring
bellow bellowed bellows
yell yelled yells yelling
howl howled howls
wail wailed wails
moan moaned moans
groan groaned groans
hiss hissed hisses
breathe breathed breathes
blurt blurted blurts
bawl bawled bawls
sing sang sings singing sung
chant chanted chants
chime chimed chimes
chirp chirped chirps
lisp lisped lisps
drawl drawled drawls
mumble mumbled mumbles mumbling
grumble grumbled grumbles grumbling
complain complained complains complaining
insist insisted insists insisting
object objected objects
argue argued argues arguing
assent assented assents
assure assured assures
confess confessed confesses
counter countered counters
correct corrected corrects
prompt prompted prompts
query queried queries
question questioned questions
request requested requests
beg begged begs begging
implore implored implores
entreat entreated entreats
command commanded commands
order ordered orders
warn warned warns warning
tell told tells telling
speak spoke speaks speaking
utter uttered utters
think thought thinks thinking
wonder wondered wonders wondering
reflect reflected reflects
muse mused muses musing
reason reasoned reasons
proceed proceeded proceeds
go went goes
put
break broke breaks
burst bursts
cut
interject interjected interjects
mention mentioned mentions
note noted notes
comment commented comments
state stated states
affirm affirmed affirms
exult exulted exults
rage raged rages
storm stormed storms
fume fumed fumes
soothe soothed soothes
coax coaxed coaxes
cajole cajoled
tease teased teases
jeer jeered jeers
scoff scoffed scoffs
mock mocked mocks
taunt taunted taunts
greet greeted greets
hail hailed hails
accost accosted
address addressed addresses addressing
write wrote writes
read
recite recited recites
quote quoted quotes
conjecture conjectured
guess guessed guesses
hazard hazarded
vow vowed vows
swear swore swears
promise promised promises
repeat
reiterate reiterated
explode exploded
squeak squeaked squeaks
squeal squealed squeals
pant panted pants
puff puffed puffs
sniff sniffed sniffs
snort snorted snorts
gulp gulped gulps
choke choked chokes
wheeze wheezed wheezes
rasp rasped rasps
croak croaked croaks
quaver quavered quavers
trill trilled trills
purr purred purrs
coo cooed coos
simper simpered simpers
titter tittered titters
cackle cackled cackles
whine whined whines
whimper whimpered whimpers
sputter sputtered sputters
splutter spluttered splutters
babble babbled babbles
prattle prattled prattles
chatter chattered chatters
gabble gabbled
remonstrate remonstrated remonstrates
expostulate expostulated expostulates
beseech besought beseeched beseeches
acquiesce acquiesced acquiesces
concede conceded concedes
confide confided confides
admonish admonished admonishes
corroborate corroborated corroborates
acknowledge acknowledged acknowledges
assert asserted asserts
inform informed informs
advise advised advises
enunciate enunciated enunciates
thunder thundered thunders
mourn mourned mourns
croon crooned croons
drone droned drones
flash flashed
"""
SPEECH_VERBS: frozenset[str] = frozenset(_VERB_STEMS.split())

# "was the answer", "was Emma's calm reply", "came the reply".
SPEECH_NOUNS: frozenset[str] = frozenset(
    """answer reply rejoinder response retort remark comment observation exclamation cry
    question query inquiry enquiry conclusion greeting whisper words advice opinion verdict
    comment answer explanation objection assurance suggestion announcement salutation
    declaration""".split()
)

HONORIFICS: frozenset[str] = frozenset(
    """mr mrs ms miss master mme mlle madame mademoiselle monsieur signor signora signorina
    sir lady lord dame dr doctor captain capt colonel col major general gen lieutenant
    sergeant admiral professor prof rev reverend father mother sister brother aunt uncle
    cousin king queen prince princess duke duchess count countess baron baroness
    inspector superintendent judge mister herr frau fraulein don donna senor senora
    president governor mistress saint st""".split()
)

PERSONAL_PRONOUNS: frozenset[str] = frozenset(
    "he she i we they you it one thou ye himself herself myself themselves".split()
)
INDEFINITES: frozenset[str] = frozenset(
    """somebody someone everybody everyone nobody anybody anyone none all both each
    another others other either neither several many few some""".split()
)
DETERMINERS: frozenset[str] = frozenset(
    "the a an his her my our their your its this that these those thy every no".split()
)
# Capitalised words that open sentences or clauses without being a speaker's name.
_NOT_NAMES: frozenset[str] = (
    PERSONAL_PRONOUNS
    | INDEFINITES
    | DETERMINERS
    | frozenset(
        """and but then so yet or nor for as when while after before until though although
        if because since where there here now still again at last presently soon once
        only just even also too not never always perhaps indeed however instead thus
        meanwhile suddenly immediately finally afterwards later oh ah well yes no why
        what who whom whose which how this said cried replied asked answered""".split()
    )
)

# Words allowed between an inverted speech verb and its subject ("said he", "went on the
# old man", "cried out Lydia", "said, at last, Mrs. Bennet" is too rare to bother).
_PARTICLES = {"out", "up", "in", "on", "back", "forth", "again", "aloud", "softly", "quietly", "now", "then"}
_CONJ_START = {"and", "but", "then", "so", "yet", "or", "at", "last", "length", "presently", "now", "here", "there", "again", "still", "once", "more"}

_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['’](?=[^\W\d_])|-(?=[^\W\d_]))*\.?")
_ABBREV = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|St|Mme|Mlle|Messrs|Col|Capt|Gen|Lieut|Rev|Prof|Sr|Jr|No|Mt|[A-Z]))\.$")
_SENTENCE_END = re.compile(r"[.!?]+[)\]'’\"”]*(?=\s|$)|;|\n\s*\n")


@dataclass(frozen=True)
class Cue:
    """A referring expression: a speech verb and the speaker's mention next to it."""

    type: QuoteType
    text: str
    start: int
    end: int
    subject: str


@dataclass(frozen=True)
class _Tok:
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.rstrip(".").lower().replace("’", "'")


def _tokens(text: str, start: int, end: int) -> list[_Tok]:
    return [_Tok(m.group(), start + m.start(), start + m.end()) for m in _WORD.finditer(text[start:end])]


def is_speech_verb(word: str) -> bool:
    return word.lower().rstrip(".") in SPEECH_VERBS


_DEMONYM = re.compile(r"(?:[a-z]{3,}(?:man|woman)|[a-z]+(?:ian|ean|an|ese|ish))$")
_DEMONYMS = frozenset(
    """jew jewess hindu turk moor greek swiss french arab dane pole scot briton yankee negro
    native moslem muslim mussulman gentile pagan heathen saxon celt gipsy gypsy""".split()
)
_CAP_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def _is_demonym(low: str) -> bool:
    return low in _DEMONYMS or bool(_DEMONYM.search(low))


class Names:
    """Answers "is this token part of a proper name?".

    A capitalised word is a name when the book mostly writes it capitalised in the middle
    of a sentence (so "Piglet" and "Rabbit" are names in Winnie-the-Pooh, "Perhaps" and
    "Then" are not), or when it is inside a PERSON mention. A word seen only at the
    start of sentences is not taken for a name.
    """

    def __init__(self, text: str, persons: Sequence[EntityMention] | None, *, lenient: bool = False):
        self.text = text
        self.lenient = lenient  # a bare expression without its book: any unknown capitalised word is a name
        self._starts = [p.start for p in persons] if persons else []
        self._persons = list(persons) if persons else []
        self._cap_mid: dict[str, int] = {}
        self._lower: dict[str, int] = {}
        for m in _CAP_WORD.finditer(text):
            word = m.group()
            low = word.lower()
            if word[0].islower():
                self._lower[low] = self._lower.get(low, 0) + 1
            elif not self.sentence_initial(m.start()):
                self._cap_mid[low] = self._cap_mid.get(low, 0) + 1

    def in_person(self, start: int, end: int) -> bool:
        if not self._persons:
            return False
        k = bisect.bisect_right(self._starts, start) - 1
        for j in (k, k + 1):
            if 0 <= j < len(self._persons):
                p = self._persons[j]
                if p.start < end and start < p.end:
                    return True
        return False

    def sentence_initial(self, pos: int) -> bool:
        i = pos - 1
        newlines = 0
        while i >= 0 and self.text[i] in " \t\r\n\"'“”‘’(_*":
            newlines += self.text[i] == "\n"
            i -= 1
        if i < 0 or newlines >= 2:
            return True
        return self.text[i] in ".!?:;" and not _ABBREV.search(self.text[max(0, i - 8) : i + 1])

    def mostly_capitalised(self, low: str) -> bool:
        cap, lower = self._cap_mid.get(low, 0), self._lower.get(low, 0)
        return cap > 0 and cap >= lower

    def mostly_lower(self, low: str) -> bool:
        """Written in lower case more often than capitalised inside a sentence ("that", "one", "man")."""
        return self._lower.get(low, 0) > self._cap_mid.get(low, 0)

    def is_name_token(self, tok: _Tok) -> bool:
        word = tok.text.rstrip(".")
        if not word[:1].isupper():
            return False
        low = tok.low
        if low.endswith(("'s", "’s")):
            low = low[:-2]
        if low in _NOT_NAMES or (low in SPEECH_VERBS and not self.mostly_capitalised(low)):
            return False  # a speech verb is a name only where the book mostly capitalises it: "the Mock Turtle"
        if low in HONORIFICS or self.in_person(tok.start, tok.end):
            return True
        if self.mostly_capitalised(low):
            return True
        # Never seen in the middle of a sentence: a name only if it is not sentence-initial here.
        return self._lower.get(low, 0) == 0 and (self.lenient or not self.sentence_initial(tok.start))


_NAME_ADJECTIVES = frozenset(
    "poor little old young dear good kind honest sweet stout pretty unhappy wretched gentle faithful brave wise silly".split()
)


_NAME_PARTICLES = frozenset("de du da di del della van von der den ten ter la le".split())


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
    if (low in _NAME_ADJECTIVES or low in _NAME_PARTICLES) and i + 1 < len(toks) and toks[i + 1].start - tok.end <= 1:
        # "inquired poor Oliver", "said little Roo", "cried old Sikes"
        rest = _subject_after(toks, i + 1, names)
        if rest and rest[0] == "name":
            return rest
    if names.is_name_token(tok):
        j = i
        while j + 1 < len(toks) and toks[j + 1].start - toks[j].end <= 1 and names.is_name_token(toks[j + 1]):
            j += 1
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
        if t.start - toks[j - 1].end > 2:  # punctuation between: the phrase ended
            break
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
    if _inverted_verb(toks[i]):
        j = i + 1
        while j < len(toks) and toks[j].low in _PARTICLES and j < i + 3:
            j += 1
        subj = _subject_after(toks, j, names)
        if subj:
            return _cue(text, toks, 0, subj[1], subj[0])
        return None
    # "was the answer", "was her reply", "came the answer", "was Emma's calm answer".
    if toks[0].low in {"was", "came"} and len(toks) > 1:
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
            if not (toks[k].low.endswith("ly") or toks[k].low in {"then", "again", "now", "only", "just", "still", "presently", "at", "last", "once", "had", "has", "have", "would", "could", "did"}):
                break
    return None


# Words after which a name is an object, not the one who speaks: "stepping forward to
# Maria, said", "Cecil bent towards Lucy and said", "Mr. Crawford approaching Julia said".
_OBJECT_LEADS = frozenset(
    "to at with of for from on upon by towards toward near opposite beside behind against into".split()
)
_ING_NOUNS = frozenset(
    "morning evening nothing something anything everything during darling wedding pudding "
    "building meeting ceiling shilling farthing stocking lodging offspring beginning".split()
)
_RELATIVE = re.compile(r",\s*(?:who|whom|whose|which|that)\b[^,]*$", re.IGNORECASE)
_WHO_BEFORE_VERB = re.compile(r",?\s*who\s+(?:\w+ly\s+)?")
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
        return False
    prev = toks[k - 1]
    if not _could_be_subject(text, start, prev.start, names):
        return False
    if prev.low in _OBJECT_LEADS:
        return True
    joined = text[prev.end : toks[k].start].isspace()
    if joined and prev.text.islower() and prev.low.endswith("ing") and len(prev.low) > 5 and prev.low not in _ING_NOUNS:
        return True  # a participle with its object: "approaching Julia", "snubbing George"
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
    if tail and tail[-1] in ".!?":
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
            k0 = k
            while k0 > 0 and names.is_name_token(toks[k0 - 1]) and toks[k].start - toks[k0 - 1].end < 40 and text[toks[k0 - 1].end : toks[k0].start].isspace():
                k0 -= 1
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
        return None
    kind, a, _ = best
    return _cue(text, toks, a, verb, kind)


def classify_referring_expression(expression: str | None) -> QuoteType:
    """Type of a quotation whose referring expression (e.g. PDNC's) is given as text.

    ``None`` or an empty expression is implicit; otherwise the expression is read as a cue
    (after-, then before-pattern); when no subject can be found it is anaphoric.
    """
    if not expression or not expression.strip():
        return "implicit"
    names = Names(expression, None, lenient=True)
    cue = cue_after(expression, 0, len(expression), names) or cue_before(expression, 0, len(expression), names)
    return cue.type if cue else "anaphoric"
