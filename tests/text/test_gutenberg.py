from __future__ import annotations

import pytest

from litlens.text.gutenberg import clean_gutenberg_text, has_gutenberg_markers, html_to_text
from tests.text.conftest import FOOTER, HEADER, gutenberg_body


def test_gutenberg_strips_header_footer_and_licence(gutenberg_text):
    clean = clean_gutenberg_text(gutenberg_text)
    assert clean.text.startswith("CHAPTER I.\n\nThe first line of the story")
    assert "Project Gutenberg" not in clean.text
    assert "LICENSE" not in clean.text
    assert "*** " not in clean.text
    assert any("header" in note for note in clean.notes)
    assert any("footer" in note for note in clean.notes)


def test_gutenberg_reads_title_and_author_from_header(gutenberg_text):
    clean = clean_gutenberg_text(gutenberg_text)
    assert (clean.title, clean.author) == ("The Tiny Tale", "Ann Example")


def test_gutenberg_removes_produced_by_credit_at_start_only(gutenberg_text):
    late_credit = "Produced by the rain, the river rose all night."
    text = gutenberg_text.replace("And so the last narrative line.", late_credit)
    clean = clean_gutenberg_text(text)
    assert "Proofreading Team" not in clean.text
    assert "A. Volunteer" not in clean.text
    assert late_credit in clean.text  # deep in the body it is narrative


def test_gutenberg_the_end_in_the_middle_is_kept(gutenberg_text):
    clean = clean_gutenberg_text(gutenberg_text)
    body = clean.text
    middle = body.index("THE END")
    assert "CHAPTER II." in body[middle:]
    assert '"Line 29," said Anne.' in body


def test_gutenberg_the_end_in_last_tenth_ends_the_text(gutenberg_text):
    clean = clean_gutenberg_text(gutenberg_text)
    assert clean.text.rstrip().endswith("And so the last narrative line.\n\nTHE END")
    assert "ADVERTISEMENTS" not in clean.text
    assert any("THE END" in note for note in clean.notes)


def test_gutenberg_old_style_small_print_header():
    text = (
        "The Project Gutenberg Etext of Old Times, by Some Body\n\n"
        "**Welcome To The World of Free Plain Vanilla Electronic Texts**\n\n"
        "*****These eBooks Were Prepared By Thousands of Volunteers!*****\n\n"
        "*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*\n\n"
        + gutenberg_body(20)
        + "\nEnd of the Project Gutenberg Etext of Old Times, by Some Body\n\nlegal text\n"
    )
    clean = clean_gutenberg_text(text)
    assert clean.text.startswith("CHAPTER I.")
    assert "SMALL PRINT" not in clean.text
    assert "legal text" not in clean.text
    assert clean.title == "Old Times"
    assert clean.author == "Some Body"


def test_gutenberg_bracketed_transcriber_note_removed():
    body = gutenberg_body(20).replace(
        "CHAPTER I.", "[Transcriber's Note: Obvious typographical errors\nhave been corrected.]\n\nCHAPTER I."
    )
    clean = clean_gutenberg_text(HEADER + body + FOOTER)
    assert "Transcriber" not in clean.text
    assert "typographical" not in clean.text
    assert clean.text.startswith("CHAPTER I.")
    assert any("transcriber" in note for note in clean.notes)


def test_gutenberg_text_without_start_marker_is_unchanged():
    text = "The Project Gutenberg EBook of A Novel, by An Author\n\n  CHAPTER I\n\nIt began.\n"
    clean = clean_gutenberg_text(text)
    assert clean.text == text
    assert clean.notes == ()
    assert not has_gutenberg_markers(text)
    assert (clean.title, clean.author) == ("A Novel", "An Author")


def test_gutenberg_html_to_text_makes_blank_line_paragraphs():
    html = (
        "<html><head><title>A Book</title><style>p {color: red}</style>"
        "<script>var x = 'hidden';</script></head><body>"
        "<h2>CHAPTER I.<br/>The <i>Start</i></h2>"
        "<p>It was a <em>dark</em>\n   night; the <a href='#n1'>wind</a> blew.</p>"
        "<div>She said, <b>\u201cCome.\u201d</b></div>"
        "<!-- a comment --><p>  </p><p>Last&nbsp;line.</p></body></html>"
    )
    clean = html_to_text(html)
    assert clean.text == (
        "CHAPTER I.\nThe Start\n\n"
        "It was a dark night; the wind blew.\n\n"
        "She said, \u201cCome.\u201d\n\n"
        "Last line.\n"
    )
    assert clean.title == "A Book"


def test_gutenberg_html_decomposes_boilerplate_pagenums_and_toc():
    html = """<html><head><title>The Project Gutenberg eBook of Tiny, by Ann Example</title></head>
    <body>
    <section class="pg-boilerplate pgheader" id="pg-header">
      <h2>The Project Gutenberg eBook of Tiny</h2>
      <p><strong>Title</strong>: Tiny</p>
      <p><strong>Author</strong>: Ann Example</p>
    </section>
    <div id="pg-start-separator">*** START OF THE PROJECT GUTENBERG EBOOK TINY ***</div>
    <div class="toc"><p><a href="#c1">CHAPTER I</a></p><p><a href="#c2">CHAPTER II</a></p></div>
    <h2 id="c1">CHAPTER I</h2>
    <p>Once there was a<span class="pagenum"><a id="Page_7">[Pg 7]</a></span> girl.</p>
    <div class="poem"><div class="stanza">
      <span class="i0">Twinkle, twinkle,</span>
      <span class="i2">little star,</span>
    </div></div>
    <h2 id="c2">CHAPTER II</h2>
    <p>She grew up.</p>
    <div id="pg-end-separator">*** END OF THE PROJECT GUTENBERG EBOOK TINY ***</div>
    <section class="pg-boilerplate pgfooter" id="pg-footer"><p>Licence text.</p></section>
    </body></html>"""
    clean = html_to_text(html)
    assert clean.text == (
        "CHAPTER I\n\nOnce there was a girl.\n\nTwinkle, twinkle,\nlittle star,\n\nCHAPTER II\n\nShe grew up.\n"
    )
    assert (clean.title, clean.author) == ("Tiny", "Ann Example")
    assert any("page-number" in note for note in clean.notes)


@pytest.mark.parametrize(
    "marker",
    [
        "*** START OF THE PROJECT GUTENBERG EBOOK X ***",
        "*** START OF THIS PROJECT GUTENBERG EBOOK X ***",
        "***START OF THE PROJECT GUTENBERG EBOOK X***",
    ],
)
def test_gutenberg_start_marker_variants(marker):
    text = f"header\n{marker}\n\nCHAPTER I.\n\nStory.\n" + FOOTER
    assert has_gutenberg_markers(text)
    assert clean_gutenberg_text(text).text == "CHAPTER I.\n\nStory.\n"
