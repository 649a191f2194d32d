"""Helpers shared by the character tests."""

import re

from litlens.model import EntityMention


def mentions(text: str, *names: str) -> list[EntityMention]:
    """Hand-made PERSON mentions: every whole-word occurrence of each name."""
    found = []
    for name in names:
        for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
            found.append(EntityMention(m.start(), m.end(), m.group()))
    return sorted(found, key=lambda e: e.start)
