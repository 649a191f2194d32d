"""Finding every occurrence of name forms in a text (step 3 of :mod:`litlens.quotes.characters`).

:func:`count_mentions` recounts a character list after a user edits it, under the same rules.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Callable

from litlens.model import Character
from litlens.quotes.forms import _Form, _canonical_hon
from litlens.quotes.names import (
    _FIRST_NAME_TITLES, _HONORIFIC_BEFORE, _HONORIFIC_SPELLINGS, _LOCATIVE_WORDS, _LOWER_WORD,
    _PARTICLES, _PREVIOUS_WORD, _SPACE, _TextIndex, _WORD_START, _sentence_initial, particles_joined,
)

# --------------------------------------------------------------------------- scanning


def _name_pattern(hon: str, words: tuple[str, ...]) -> tuple[str, list[str]]:
    """A regex for an honorific + name words, and the words it can start with.

    Any spelling of the honorific, its period optional; any spacing between words;
    particles in any case ("De Bourgh" = "de Bourgh").
    """
    parts = [p for w in words for p in w.split()]  # "de Bourgh" is one word of two
    name = r"\s+".join(f"(?i:{re.escape(w)})" if w in _PARTICLES else re.escape(w) for w in parts)
    if hon == "the":
        return rf"[Tt]he\s+{name}", ["the", "The"]
    if not hon:
        # the text's words are looked up by their letters up to an apostrophe or a hyphen:
        # "O'Brien", "M'Choakumchild" and "Grant-Menzies" start at "O", "M" and "Grant"
        first = re.split(r"['’-]", parts[0])[0]
        return name, [first, first.capitalize()] if first in _PARTICLES else [first]
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
    # a bare surname with particles is spelled as the text writes it alone ("De Worms" at a
    # sentence's start, "de Worms" inside one), not as the form's words
    respelled = {id(f) for f in ordered if not f.hon and " " in f.words[0]}
    for form in ordered:
        if id(form) in respelled:
            form.surfaces = Counter()
    for start, end, form in occurrences:
        form.count += 1
        if id(form) in respelled:
            form.surfaces[_SPACE.sub(" ", text[start:end])] += 1
        segment = scan.segment_of(start)
        form.segments.add(segment)
        form.parts.setdefault(segment, set()).add(scan.part_of(segment, start))
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
    return hon, tuple(particles_joined(words))
