"""Words that speech cues are made of, and telling proper names from other capitals.

* the tables: :data:`SPEECH_VERBS` (every inflection of the verbs that introduce or tag
  direct speech or thought), :data:`SPEECH_NOUNS` ("was the answer"), :data:`HONORIFICS`,
  pronouns, indefinites and determiners;
* :class:`Names`, which answers "is this capitalised word part of a proper name?" from how
  the whole book writes the word and from PERSON mentions;
* the word tokenizer the cue patterns in :mod:`litlens.quotes.cues` read.

Everything is regular expressions and small tables; no model is loaded here.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from litlens.model import EntityMention


# Verbs (all inflections listed) that introduce or tag direct speech or thought; a verb whose
# other forms are common nouns ("his pipe", "the joke", "with caution") by its past tense only.
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
grunted hollered piped vouchsafed volunteered gushed boomed intoned declaimed proclaimed
quipped jested joked chaffed bantered cautioned reminded insinuated surmised speculated
avowed yelped sez quoth
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
    inspector superintendent judge mister mistah mistuh massa marse herr frau fraulein don donna senor senora
    president governor mistress saint st""".split()
)

# the lower-case particles of surnames ("de Bourgh", "van der Luyden", "ten Brink"); the
# capitalised spellings that open a surname ("De Griers", "Van Buren") are derived from it
NAME_PARTICLES: frozenset[str] = frozenset("de du da di del della van von der den des dos ten ter la le".split())
CAPITALISED_PARTICLES: frozenset[str] = frozenset(
    w.capitalize() for w in "de du da di del della van von der la le".split())


def elided_particle(word: str) -> bool:
    """A surname opened by an elided "de" in lower case: "d'Urberville", "d’Artagnan"."""
    return word[:2] in ("d'", "d’") and word[2:3].isupper()


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


_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['’](?=[^\W\d_])|-(?=[^\W\d_]))*\.?")
_ABBREV = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|St|Mme|Mlle|Messrs|Col|Capt|Gen|Lieut|Rev|Prof|Sr|Jr|No|Mt|[A-Z]))\.$")


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


_TAGGED_NAME = 2  # times a word follows a speech verb capitalised that make it a name


class Names:
    """Answers "is this token part of a proper name?".

    A capitalised word is a name when the book mostly writes it capitalised in the middle
    of a sentence (so "Piglet" and "Rabbit" are names in Winnie-the-Pooh, "Perhaps" and
    "Then" are not), when it is inside a PERSON mention, or when the book writes it
    capitalised right after a speech verb twice or more ("cried May": "may" is mostly a verb). A word seen only at the
    start of sentences is not taken for a name.
    """

    def __init__(self, text: str, persons: Sequence[EntityMention] | None, *, lenient: bool = False):
        self.text = text
        self.lenient = lenient  # a bare expression without its book: any unknown capitalised word is a name
        self._starts = [p.start for p in persons] if persons else []
        self._persons = list(persons) if persons else []
        self._cap_mid: dict[str, int] = {}
        self._lower: dict[str, int] = {}
        tagged: dict[str, int] = {}
        previous, previous_end = "", 0
        for m in _CAP_WORD.finditer(text):
            word = m.group()
            low = word.lower()
            if word[0].islower():
                self._lower[low] = self._lower.get(low, 0) + 1
            elif not self.sentence_initial(m.start()):
                self._cap_mid[low] = self._cap_mid.get(low, 0) + 1
                if previous in SPEECH_VERBS and text[previous_end:m.start()].isspace() and not word.isupper():
                    tagged[low] = tagged.get(low, 0) + 1
            previous, previous_end = low, m.end()
        # capitalised right after a speech verb, inside a sentence, again and again ("cried
        # May", "said Will"): a speaker's name, though the book writes the word in lower case
        # more often ("may", "will")
        self._tagged = {low for low, n in tagged.items()
                        if n >= _TAGGED_NAME and low.isalpha() and low not in _NOT_NAMES and low not in HONORIFICS}

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
        if elided_particle(word):
            return True
        if not word[:1].isupper():
            return False
        low = tok.low
        if low.endswith(("'s", "’s")):
            low = low[:-2]
        if low in _NOT_NAMES or (low in SPEECH_VERBS and not self.mostly_capitalised(low)):
            return False  # a speech verb is a name only where the book mostly capitalises it: "the Mock Turtle"
        if low in HONORIFICS or self.in_person(tok.start, tok.end):
            return True
        if self.mostly_capitalised(low) or low in self._tagged:
            return True
        # Never seen in the middle of a sentence: a name only if it is not sentence-initial here.
        return self._lower.get(low, 0) == 0 and (self.lenient or not self.sentence_initial(tok.start))
