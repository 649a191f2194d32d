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
   first and last word of a full name, and a known first name followed by a known
   surname at least twice ("Edna Pontellier").
2. **Non-names out.** Exclamations and address words ("Oh", "Sir", "Majesty"); words
   this book mostly writes in lower case or capitalises only at a sentence start ("Pray",
   "Hitherto"); common nouns ("a Roman"); places ("Netherfield" beside "Netherfield
   Park", and names found mostly after "at", "in", "to", "from": "Pemberley",
   "Brighton"); family plurals ("the Bennets").
3. **Counting.** Every kept form is searched over the whole text: case-sensitive, whole
   words, leftmost-longest ("Mr. Darcy" is not also a "Darcy"), a bare word right after
   an unknown "Mr."/"Mrs." is not counted, nor a common-word name at a sentence start.
   Each occurrence votes for a gender with the first he/him/his or she/her/hers after
   it, in the same or the next sentence and before the next name (coreference-lite).
4. **Grouping**, most specific forms first:

   a. full names, one character per first name + surname ("Mr. John Knightley" and his
      wife "Mrs. John Knightley" are two; plain "John Knightley" is the man);
   b. a bare first name joins the one full name it starts ("Jane" -> "Jane Bennet");
   c. honorific + one word ("Mr. Darcy", "Lady Catherine", "Miss Bingley"), grouped with
      compatible spellings ("Mr. Poirot" = "Monsieur Poirot"), joins the one full name it
      fits: the surname, or the first name after Miss/Lady/Sir/Lord/...; honorifics must
      agree (Mr, Mrs and Miss differ; Sir/Lord and military ranks are never "Mr"; a
      Captain is no General), and so must the gender. A wife's title ("Mrs.", "Madame",
      "Lady") joins a full name only when the text shows that person is a woman; a title
      that fits several full names of one family ("Mrs. Dashwood" beside Elinor, Marianne
      and Margaret Dashwood) is a person of her own (the parent); a title + surname is not
      the person the text calls by title + first name ("Mr. Knightley" is not "Mr. John
      Knightley");
   d. a bare word ("Darcy", "Elizabeth", "Aziz") joins the one character it fits; a bare
      surname shared by several goes to the only man among them when he is the one the
      book talks about most and its own pronouns are not female (the narrators' "Darcy");
   e. a small table of English diminutives links "Lizzy"/"Eliza" to the one untitled
      character whose first name is "Elizabeth" (never invents a name).

   Two names that often share a clause (a sentence, cut at quotation marks) are never
   merged: they are two people ("Mrs. Bennet ... Jane"). One-off full names (misprints,
   "Madamsell Adela") do not make a frequent name ambiguous.
5. **Ambiguity.** A form that fits several characters is not guessed: "Miss Bennet"
   (Jane, Elizabeth and Lydia Bennet) and "Bennet" (the whole family) go into
   ``ambiguous_aliases`` of every candidate, are in no character's ``aliases``, and
   their mentions count for nobody. A form that fits no character becomes one.
6. **Gender**: from the honorifics when 80 % of their mentions agree, else from the
   pronoun votes (3 votes and a 60 % majority, otherwise "unknown"); "nonbinary" is never
   inferred.
7. **Keeping**: characters mentioned at least twice, or with an honorific form ("Mr.
   Stone" once), or speaking a quotation; ``quote_count`` counts quotations whose
   ``speaker`` is one of the character's aliases (case and periods ignored).

The function is pure and deterministic; only compiled regexes and constant tables are
module-level. About 0.5 s for Pride and Prejudice on one core.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable

from litlens.model import Character, EntityMention, Gender, Progress, Quotation

# --------------------------------------------------------------------------- tables

# canonical honorific -> (gender, group, role)
# gender: "m", "f" or "" (either); role: which name word follows — "surname" or "any".
# group: honorifics of one group or of compatible groups may name the same person.
_HONORIFICS: dict[str, tuple[str, str, str]] = {
    "Mr": ("m", "m-plain", "surname"),
    "Master": ("m", "m-plain", "any"),
    "Monsieur": ("m", "m-plain", "any"),
    "Signor": ("m", "m-plain", "any"),
    "Herr": ("m", "m-plain", "surname"),
    "Colonel": ("m", "m-rank", "surname"),
    "Captain": ("m", "m-rank", "surname"),
    "Major": ("m", "m-rank", "surname"),
    "General": ("m", "m-rank", "surname"),
    "Admiral": ("m", "m-rank", "surname"),
    "Lieutenant": ("m", "m-rank", "surname"),
    "Sergeant": ("m", "m-rank", "surname"),
    "Corporal": ("m", "m-rank", "surname"),
    "Rev": ("m", "m-plain", "surname"),
    "Father": ("m", "m-plain", "any"),
    "Uncle": ("m", "any", "any"),
    "Sir": ("m", "m-title", "any"),
    "Lord": ("m", "m-title", "any"),
    "Count": ("m", "m-title", "any"),
    "Baron": ("m", "m-title", "any"),
    "Duke": ("m", "m-title", "any"),
    "Prince": ("m", "m-title", "any"),
    "King": ("m", "m-title", "any"),
    "Mrs": ("f", "f-married", "surname"),
    "Madame": ("f", "f-married", "any"),
    "Signora": ("f", "f-married", "any"),
    "Frau": ("f", "f-married", "surname"),
    "Miss": ("f", "f-unmarried", "any"),
    "Mademoiselle": ("f", "f-unmarried", "any"),
    "Signorina": ("f", "f-unmarried", "any"),
    "Ms": ("f", "any", "surname"),
    "Aunt": ("f", "any", "any"),
    "Sister": ("f", "any", "any"),
    "Lady": ("f", "f-title", "any"),
    "Dame": ("f", "f-title", "any"),
    "Countess": ("f", "f-title", "any"),
    "Baroness": ("f", "f-title", "any"),
    "Duchess": ("f", "f-title", "any"),
    "Princess": ("f", "f-title", "any"),
    "Queen": ("f", "f-title", "any"),
    "Dr": ("", "m-plain", "surname"),
    "Professor": ("", "m-plain", "surname"),
    "Inspector": ("", "m-plain", "surname"),
    "Cousin": ("", "any", "any"),
    "Comrade": ("", "any", "any"),
    "the": ("", "any", "any"),  # "the Hatter", "the Colonel": a character known by a description
}
# spellings in the text -> canonical
_HONORIFIC_SPELLINGS: dict[str, str] = {h: h for h in _HONORIFICS} | {
    "Mister": "Mr",
    "Messrs": "Mr",
    "Missis": "Mrs",
    "Missus": "Mrs",
    "Mistress": "Mrs",
    "Mme": "Madame",
    "Madam": "Madame",
    "Mlle": "Mademoiselle",
    "Mdlle": "Mademoiselle",
    "Doctor": "Dr",
    "Col": "Colonel",
    "Capt": "Captain",
    "Gen": "General",
    "Lieut": "Lieutenant",
    "Lt": "Lieutenant",
    "Sergt": "Sergeant",
    "Sgt": "Sergeant",
    "Revd": "Rev",
    "Reverend": "Rev",
    "Prof": "Professor",
    "Mons": "Monsieur",
}
# group pairs that never name the same person
_INCOMPATIBLE_GROUPS = {
    frozenset({"m-plain", "m-title"}),
    frozenset({"m-plain", "m-rank"}),  # Admiral Crawford is not Mr. Crawford, his nephew
    frozenset({"m-rank", "m-title"}),
    frozenset({"f-unmarried", "f-married"}),
    frozenset({"f-unmarried", "f-title"}),
}
# abbreviations whose period does not end a sentence
_ABBREVIATIONS = frozenset(
    {"Mr", "Mrs", "Ms", "Dr", "St", "Jr", "Sr", "Messrs", "Mme", "Mlle", "Mdlle", "Capt",
     "Col", "Gen", "Lt", "Lieut", "Rev", "Revd", "Prof", "Sgt", "Sergt", "Mons", "No", "Co"}
)
_PARTICLES = frozenset({"de", "De", "van", "Van", "von", "Von", "der", "Der", "du", "Du",
                        "la", "La", "le", "Le", "di", "Di", "da", "Da", "del", "Del",
                        "della", "Della", "dos", "des", "ten", "ter", "St."})
# words that start a PERSON span without being part of the name
_LEADING_NON_NAME = frozenset(
    {"Dear", "Dearest", "Poor", "Little", "Old", "Young", "Good", "My", "O", "Oh", "Ah",
     "Papa", "Pa", "Mamma", "Mama", "Ma", "Madamsell", "Mam", "Sweetheart", "Darling",
     "Said", "Says", "Cried", "Ask", "Asked", "Tell", "Told", "Thank", "Thanks", "Kind",
     "Sweet", "Pretty", "Beautiful", "Darling", "Saint", "Yes", "No", "Well", "And", "But",
     "Then", "So", "The", "A", "An", "That", "This", "Ha", "Hallo", "Hello", "Hullo", "Why",
     "What", "Alas", "Bless", "Heavens", "Hush", "Mrs", "Mr", "Miss", "Dear-"}
)
# single words that are never a character's name on their own
_NON_NAMES = frozenset(
    {"Oh", "Ah", "Aye", "Ay", "Alas", "Pray", "Yes", "No", "Nay", "Well", "Dear", "Sir",
     "Madam", "Madame", "Ma'am", "God", "Lord", "Heaven", "Heavens", "Good", "Lady", "Miss",
     "Mr", "Mrs", "Ms", "Mamma", "Mama", "Papa", "Pa", "Ma", "Aunt", "Uncle", "Thou", "Thee",
     "Hurrah", "Hooray", "Hush", "Behold", "Adieu", "Bravo", "Indeed", "Majesty", "Highness",
     "Excellency", "Lordship", "Ladyship", "Honour", "Honor", "Worship", "Grace", "Reverence",
     "Jesus", "Christ", "Jove", "Providence", "Monsieur", "Mademoiselle", "Signor", "Signora",
     "Master", "Mistress", "Doctor", "Dr", "Professor", "Captain", "Colonel", "Major",
     "General", "Admiral", "Inspector", "Sergeant", "Lieutenant", "Rev", "Reverend",
     "Father", "Mother", "Sister", "Brother", "Cousin", "Comrade", "Count", "Countess",
     "Duke", "Duchess", "Prince", "Princess", "King", "Queen", "Baron", "Baroness", "Dame",
     "Gentleman", "Gentlemen", "Ladies", "Sirs", "Chapter", "Volume", "Book", "Christmas",
     "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
     "January", "February", "March", "April", "June", "July", "August", "September",
     "October", "November", "December", "English", "French", "Englishman", "Englishwoman",
     "Frenchman", "Englishmen", "Ha", "Hallo", "Hello", "Hullo", "Amen", "Mercy", "Bah",
     "Pooh-pooh", "Tut", "Fie", "Psha", "Pshaw", "Humph", "Hem", "Eh", "Hey", "Heigh",
     "Ahem", "Farewell", "Goodbye", "Good-bye", "Thank", "Thanks", "Please", "Sorry",
     "Nonsense", "Hm", "Hmm", "Ugh", "Whew", "Wow", "Lo", "Hark", "Zounds", "Gad", "Egad"}
)
# places are often tagged PERSON: "Netherfield" when "Netherfield Park" occurs
_PLACE_SUFFIXES = frozenset(
    {"Park", "Hall", "House", "Street", "Square", "Lane", "Grove", "Abbey", "Farm", "Court",
     "Lodge", "Place", "Road", "Castle", "Church", "Cottage", "Manor", "Row", "Gardens",
     "Bridge", "Common", "Hill", "Mill", "Wood", "Woods", "Forest", "River", "Town",
     "Island", "Villa", "Gate", "Terrace", "Crescent", "Inn", "Hotel", "Station", "Chapel",
     "Cathedral", "College", "School", "Parsonage", "Rectory", "Vicarage", "Priory",
     "Gables", "Creek", "Bay", "Valley", "Mountain", "Mountains", "Lake", "City", "County",
     "Shire", "Cross", "Heath", "Fields", "Market", "Point", "Avenue", "Palace", "Tower",
     "Caves", "Hills", "Road", "Buildings", "Rooms", "Theatre", "Club", "Museum", "Corner",
     "Wells", "Sea", "Ocean", "Coast", "Valley", "Pass", "Downs", "End", "Circus", "Close"}
)
_LOCATIVE_WORDS = frozenset({"at", "in", "near", "into", "to", "from", "towards", "toward",
                             "through", "reach", "reached", "reaching", "leave", "leaving",
                             "left", "quit", "quitted", "round", "Near"})
# A few common English diminutives. They only ever link a nickname found in the text to
# the one untitled character bearing the full first name; nothing is invented.
_DIMINUTIVES: dict[str, tuple[str, ...]] = {
    "Lizzy": ("Elizabeth",), "Lizzie": ("Elizabeth",), "Eliza": ("Elizabeth",),
    "Liz": ("Elizabeth",), "Libby": ("Elizabeth",), "Betsy": ("Elizabeth",),
    "Betty": ("Elizabeth",), "Bess": ("Elizabeth",), "Bessie": ("Elizabeth",),
    "Beth": ("Elizabeth",), "Kitty": ("Catherine", "Katherine"),
    "Kate": ("Catherine", "Katherine"), "Katie": ("Catherine", "Katherine"),
    "Fanny": ("Frances",), "Tom": ("Thomas",), "Tommy": ("Thomas",),
    "Bill": ("William",), "Billy": ("William",), "Will": ("William",),
    "Willy": ("William",), "Bob": ("Robert",), "Bobby": ("Robert",), "Dick": ("Richard",),
    "Harry": ("Henry",), "Ned": ("Edward", "Edmund"), "Ted": ("Edward", "Theodore"),
    "Teddy": ("Edward", "Theodore"), "Jack": ("John",), "Johnny": ("John",),
    "Jim": ("James",), "Jimmy": ("James",), "Jem": ("James",), "Charley": ("Charles",),
    "Charlie": ("Charles",), "Fred": ("Frederick",), "Freddy": ("Frederick",),
    "Freddie": ("Frederick",), "Sam": ("Samuel",), "Sammy": ("Samuel",),
    "Ben": ("Benjamin",), "Nell": ("Ellen", "Eleanor", "Helen"),
    "Nelly": ("Ellen", "Eleanor", "Helen"), "Peggy": ("Margaret",), "Meg": ("Margaret",),
    "Maggie": ("Margaret",), "Polly": ("Mary",), "Molly": ("Mary",), "Sally": ("Sarah",),
    "Patty": ("Martha",), "Susy": ("Susan",), "Sukey": ("Susan",), "Dolly": ("Dorothy",),
    "Tony": ("Anthony",), "Nick": ("Nicholas",), "Andy": ("Andrew",),
    "Belle": ("Isabella",), "Bella": ("Isabella",), "Gil": ("Gilbert",),
    "Josie": ("Josephine",), "Evie": ("Evelyn",), "Nolly": ("Oliver",),
    "Nance": ("Nancy",), "Jake": ("Jacob",), "Mike": ("Michael",), "Mick": ("Michael",),
    "Steve": ("Stephen", "Steven"), "Joe": ("Joseph",), "Matt": ("Matthew",),
    "Pat": ("Patrick", "Patricia"), "Sandy": ("Alexander",), "Alec": ("Alexander",),
}
_TRAILING_TITLES = {"Begum": "Mrs", "Esq": "Mr", "Esquire": "Mr"}
# titles followed by a first name: "Uncle Arthur" still mentions "Arthur"
_FIRST_NAME_TITLES = frozenset(
    {"Master", "Father", "Sister", "Uncle", "Aunt", "Cousin", "King", "Queen"})
_TITLED_GROUPS = frozenset({"m-title", "f-title"})

# --------------------------------------------------------------------------- regexes

_UP, _LO = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"  # Latin-1 letters too: "Alcée", "Léonce"
_NAME_WORD = (
    rf"(?:[{_UP}](?:[{_LO}]+|[{_LO}]*[{_UP}][{_LO}]+)"  # "Darcy", "McBryde"
    rf"(?:'[{_UP}][{_LO}]+)?(?:-[{_UP}{_LO}][{_LO}]+)*)"  # "O'Brien", "Winnie-the-Pooh"
)
_GAP = r"(?:[ \t]+|[ \t]*\r?\n[ \t]*)"
_PARTICLE = r"(?:de|De|van|Van|von|Von|der|du|Du|la|La|le|Le|di|Di|da|Da|del|Del|della)"
_NAME_RUN = (
    rf"{_NAME_WORD}(?:{_GAP}(?:[A-Z]\.{_GAP})?(?:{_PARTICLE}{_GAP})?{_NAME_WORD}){{0,2}}"
)
_HON_ALT = "|".join(sorted(_HONORIFIC_SPELLINGS, key=len, reverse=True))
_HONORIFIC_NAME = re.compile(rf"\b(?P<hon>{_HON_ALT})(?P<dot>\.?){_GAP}(?P<name>{_NAME_RUN})")
# "Mr. and Mrs. Gardiner": two people
_HONORIFIC_PAIR = re.compile(
    rf"\b(?P<hon1>{_HON_ALT})\.?{_GAP}and{_GAP}(?P<hon2>{_HON_ALT})\.?{_GAP}(?P<name>{_NAME_RUN})"
)
_SPEECH_VERBS = (
    "said|says|cried|replied|asked|answered|exclaimed|continued|added|returned|observed|"
    "whispered|shouted|called|remarked|repeated|rejoined|inquired|enquired|muttered|"
    "murmured|resumed|interrupted|urged|insisted|retorted|declared|sighed|laughed|growled|"
    "screamed|sobbed|groaned|explained|suggested|protested|persisted|pursued|demanded|"
    "stammered|faltered|began|went on|broke in|put in|struck in"
)
_TITLED_RUN = rf"(?:(?:{_HON_ALT})\.?{_GAP})?{_NAME_RUN}"
_TAG_AFTER = re.compile(
    rf"\b(?:{_SPEECH_VERBS}){_GAP}(?P<the>the{_GAP})?(?P<name>{_TITLED_RUN})"
)
# (the lookbehind keeps "Darcy said" after "Mr." from also making a bare "Darcy")
_TAG_BEFORE = re.compile(
    rf"(?:(?P<the>\b[Tt]he{_GAP})|(?<![A-Za-z.]{{2}}\.)\b)"
    rf"(?P<name>{_TITLED_RUN}){_GAP}(?:{_SPEECH_VERBS})\b"
)
_HONORIFIC_BEFORE = re.compile(rf"\b(?P<hon>{_HON_ALT})\.?{_GAP}$")
_SPAN_WORD = re.compile(rf"[{_UP}{_LO}][{_UP}{_LO}'’\-]*\.?|\S")
_WORD = re.compile(rf"[{_UP}{_LO}]+(?:['’-][{_UP}{_LO}]+)*")
_WORD_START = re.compile(rf"(?<![\w'’-])[{_UP}{_LO}]+")
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]_]*(?=\s)|\n[ \t]*\n")
_PRONOUN = re.compile(r"\b(?:(he|him|his|himself)|(she|her|hers|herself))\b", re.IGNORECASE)
_SPACE = re.compile(r"\s+")
_QUOTE_MARK = re.compile(r'["“”]')
_GAP_ONLY = re.compile(_GAP)
_LOWER_WORD = re.compile(r"\b[a-z]+\b")
_PREVIOUS_WORD = re.compile(r"([A-Za-z]+)[ \t\r\n]+$")
_OPENERS = "\"'“‘([_—-"

_PRONOUN_WINDOW = 400  # characters after a mention searched for a pronoun
_MIN_VOTES = 3  # pronoun votes needed to call a gender
_MAJORITY = 0.6  # share of pronoun votes needed to call a gender
_STRONG_VOTES, _STRONG_MAJORITY = 5, 0.7  # the same, to refuse a merge
# share (and least number) of a name's occurrences after "the" that make it a description
_ARTICLE_SHARE, _ARTICLE_MIN = 0.6, 3
_COOCCURRENCE = 0.08  # share of shared clauses above which two names are two people


# --------------------------------------------------------------------------- data


@dataclass
class _Form:
    """One name form: an honorific (canonical, or "") plus name words."""

    hon: str
    words: tuple[str, ...]
    ner: int = 0  # PERSON mentions that gave this form
    tags: int = 0  # speech tags that name it ("said Cecil", "the Hatter said")
    locative: int = 0  # occurrences after "at", "in", "to", ... (places)
    surfaces: Counter = field(default_factory=Counter)
    count: int = 0  # occurrences in the whole text (assigned by the scan)
    segments: set = field(default_factory=set)  # clauses it occurs in (see _TextIndex)
    male: int = 0
    female: int = 0

    @property
    def given(self) -> str | None:
        return self.words[0] if len(self.words) > 1 else None

    @property
    def surname(self) -> str:
        words = self.words
        i = len(words) - 1
        while i > 0 and words[i - 1] in _PARTICLES:
            i -= 1
        return " ".join(words[i:]) if len(words) > 1 else words[0]


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
            g = _HONORIFICS[f.hon][0] if f.hon else ""
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

    def segments(self) -> set[int]:
        out: set[int] = set()
        for f in self.forms:
            out |= f.segments
        return out


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


# --------------------------------------------------------------------------- API


def discover_characters(
    text: str,
    persons: list[EntityMention],
    quotations: list[Quotation] | None = None,
    *,
    progress: Progress | None = None,
) -> list[Character]:
    """Characters of a book, most mentioned first.

    ``persons`` are the PERSON mentions of the NLP pass (offsets into ``text``);
    ``quotations`` with a ``speaker`` (a name or alias) give ``quote_count``. A character
    is kept when it is mentioned at least twice, has an honorific form ("Mr. Stone") or
    speaks a quotation.
    """
    report = progress or (lambda fraction, message: None)
    report(0.0, "finding names")
    scan = _TextIndex(text)
    forms = _collect_forms(text, persons, scan)
    report(0.3, "filtering names")
    forms = _filter_forms(forms, scan)
    report(0.4, "counting mentions")
    occurrences = _scan_mentions(text, forms, scan)
    for form in forms.values():
        if form.hon in ("", "the") and form.locative >= max(3, 0.4 * form.count):
            form.count = 0  # "at Thornton Lacey", "to San Sebastian", "at the Angel": a place
    _vote_pronouns(text, occurrences, scan)
    report(0.7, "grouping aliases")
    entities, ambiguous = _group(forms)
    report(0.9, "building characters")
    characters = _build(text, entities, ambiguous, quotations or [])
    report(1.0, f"{len(characters)} characters")
    return characters


# --------------------------------------------------------------------------- text index


class _TextIndex:
    """Sentence starts and word counts of the text, computed once."""

    def __init__(self, text: str):
        self.text = text
        starts = [0]
        for m in _SENTENCE_END.finditer(text):
            if m.group().startswith("."):
                before = re.search(r"([A-Za-z]+)\.$", text[max(0, m.start() - 12):m.start() + 1])
                if before and (before.group(1) in _ABBREVIATIONS or len(before.group(1)) == 1
                               and before.group(1).isupper()):
                    continue
            starts.append(m.end())
        self.sentence_starts = starts
        # clauses for co-occurrence: sentences further cut at double quote marks, so a
        # vocative inside speech and the narration around it do not count as together
        self.segment_starts = sorted(set(starts) | {m.start() for m in _QUOTE_MARK.finditer(text)})
        self.words: Counter = Counter()
        self.capitalised_mid: Counter = Counter()
        self.locative: Counter = Counter()
        self.after_the: Counter = Counter()
        self.after_article: Counter = Counter()  # "a Roman", "an Englishman"
        previous = ""
        for m in _WORD.finditer(text):
            word = m.group()
            self.words[word] += 1
            if word[0].isupper() and not self.sentence_initial(m.start()):
                self.capitalised_mid[word] += 1
                if previous in _LOCATIVE_WORDS:
                    self.locative[word] += 1
                if previous in ("the", "The"):
                    self.after_the[word] += 1
                elif previous in ("a", "an"):
                    self.after_article[word] += 1
            previous = word
        self.place_heads = {
            m.group(1) for m in re.finditer(
                rf"\b({_NAME_WORD}) (?:{'|'.join(sorted(_PLACE_SUFFIXES))})\b", text)
        }

    def sentence_of(self, position: int) -> int:
        return bisect.bisect_right(self.sentence_starts, position) - 1

    def segment_of(self, position: int) -> int:
        return bisect.bisect_right(self.segment_starts, position) - 1

    def sentence_initial(self, position: int) -> bool:
        return _sentence_initial(self.text, position)

    def lower_count(self, word: str) -> int:
        return self.words[word.lower()]


def _sentence_initial(text: str, position: int) -> bool:
    """True when the word at ``position`` starts a sentence, a paragraph or a quote."""
    i = position - 1
    opened = False
    while i >= 0 and (text[i].isspace() or text[i] in _OPENERS):
        if text[i] in "\"“‘'" and i == position - 1:
            opened = True
        if text[i] == "\n" and i > 0 and text[i - 1] == "\n":
            return True
        i -= 1
    if i < 0 or opened:
        return True
    if text[i] in "!?:;":
        return True
    if text[i] == ".":
        j = i
        while j > 0 and text[j - 1].isalpha():
            j -= 1
        word = text[j:i]
        return not (word in _ABBREVIATIONS or (len(word) == 1 and word.isupper()))
    return False


# --------------------------------------------------------------------------- forms


def _canonical_hon(spelling: str) -> str:
    return _HONORIFIC_SPELLINGS[spelling]


def _clean_words(words: list[str]) -> list[str]:
    """Drop leading non-name words and trailing possessives from a run of name words."""
    while words and (words[0] in _LEADING_NON_NAME or words[0].rstrip(".") in _LEADING_NON_NAME
                     and words[0] not in _HONORIFIC_SPELLINGS):
        words = words[1:]
    while words and words[-1] in _PARTICLES:
        words = words[:-1]
    return words


def _name_runs(text: str, start: int, end: int) -> list[tuple[int, int, list[str]]]:
    """Runs of capitalised words (with inner particles and initials) inside a span."""
    runs: list[tuple[int, int, list[str]]] = []
    current: list[tuple[int, int, str]] = []

    def flush() -> None:
        words = [w for _, _, w in current]
        while words and words[-1] in _PARTICLES:
            words.pop()
            current.pop()
        if words:
            runs.append((current[0][0], current[len(words) - 1][1], words))
        current.clear()

    for m in _SPAN_WORD.finditer(text, start, end):
        word = m.group()
        s, e = m.start(), m.end()
        if word.endswith(("'s", "’s")):
            word, e = word[:-2], e - 2
        elif word.endswith(("'", "’")):
            word, e = word[:-1], e - 1
        gap = text[current[-1][1]:s] if current else ""
        if current and (gap.count("\n") > 1 or gap.strip()):
            flush()
        if re.fullmatch(_NAME_WORD, word):
            current.append((s, e, word))
            if word != m.group():  # possessive ends the name
                flush()
        elif word.endswith(".") and word[:-1] in _HONORIFIC_SPELLINGS:
            current.append((s, e, word[:-1]))
        elif re.fullmatch(r"[A-Z]\.", word) and current:
            current.append((s, e, word))
        elif word in _PARTICLES and current:
            current.append((s, e, word))
        elif word.endswith(".") and re.fullmatch(_NAME_WORD, word[:-1]):
            current.append((s, e - 1, word[:-1]))  # a name that ends its sentence
            flush()
        else:
            flush()
    flush()
    return runs


def _make_form(words: list[str]) -> tuple[str, tuple[str, ...]] | None:
    hon = ""
    if len(words) > 1 and words[-1] in _TRAILING_TITLES and words[0] not in _HONORIFIC_SPELLINGS:
        words = [_TRAILING_TITLES[words[-1]]] + list(words[:-1])  # "Hamidullah Begum"
    if len(words) > 1 and words[0] in _HONORIFIC_SPELLINGS:
        hon, words = _canonical_hon(words[0]), words[1:]
    words = _clean_words(list(words))
    if not words:
        return None
    if len(words) > 1 and words[0] in _HONORIFIC_SPELLINGS and not hon:
        hon, words = _canonical_hon(words[0]), words[1:]
    if any(w in _HONORIFIC_SPELLINGS for w in words):
        return None  # "Mr. Mrs." or a title inside a name run: not a clean form
    if sum(1 for w in words if w not in _PARTICLES and not w.endswith(".")) > 3:
        return None  # "Miss Lucy Honeychurch Drive Out in Carriages": a title, not a name
    # "De Bourgh" and "de Bourgh" are one name
    words = [w.lower() if i and w in _PARTICLES and w != "St." else w for i, w in enumerate(words)]
    return hon, tuple(words)


def _surface(text: str, start: int, end: int) -> str:
    return _SPACE.sub(" ", text[start:end])


def _collect_forms(text: str, persons: list[EntityMention], scan: _TextIndex) -> dict:
    forms: dict[tuple[str, tuple[str, ...]], _Form] = {}

    def add(key: tuple[str, tuple[str, ...]], surface: str, ner: bool, tag: bool = False) -> None:
        form = forms.get(key)
        if form is None:
            form = forms[key] = _Form(hon=key[0], words=key[1])
        form.surfaces[surface] += 1
        form.ner += ner
        form.tags += tag

    # speech tags name speakers the NER misses ("said Cecil") and those known by a
    # description ("said the Hatter", "the Colonel replied")
    for regex in (_TAG_AFTER, _TAG_BEFORE):
        for m in regex.finditer(text):
            words = _SPACE.split(m.group("name"))
            form = _make_form(words)
            if form is None:
                if not (m.group("the") and len(words) == 1 and words[0] in _HONORIFIC_SPELLINGS):
                    continue
                form = ("", (words[0],))
            if m.group("the"):
                if form[0]:
                    continue
                form = ("the", form[1])
                add(form, "the " + " ".join(form[1]), False, True)
            elif not form[0]:
                add(form, " ".join(form[1]), False, True)
            else:
                add(form, _surface(text, m.start("name"), m.end("name")), False, True)

    covered: list[tuple[int, int]] = []
    for m in _HONORIFIC_PAIR.finditer(text):
        name = _clean_words(m.group("name").split())
        if name:
            for hon in ("hon1", "hon2"):
                canonical = _canonical_hon(m.group(hon))
                spelled = m.group(hon) + ("." if text[m.end(hon):m.end(hon) + 1] == "." else "")
                add((canonical, tuple(name)), f"{spelled} {' '.join(name)}", False)
    for m in _HONORIFIC_NAME.finditer(text):
        words = _SPACE.split(m.group("name"))
        form = _make_form([m.group("hon")] + words)
        if form is None:
            continue
        add(form, _surface(text, m.start(), m.end()), False)
        covered.append((m.start(), m.end()))
    covered.sort()
    starts = [c[0] for c in covered]

    for mention in persons:
        if mention.label != "PERSON":
            continue
        for start, end, words in _name_runs(text, mention.start, mention.end):
            before = _HONORIFIC_BEFORE.search(text, max(0, start - 16), start)
            if before:
                start = before.start()
                words = [before.group("hon")] + words
            i = bisect.bisect_right(starts, start) - 1
            inside = i >= 0 and covered[i][0] <= start and end <= covered[i][1]
            form = _make_form(words)
            if form is None:
                continue
            if inside and form[0]:
                # the honorific regex already has it; just record the NER vote
                if form in forms:
                    forms[form].ner += 1
                continue
            add(form, _surface(text, start, end) if form[0] else " ".join(form[1]), True)
    return forms


def _article_forms(forms: dict, scan: _TextIndex, name_words: set) -> None:
    """Names the text mostly writes after "the" are known by a description: "the Invisible
    Man", "the March Hare" (the NER leaves the article out); each gets a "the" form too,
    unless it is a family ("the Bennets"). Counted on the name's first word, capitalised
    inside a sentence."""
    for key in [k for k, f in forms.items() if not k[0] and f.ner and not _plural(k[1][-1], name_words)]:
        first = key[1][0]
        the = scan.after_the[first]
        if the < max(_ARTICLE_MIN, _ARTICLE_SHARE * scan.capitalised_mid[first]):
            continue
        described = forms.setdefault(("the", key[1]), _Form(hon="the", words=key[1]))
        described.ner += forms[key].ner
        described.surfaces["the " + " ".join(key[1])] += the


def _filter_forms(forms: dict, scan: _TextIndex) -> dict:
    """Keep the forms that look like people's names, and add the names they imply.

    Implied: the first and last word of a full name ("Montoya" of "Juanito Montoya") and
    a known first name followed by a known surname at least twice ("Edna Pontellier",
    which the NER never tagged).
    """
    name_words = {w for _, words in forms for w in words}
    kept = {key: form for key, form in forms.items() if _keep(key, form, scan, name_words)}
    _article_forms(kept, scan, name_words)
    derived: dict = {}
    for hon, words in list(kept):
        if len(words) > 1 and hon != "the":
            for word in (words[0], words[-1]):
                key = ("", (word,))
                if (key not in kept and word not in _NON_NAMES and word not in _PARTICLES
                        and not _plural(word, name_words) and _looks_like_name(word, scan)):
                    derived.setdefault(key, _Form("", (word,)))
    firsts = {k[1][0] for k in list(kept) + list(derived) if not k[0] and len(k[1]) == 1}
    lasts = firsts | {k[1][0] for k in kept if k[0] and k[0] != "the" and len(k[1]) == 1}
    pairs: Counter = Counter()
    text = scan.text
    previous = None
    for m in _WORD_START.finditer(text):
        word = m.group()
        if (previous is not None and word in lasts and previous.group() in firsts
                and word != previous.group()
                and _GAP_ONLY.fullmatch(text, previous.end(), m.start())):
            pairs[(previous.group(), word)] += 1
        previous = m
    for (first, last), n in sorted(pairs.items()):
        key = ("", (first, last))
        if n >= 2 and key not in kept:
            derived.setdefault(key, _Form("", (first, last))).surfaces[f"{first} {last}"] += n
    kept.update(derived)
    return kept


def _keep(key: tuple[str, tuple[str, ...]], form: _Form, scan: _TextIndex, name_words: set) -> bool:
    hon, words = key
    if hon == "the":
        plural = words[-1].endswith("s") and not words[-1].endswith("ss")  # "the Hindus"
        return form.tags >= 2 and not plural and (words[0] in _HONORIFIC_SPELLINGS or all(
            scan.lower_count(w) <= scan.capitalised_mid[w] for w in words))
    if not hon and form.ner == 0 and form.tags < 2:
        return False
    if any(w in _NON_NAMES for w in words if len(words) == 1 or not hon):
        if len(words) == 1 or all(w in _NON_NAMES for w in words):
            return False
    if words[-1] in _PLACE_SUFFIXES and (not hon or len(words) > 1):
        return False  # "Netherfield Park", "Prince Edward Island"
    if len(words) == 1 and not hon and not _looks_like_name(words[0], scan, form.ner):
        return False
    if len(words) == 1 and _plural(words[0], name_words):
        word = words[0]
        if hon in ("Miss", "Mr") or scan.after_the[word] >= 0.5 * scan.capitalised_mid[word]:
            return False  # "the Bennets", "the Miss Bennets", "the Collinses": a family
    if not hon and len(words) > 1:
        if all(not _looks_like_name(w, scan) for w in words if w not in _PARTICLES):
            return False
        if any(w.lower() in ("and", "or") for w in words):
            return False
    if hon and len(words) == 1 and scan.lower_count(words[0]) > 3 * max(
            scan.capitalised_mid[words[0]], 1) and form.ner == 0:
        return False  # "Miss Lucky", "Lady Luck" once: a common word after a title
    return True


def _plural(word: str, name_words: set) -> bool:
    if not word.endswith("s"):
        return False
    return word[:-1] in name_words or word.endswith("es") and word[:-2] in name_words


def _looks_like_name(word: str, scan: _TextIndex, ner: int = 0) -> bool:
    """A capitalised word used as a name here, not a common word or a place."""
    if "." in word:
        return False
    mid = scan.capitalised_mid[word]
    if mid == 0 and (ner < 2 or scan.lower_count(word)):
        return False  # only ever at the start of a sentence ("Hitherto", "Pray")
    if scan.lower_count(word) > mid:
        return False  # mostly a common word ("Hope", "Will" stay when capitalised)
    if word in scan.place_heads:
        return False
    if scan.locative[word] >= max(3, 0.4 * mid):
        return False  # "at Pemberley", "to Brighton", "in Hertfordshire"
    if scan.after_article[word] >= max(2, 0.3 * mid):
        return False  # "a Roman", "a Sikh": a common noun
    return True


# --------------------------------------------------------------------------- scanning


def _name_pattern(hon: str, words: tuple[str, ...]) -> tuple[str, list[str]]:
    """A regex for an honorific + name words, and the words it can start with.

    Any spelling of the honorific, its period optional; any spacing between words;
    particles in any case ("De Bourgh" = "de Bourgh").
    """
    name = r"\s+".join(f"(?i:{re.escape(w)})" if w in _PARTICLES else re.escape(w) for w in words)
    if hon == "the":
        return rf"[Tt]he\s+{name}", ["the", "The"]
    if not hon:
        return name, [words[0]]
    spellings = sorted((s for s, c in _HONORIFIC_SPELLINGS.items() if c == hon),
                       key=len, reverse=True)
    return rf"(?:{'|'.join(spellings)})\.?\s+{name}", spellings


def _find_names(text: str, entries: list,
                common: Callable[[str], bool]) -> list[tuple[int, int, object]]:
    """Leftmost-longest occurrences of names; ``entries`` are ``(hon, words, payload)``
    in order of preference at one position (longest first).

    Each word of the text is looked up by its spelling; only the names that can start
    with it are tried there (one big alternation would try them all everywhere). A bare
    name right after an honorific it does not include ("Mrs." + "Weston") is not counted,
    nor a one-word name that is also a common word at a sentence start ("Will you ...").
    """
    by_first: dict[str, list] = defaultdict(list)
    for hon, words, payload in entries:
        pattern, firsts = _name_pattern(hon, words)
        # name words may not continue after the match ("Darcy" must not match "Darcys")
        compiled = re.compile(rf"{pattern}(?![\w-])")
        for first in firsts:
            by_first[first].append((compiled, hon, words, payload))
    found: list[tuple[int, int, object]] = []
    done = 0
    for word in _WORD_START.finditer(text):
        start = word.start()
        if start < done:
            continue
        for compiled, hon, words, payload in by_first.get(word.group(), ()):
            m = compiled.match(text, start)
            if m is None:
                continue
            if not hon:
                before = _HONORIFIC_BEFORE.search(text, max(0, start - 16), start)
                if before and before.group("hon") not in _FIRST_NAME_TITLES:
                    break
                if len(words) == 1 and common(words[0]) and _sentence_initial(text, start):
                    break
            found.append((start, m.end(), payload))
            done = m.end()
            break
    return found


def _scan_mentions(text: str, forms: dict, scan: _TextIndex) -> list[tuple[int, int, _Form]]:
    """Every occurrence of every form; sets counts, clauses and locative uses."""
    ordered = sorted(forms.values(), key=lambda f: (-len(f.words), -bool(f.hon), f.words, f.hon))
    occurrences = _find_names(text, [(f.hon, f.words, f) for f in ordered],
                              lambda w: scan.lower_count(w) > 0)
    for start, _, form in occurrences:
        form.count += 1
        form.segments.add(scan.segment_of(start))
        previous = _PREVIOUS_WORD.search(text, max(0, start - 24), start)
        if previous and previous.group(1) in _LOCATIVE_WORDS:
            form.locative += 1
    return occurrences  # type: ignore[return-value]


def count_mentions(text: str, characters: list[Character]) -> dict[str, int]:
    """Mentions of each character, by main name, under the rules of discovery.

    Whole-word, case-sensitive occurrences of the character's aliases over the whole
    text, leftmost-longest ("Mr. Darcy" is not also a "Darcy"), any spelling of an
    honorific with its period optional. An ambiguous alias, or one two characters share,
    takes its occurrences but counts for nobody. Use it to recount after an edit.
    """
    owner: dict[tuple[str, tuple[str, ...]], str | None] = {}
    for character in characters:
        for alias, ambiguous in [(a, False) for a in [character.name] + list(character.aliases)] + [
                (a, True) for a in character.ambiguous_aliases]:
            key = _alias_key(alias)
            if key is None:
                continue
            if ambiguous or (key in owner and owner[key] != character.name):
                owner[key] = None
            else:
                owner.setdefault(key, character.name)
    entries = [(hon, words, name) for (hon, words), name in sorted(
        owner.items(), key=lambda kv: (-len(kv[0][1]), -bool(kv[0][0]), kv[0][1], kv[0][0]))]
    lower = {m.group() for m in _LOWER_WORD.finditer(text)}
    counts: Counter = Counter({c.name: 0 for c in characters})
    for _, _, name in _find_names(text, entries, lambda w: w.lower() in lower):
        if name is not None:
            counts[name] += 1
    return dict(counts)


def _alias_key(alias: str) -> tuple[str, tuple[str, ...]] | None:
    """(canonical honorific or "the" or "", name words) of an alias as written."""
    words = alias.replace("\u00a0", " ").split()
    if not words:
        return None
    hon = ""
    if len(words) > 1 and words[0].lower() == "the":
        hon, words = "the", words[1:]
    elif len(words) > 1 and words[0].rstrip(".") in _HONORIFIC_SPELLINGS:
        hon, words = _canonical_hon(words[0].rstrip(".")), words[1:]
    words = [w.lower() if i and w in _PARTICLES and w != "St." else w for i, w in enumerate(words)]
    return hon, tuple(words)


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
    return frozenset({groupa, groupb}) not in _INCOMPATIBLE_GROUPS


def _form_gender(form: _Form) -> str:
    return (_HONORIFICS[form.hon][0] if form.hon else "") or _vote(form.male, form.female, True)


def _compatible(form: _Form, entity: _Entity) -> bool:
    if form.hon and not all(_hon_compatible(form.hon, h) for h in entity.honorifics()):
        return False
    a, b = _form_gender(form), entity.gender()
    return not (a and b and a != b)


def _cooccur(segments: set, entity: _Entity, first_names: dict | None = None) -> bool:
    """True when the two often share a clause: they name different people.

    ``first_names`` (word -> clauses) adds the clauses of the entity's bare first names.
    """
    other = entity.segments()
    for name in entity.given_names() if first_names else ():
        other = other | first_names.get(name, set())
    shared = len(segments & other)
    return shared >= 3 and shared >= _COOCCURRENCE * min(len(segments), len(other))


def _group(forms: dict) -> tuple[list[_Entity], list[tuple[_Form, list[_Entity]]]]:
    entities: list[_Entity] = []
    ambiguous: list[tuple[_Form, list[_Entity]]] = []
    values = [f for f in forms.values() if f.count > 0]
    order = lambda f: (-f.count, f.hon, f.words)  # noqa: E731 — deterministic order
    full = sorted((f for f in values if len(f.words) > 1), key=order)
    titled_single = sorted((f for f in values if len(f.words) == 1 and f.hon), key=order)
    bare = sorted((f for f in values if len(f.words) == 1 and not f.hon), key=order)

    # 1. full names, one entity per (first name, surname) and gender of honorific
    by_name: dict[tuple[str, str], list[_Form]] = defaultdict(list)
    for f in full:
        by_name[(f.words[0], f.surname)].append(f)
    for name_forms in by_name.values():
        male = [f for f in name_forms if f.hon and _HONORIFICS[f.hon][0] == "m"]
        female = [f for f in name_forms if f.hon and _HONORIFICS[f.hon][0] == "f"]
        rest = [f for f in name_forms if f not in male and f not in female]
        if male and female:
            # "Mr. John Knightley" and "Mrs. John Knightley", his wife: plain "John
            # Knightley" is the man whose first name it is, unless its pronouns say "she"
            he, she = _Entity(male), _Entity(female)
            entities += [he, she]
            for f in rest:
                (she if _form_gender(f) == "f" else he).forms.append(f)
        else:
            entities.append(_Entity(name_forms))

    # 2. bare first names of full names ("Jane" -> Jane Bennet), so that the gender and
    #    the clauses of the first name are known before honorific forms are placed; a word
    #    that is also a surname ("Fitzwilliam": Colonel Fitzwilliam) waits for step 4
    known_given = {f.words[0] for f in full}
    surname_words = {f.surname for f in full if f.count > 1 or f.hon}  # not a one-off misreading
    # "Mr. Edward" is Mr. + first name when Edward is no surname and is used more as a
    # first name ("Edward Ferrars", "Edward") than after a title; "Colonel Fitzwilliam"
    # (30 mentions) keeps his surname beside one "Fitzwilliam Darcy"
    as_first: Counter = Counter()
    for f in full:
        as_first[f.words[0]] += f.count
    for f in bare:
        as_first[f.words[0]] += f.count
    after_title: Counter = Counter()
    for f in titled_single:
        after_title[f.words[0]] += f.count
    given_after_title = {w for w in after_title
                         if w in known_given - surname_words and after_title[w] <= as_first[w]}
    surname_words |= {f.words[0] for f in titled_single
                      if _HONORIFICS[f.hon][2] == "surname" and f.words[0] not in given_after_title}
    placed: set[int] = set()
    for f in bare:
        word = f.words[0]
        if word in surname_words:
            continue
        candidates = [e for e in entities
                      if word in {x.words[0] for x in e.forms if len(x.words) > 1}
                      and _compatible(f, e) and not _cooccur(f.segments, e)]
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
    for f in titled_single:
        for c in clusters:
            if (f.hon != "the" and c[0].hon != "the" and c[0].words == f.words
                    and _compatible(f, _Entity(c)) and not _cooccur(f.segments, _Entity(c))):
                c.append(f)
                break
        else:
            clusters.append([f])

    def gender_of(e: _Entity) -> str:
        if e.gender():
            return e.gender()
        votes = [first_votes.get(g, (0, 0)) for g in e.given_names()]
        return _vote(sum(v[0] for v in votes), sum(v[1] for v in votes), True)

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
                    g = gender_of(e)
                    if not g and _contested(title_genders[word]):
                        fits = False  # "Thomas Palmer" fits Mr. and Mrs. Palmer: his or hers?
                    elif g and any(_HONORIFICS[f.hon][0] not in ("", g) for f in c):
                        fits = False  # "Mrs. Miller" is not Randolph Miller
                    elif g != "f" and any(_HONORIFICS[f.hon][1] in ("f-married", "f-title")
                                          for f in c):
                        # a wife bears her husband's surname: "Madame Lebrun" joins a
                        # "Robert Lebrun" only if the text shows that person is a woman
                        fits = False
            if (fits and all(_compatible(f, e) for f in c)
                    and not _cooccur(segments, e, first_names)):
                candidates.append(e)
        if lead.hon != "the":
            candidates = _drop_noise(candidates)
            if len(candidates) > 1:
                same = [e for e in candidates if e.honorifics() & {f.hon for f in c}]
                if len(same) == 1:
                    candidates = same  # "Sir William" -> Sir William Lucas
            if len(candidates) > 1 and _HONORIFICS[lead.hon][1] != "f-unmarried":
                # "Mrs. Dashwood" among Elinor, Marianne and Margaret Dashwood is their
                # mother, "Lady Lucas" is not Charlotte or Maria Lucas: a person of her own
                candidates = []
            elif len(candidates) == 1 and any(
                    _distinguished(f, candidates[0], title_counts) for f in c):
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
        word = f.words[0]
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

    # 5. diminutives ("Lizzy" -> the one untitled Elizabeth)
    merged: dict[int, _Entity] = {}
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
                   and t.given_names() & set(full_names) and not t.titled()
                   and (not surnames or not t.surnames() or surnames & t.surnames())
                   and all(_compatible(x, t) for x in e.forms)
                   and not _cooccur(e.segments(), t)]
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


