"""Small hand-made books for the text tests, and the path to ../shared."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
PDNC = SHARED / "data" / "pdnc"
PRIDE = PDNC / "PrideAndPrejudice" / "novel_text.txt"


def require_pdnc() -> Path:
    if not PDNC.is_dir():
        pytest.skip(f"needs the PDNC corpus at {PDNC.resolve()} (../shared is absent in a plain clone)")
    return PDNC


HEADER = """\
The Project Gutenberg eBook of The Tiny Tale, by Ann Example

This eBook is for the use of anyone anywhere in the United States and
most other parts of the world at no cost and with almost no restrictions
whatsoever.

Title: The Tiny Tale

Author: Ann Example

Release Date: January 1, 2020 [eBook #99999]

Language: English

*** START OF THE PROJECT GUTENBERG EBOOK THE TINY TALE ***




Produced by A. Volunteer and the Online Distributed
Proofreading Team at https://www.pgdp.net

"""

FOOTER = """
*** END OF THE PROJECT GUTENBERG EBOOK THE TINY TALE ***

Updated editions will replace the previous one--the old editions will
be renamed.

START: FULL LICENSE

THE FULL PROJECT GUTENBERG LICENSE
PLEASE READ THIS BEFORE YOU DISTRIBUTE OR USE THIS WORK
"""


def gutenberg_body(paragraphs: int = 30) -> str:
    """A body with "THE END" in the middle (a play within the book) and at the end."""
    parts = ["CHAPTER I.", "The first line of the story, which must be kept."]
    for i in range(paragraphs):
        parts.append(f'"Line {i}," said Anne. "The tale goes on."')
        if i == paragraphs // 3:
            parts.append("THE END")  # the end of the play the characters perform
            parts.append("CHAPTER II.")
    parts.append("And so the last narrative line.")
    parts.append("THE END")
    parts.append("ADVERTISEMENTS: other books by the same publisher.")
    return "\n\n".join(parts) + "\n"


@pytest.fixture
def gutenberg_text() -> str:
    return HEADER + gutenberg_body() + FOOTER
