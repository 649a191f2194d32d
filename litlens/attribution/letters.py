"""Who wrote a letter the novel quotes in full: the signature under it
(:func:`letter_signer`), or the narration that sets it out (:func:`letter_writer`). Both
take a ``match`` function (a name -> the characters it may be) and return the characters
named, () when none is."""

from __future__ import annotations

import re

from litlens.quotes.lexicon import is_speech_verb

_WORD = re.compile(r"[^\W\d_][\w'’-]*")  # letters of any alphabet, as the attributor's context reads words

# A letter quoted in full ends with a closing and its writer's name ("Yours sincerely, /
# WILLIAM COLLINS."). Closings only letters use may sign on the same line; "yours" or "your
# affectionate sister" may end speech to someone ("I am yours, Harriet."), so then the name
# must stand on a line of its own or in capitals.
_LETTER_ONLY = (r"yours(?:\s+(?:very\s+)?(?:sincerely|truly|faithfully|affectionately|ever|respectfully|obediently|"
                r"gratefully|&c|etc)\.?)|(?:ever|affectionately|sincerely|faithfully|truly)\s+yours|"
                r"your\s+(?:[a-z-]+\s+){0,4}?(?:well-wisher|servant)(?:\s+and\s+[a-z]+)?")
_CLOSING = (rf"(?P<closing>(?:{_LETTER_ONLY})|yours|your\s+(?:most\s+|very\s+|ever\s+)?(?:affectionate|loving|devoted|"
            r"faithful|obedient|sincere|grateful|attached)\s+[a-z]+)")
_SIGNATURE = re.compile(
    rf"{_CLOSING}[ \t]*[,.;:—–-]*(?P<gap>[ \t]*(?:\r?\n[ \t]*)*)"
    r"(?P<name>(?:[A-Z][A-Za-z'’-]*\.?[ \t]+){0,3}[A-Z][A-Za-z'’-]*)[ \t]*[.!]?[ \t]*$",
    re.IGNORECASE,
)
_LETTER_ONLY_RE = re.compile(rf"^(?:{_LETTER_ONLY})$", re.IGNORECASE)


def letter_signer(quoted: str, match) -> tuple[int, ...]:
    """The characters (``match``: a name -> candidates function) a quotation's closing
    signature names, () when it has none. ``quoted`` is the quotation's text."""
    tail = quoted[-400:].rstrip(" \t\r\n\"'“”‘’")
    m = _SIGNATURE.search(tail)
    if not m:
        return ()
    name = m.group("name")
    words = name.replace(".", " ").split()
    if not words or not all(w[:1].isupper() for w in words):
        return ()  # IGNORECASE lets a lower-case word through
    gap = m.group("gap")
    # a line of its own: after a blank line, or indented (a hard-wrapped text breaks lines anywhere)
    own_line = gap.count("\n") > 1 or ("\n" in gap and gap.rsplit("\n", 1)[1].startswith(("  ", "\t")))
    capitals = name.isupper() and len(name) > 2
    if not (own_line or capitals or _LETTER_ONLY_RE.match(" ".join(m.group("closing").split()))):
        return ()
    return match(name.title() if capitals else name)


# A letter the narration introduces: its writer named just before it ("a letter from Jane,
# which ran thus:", "Mr. Collins's letter", "Charlotte had written:") and the narration
# setting it out (ending with a colon or "as follows") or the quotation opening with a
# salutation ("My dear Lizzy,").
_WRITING_NOUN = r"(?:letter|note|lines|epistle|billet|telegram|postscript)s?"
_WRITER_NAME = r"(?P<name>(?:[A-Z][A-Za-z'’-]*\.?[ \t]+){0,3}[A-Z][A-Za-z'’-]*)"
_WRITERS = (
    re.compile(rf"\b{_WRITING_NOUN}\s+(?:[a-z]+\s+){{0,2}}?from\s+{_WRITER_NAME}"),
    re.compile(rf"{_WRITER_NAME}['’]s?\s+(?:[a-z-]+\s+){{0,2}}?{_WRITING_NOUN}\b"),
    re.compile(rf"{_WRITER_NAME}\s+(?:had\s+|has\s+)?(?:wrote|written|writes)\b"),
    re.compile(rf"\b(?:wrote|writes)\s+{_WRITER_NAME}"),
)
_READ_OR_WRITE = frozenset({"read", "reads", "write", "writes", "wrote", "written", "ran", "runs", "run"})
_SETS_OUT = re.compile(r"(?::|[—–]|--|\bas\s+follows[.:]?|\bthus[.:]?|\bin\s+these\s+words[.:]?)\s*$", re.IGNORECASE)
_SALUTATION = re.compile(r"\s*(?:(?:my\s+)?(?:dear|dearest)\b[^.!?\n]{0,30}|(?:dear\s+)?(?:sir|madam|madame))\s*[,!]",
                         re.IGNORECASE)


def letter_writer(narration: str, quoted: str, match) -> tuple[int, ...]:
    """The characters (``match``: a name -> candidates function) the narration right before
    a quotation names as the writer of a letter it sets out, () when it names none: "She
    opened Jane's letter, and read:", "a note from Mr. Collins, as follows:", or a
    quotation opening "My dear Lizzy," under "Charlotte had written". ``narration`` is the
    text between the previous quotation (or the paragraph before) and this one."""
    tail = narration[-300:].rstrip(" \t\r\n\"'“”‘’")
    if not tail or not (_SETS_OUT.search(tail) or _SALUTATION.match(quoted)):
        return ()
    named = [(m.start(), m.end(), found) for pattern in _WRITERS for m in pattern.finditer(tail)
             if (found := match(m.group("name")))]
    if not named:
        return ()
    _, end, writer = max(named, key=lambda x: x[0])  # the writer named last
    if any(is_speech_verb(w) and w.lower() not in _READ_OR_WRITE for w in _WORD.findall(tail[end:])):
        return ()  # "took out Mr. Collins's letter and said:" has someone speak
    return writer