def _contested(genders: Counter) -> bool:
    """Both a man and a woman bear the title + surname, each often enough to matter."""
    return len(genders) > 1 and min(genders.values()) >= 0.25 * max(genders.values())


def _distinguished(form: _Form, entity: _Entity, title_counts: dict) -> bool:
    """The text names the entity with this honorific and its first name ("Mr. John
    Knightley", "Miss Marianne"): the honorific with the surname alone is someone else."""
    if form.words[0] in entity.given_names():
        return False  # "Miss Daisy" is Daisy Miller
    if any(title_counts.get((form.hon, g), 0) >= 3 for g in entity.given_names()):
        return True
    return any(x.hon == form.hon and x.count >= 3 and len(x.words) > 1
               and x.surname == form.words[0] for x in entity.forms)


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


# --------------------------------------------------------------------------- output


def _display(form: _Form) -> str:
    if form.surfaces:
        surface, _ = max(form.surfaces.items(), key=lambda kv: (kv[1], kv[0]))
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
    """The most informative of the frequent forms."""
    top = max(f.count for f in entity.forms)
    frequent = [f for f in entity.forms if f.count >= 0.2 * top]
    return max(frequent, key=lambda f: (len(f.words) + 0.5 * bool(f.hon), f.count, f.words))


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
        gender = e.gender(strong=False)
        characters.append(Character(
            name=aliases[0],
            aliases=aliases,
            gender=_GENDERS[gender],
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


_GENDERS: dict[str, Gender] = {"m": "male", "f": "female", "": "unknown"}
