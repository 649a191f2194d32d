"""Name tables, patterns and the text index that character discovery reads.

Honorifics (with their gender, group and the name word they take), particles, words
that are never names, place suffixes, diminutives; the regexes built from them; and
:class:`_TextIndex`, the sentence starts and word statistics of one text computed once.
The rules that use them are described in :mod:`litlens.quotes.characters`.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from functools import lru_cache

from litlens.quotes.lexicon import CAPITALISED_PARTICLES, NAME_PARTICLES, elided_particle


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
# dialect spellings of titles in dialogue ("Yes, suh, Mistah Oakley"): the title, never the
# name an entry is shown by
DIALECT_TITLES = {"Mistah": "Mr", "Mistuh": "Mr", "Massa": "Master", "Marse": "Master"}
_HONORIFIC_SPELLINGS |= DIALECT_TITLES
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
_PARTICLES = NAME_PARTICLES | CAPITALISED_PARTICLES | {"St."}


# capitalised particles that open a name as a first name as often: "Della Street", "Di"
_GIVEN_PARTICLES = frozenset({"Della", "Di", "Del"})


def particles_joined(words: list[str]) -> list[str]:
    """Name words with each surname's particles made one word with it, in lower case: "Miss
    De Bourgh" and "Miss de Bourgh" are Miss + "de Bourgh", "De Griers" is "de Griers" (never
    a first name "De"), "Catherine de Bourgh" is "Catherine" + "de Bourgh"."""
    out: list[str] = []
    particles: list[str] = []
    for i, w in enumerate(words):
        if w in _PARTICLES and w != "St." and not (i == 0 and w in _GIVEN_PARTICLES):
            particles.append(w.lower())
        else:
            out.append(" ".join(particles + [w]))
            particles = []
    return out + particles


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
     "Nonsense", "Hm", "Hmm", "Ugh", "Whew", "Wow", "Lo", "Hark", "Zounds", "Gad", "Egad",
     # oaths and exclamations written as dialect ("Lor!", "Lawks!", "Lud!", "Gawd")
     "Lor", "Lawk", "Lawks", "Lud", "Lawd", "Gawd", "Gor", "Golly", "Gosh", "Crikey", "Blimey",
     "Begad", "Bedad"}
)
# ... except that these are given names too ("May Welland", "Grace Poole", "Friday"): one
# that the text makes the subject of speech verbs is a name (forms.py)
_GIVEN_TOO = frozenset({"April", "June", "August", "Grace", "Mercy", "Honor", "Honour", "Friday"})
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
    "Lou": ("Louisa", "Louise"), "Louie": ("Louisa", "Louise"), "Loo": ("Louisa", "Louise"),
    "Sissy": ("Cecilia", "Cecily"), "Cissy": ("Cecilia", "Cecily"), "Hal": ("Henry", "Harold"),
    "Becky": ("Rebecca",), "Sophy": ("Sophia",), "Hattie": ("Harriet", "Henrietta"),
    "Lottie": ("Charlotte",), "Letty": ("Letitia",), "Jamie": ("James",), "Jenny": ("Jane", "Jennifer"),
    "Tilly": ("Matilda",), "Milly": ("Millicent", "Mildred"), "Theo": ("Theodore",),
}
_TRAILING_TITLES = {"Begum": "Mrs", "Esq": "Mr", "Esquire": "Mr"}
# titles followed by a first name: "Uncle Arthur" still mentions "Arthur"
_FIRST_NAME_TITLES = frozenset(
    {"Master", "Father", "Sister", "Uncle", "Aunt", "Cousin", "King", "Queen"})
_TITLED_GROUPS = frozenset({"m-title", "f-title"})

# --------------------------------------------------------------------------- regexes

_UP, _LO = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"  # Latin-1 letters too: "Alcée", "Léonce"
_NAME_WORD = (
    rf"(?:(?:d['’](?=[{_UP}][{_LO}]))?"  # an elided "de": "d'Urberville", "d’Artagnan"
    rf"(?:[{_UP}](?:[{_LO}]+|[{_LO}]*[{_UP}][{_LO}]+)|[{_UP}](?=['’][{_UP}]))"  # "Darcy", "McBryde"; "O" of "O'Brien"
    rf"(?:['’][{_UP}][{_LO}]+)?(?:-[{_UP}{_LO}][{_LO}]+)*)"  # "O'Brien", "M'Choakumchild", "Winnie-the-Pooh"
)
_GAP = r"(?:[ \t]+|[ \t]*\r?\n[ \t]*)"
_PARTICLE = "(?:" + "|".join(sorted(NAME_PARTICLES | CAPITALISED_PARTICLES, key=lambda w: (-len(w), w))) + ")"
_NAME_RUN = (
    rf"{_NAME_WORD}(?:{_GAP}(?:[A-Z]\.{_GAP})?(?:{_PARTICLE}{_GAP})?{_NAME_WORD}){{0,2}}"
)
_HON_ALT = "|".join(sorted(_HONORIFIC_SPELLINGS, key=len, reverse=True))
# a title's surname may open with particles: "Miss de Bourgh", "Mr. van der Luyden"
_LEADING_PARTICLES = rf"(?:{_PARTICLE}{_GAP}){{0,2}}"
_HONORIFIC_NAME = re.compile(rf"\b(?P<hon>{_HON_ALT})(?P<dot>\.?){_GAP}(?P<name>{_LEADING_PARTICLES}{_NAME_RUN})")
# "Mr. and Mrs. Gardiner": two people
_HONORIFIC_PAIR = re.compile(
    rf"\b(?P<hon1>{_HON_ALT})\.?{_GAP}and{_GAP}(?P<hon2>{_HON_ALT})\.?{_GAP}(?P<name>{_NAME_RUN})"
)
_SPEECH_VERBS = (
    "said|says|cried|replied|asked|answered|exclaimed|continued|added|returned|observed|"
    "whispered|shouted|called|remarked|repeated|rejoined|inquired|enquired|muttered|"
    "murmured|resumed|interrupted|urged|insisted|retorted|declared|sighed|laughed|growled|"
    "screamed|sobbed|groaned|explained|suggested|protested|persisted|pursued|demanded|"
    "stammered|faltered|began|went on|broke in|put in|struck in|"
    # past tenses of verbs that take no person as object (a name after them is their subject;
    # not "admitted" or "announced": "the maid admitted Mr. Collins")
    "snapped|sneered|snorted|grunted|chuckled|giggled|gasped|stuttered|lisped|drawled|mumbled|"
    "hissed|barked|bellowed|roared|shrieked|wailed|moaned|yelled|hollered|piped|quavered|"
    "ventured|volunteered|vouchsafed|commented|mused|agreed|assented|conceded|confessed|"
    "concluded|echoed|objected|pleaded|responded|queried|interposed|interjected|"
    "proclaimed|quipped|quoth|chimed in"
)
# only an abbreviation takes a period: in "said the Doctor. He went" the period ends a sentence
_HON_ABBR_ALT = "|".join(sorted((h for h in _HONORIFIC_SPELLINGS if h in _ABBREVIATIONS), key=len, reverse=True))
_TITLED_RUN = rf"(?:(?:(?:{_HON_ABBR_ALT})\.?|(?:{_HON_ALT})){_GAP})?{_LEADING_PARTICLES}{_NAME_RUN}"
_TAG_AFTER = re.compile(
    rf"\b(?:{_SPEECH_VERBS}){_GAP}(?P<the>the{_GAP})?(?P<name>{_TITLED_RUN})"
)
# (the lookbehind keeps "Darcy said" after "Mr." from also making a bare "Darcy")
_TAG_BEFORE = re.compile(
    rf"(?:(?P<the>\b[Tt]he{_GAP})|(?<![A-Za-z.]{{2}}\.)\b)"
    rf"(?P<name>{_TITLED_RUN}){_GAP}(?:{_SPEECH_VERBS})\b"
)
# a name addressed at the edge of a quotation: '"Perdita, come here."', '"Yes, Mr. Vyse!"'
_VOCATIVE = re.compile(
    rf'(?:["“][ \t]*(?P<open>{_TITLED_RUN})(?=,)|,{_GAP}(?P<close>{_TITLED_RUN})[.!?]+["”])'
)
# addressed at the end of a quoted segment that goes on after a tag ('"Good morning, Mr. Darcy,"')
_VOCATIVE_MID = re.compile(rf',{_GAP}(?P<name>{_TITLED_RUN}),["”]')
# addressed inside a sentence after "you" ('"I sent for you, Annie, because ..."')
_VOCATIVE_YOU = re.compile(rf'\b[Yy]ou,{_GAP}(?P<name>{_TITLED_RUN}),')
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


# --------------------------------------------------------------------------- text index


# words that make the capitalised word after them a plural group ("several Basques")
_PLURAL_DETERMINERS = frozenset({
    "these", "those", "several", "many", "some", "all", "both", "few", "our", "other", "two", "three",
    "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "twenty", "hundred", "dozen",
})


@lru_cache(maxsize=1)
def name_lexicon():
    """gender-guesser's list of about 40,000 first names by country (Jörg Michael's
    ``nam_dict``), loaded once (0.2 s)."""
    import gender_guesser.detector

    return gender_guesser.detector.Detector(case_sensitive=True)


def known_first_name(word: str) -> bool:
    """The lexicon lists the word as a first name, of either sex or both ("Jo", "Gino")."""
    return name_lexicon().get_gender(word) != "unknown"


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
        self.after_plural: Counter = Counter()  # "several Basques", "these Hindus": a group
        previous = ""
        for m in _WORD.finditer(text):
            word = m.group()
            self.words[word] += 1
            if (word[0].isupper() or elided_particle(word)) and not self.sentence_initial(m.start()):
                self.capitalised_mid[word] += 1
                if previous in _LOCATIVE_WORDS:
                    self.locative[word] += 1
                if previous in ("the", "The"):
                    self.after_the[word] += 1
                elif previous in ("a", "an"):
                    self.after_article[word] += 1
                elif previous.lower() in _PLURAL_DETERMINERS:
                    self.after_plural[word] += 1
            previous = word
        self.place_heads = {
            m.group(1) for m in re.finditer(
                rf"\b({_NAME_WORD}) (?:{'|'.join(sorted(_PLACE_SUFFIXES))})\b", text)
        }
        # surnames of several unmarried sisters: "the Miss Steeles", "the Misses Dashwood",
        # "the two Miss Lucases" (beside a singular "Miss Steele"; "Miss Bates" is one woman)
        single = set(re.findall(r"\bMiss ([A-Z][a-z]+)\b", text))
        plural = set(re.findall(r"\bMiss ([A-Z][a-z]+s)\b", text))
        self.sisters = set(re.findall(r"\bMisses ([A-Z][a-z]+)\b", text)) | {
            base for w in plural for base in (w[:-1], w[:-2] if w.endswith("es") else "") if base in single}

    def sentence_of(self, position: int) -> int:
        return bisect.bisect_right(self.sentence_starts, position) - 1

    def segment_of(self, position: int) -> int:
        return bisect.bisect_right(self.segment_starts, position) - 1

    def part_of(self, segment: int, position: int) -> int:
        """Which part of its clause, cut at semicolons and colons, a position is in."""
        start = self.segment_starts[segment] if segment >= 0 else 0
        return sum(self.text.count(mark, start, position) for mark in ";:")

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
