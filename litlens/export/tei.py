"""A book, its quotations and its characters as one TEI P5 document.

The body holds the whole stored text in order, so its text (``itertext()``) is the stored
text itself, except that characters XML 1.0 forbids (control characters other than tab and
line breaks) become U+FFFD. Chapters are ``div`` elements whose heading paragraph becomes
``head``; paragraphs are ``p``; text outside any paragraph that is not whitespace gets a ``p``
of its own, and whitespace between elements is kept as it is. Each sub-quotation is a
``said``; the sub-quotations of one quotation are linked by ``next`` / ``prev``. A
sub-quotation that runs across a paragraph break is cut at the break (one ``said`` a part,
all linked), and one that starts inside another but ends after it is cut where the other
ends, because XML elements nest.

Speakers and addressees point at ``person`` elements in ``particDesc/listPerson``; ids are
made from names (letters, digits, ``.``, ``-``, ``_``), made unique with a number, and never
equal to an id used for something else in the document.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lxml import etree

from litlens.model import QUOTE_TYPES, Chapter, Character, Paragraph, Quotation

TEI_NS = "http://www.tei-c.org/ns/1.0"
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
_T = "{%s}" % TEI_NS

TYPE_DESCRIPTIONS = {
    "explicit": "Explicit: the speaker is named next to the quotation (\"said Elizabeth\").",
    "anaphoric": "Anaphoric: the speaker is referred to by a pronoun or a description (\"she cried\", \"said her mother\").",
    "implicit": "Implicit: no speech verb or referring expression; the speaker follows from the conversation.",
}
_SEX = {"female": "F", "male": "M", "nonbinary": "N", "unknown": "U"}
# XML 1.0 Char production, negated: what lxml refuses to put in a document.
_NOT_XML_CHAR = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NAME_START = re.compile(r"[A-Za-z_]")


@dataclass(frozen=True)
class BookMeta:
    title: str | None
    author: str | None
    source: str  # the file the book was read from, as recorded at ingest
    generator: str  # "LitLens"
    version: str
    when: str  # ISO 8601 date or date-time of the export


@dataclass(frozen=True)
class TeiDocument:
    xml: bytes  # UTF-8 with an XML declaration
    quotations: int  # quotations written (each one or more ``said``)
    saids: int
    persons: int
    notes: tuple[str, ...] = ()  # what had to be adjusted (cut sub-quotations, replaced characters)


def xml_safe_text(text: str) -> str:
    """``text`` with every character XML 1.0 forbids replaced by U+FFFD (same length)."""
    return _NOT_XML_CHAR.sub("\ufffd", text)


class IdMaker:
    """Valid, unique ``xml:id`` values (NCNames) from arbitrary labels."""

    def __init__(self, reserved: Iterable[str] = ()):
        self.used: set[str] = set(reserved)

    def make(self, label: str, fallback: str = "id") -> str:
        ascii_label = unicodedata.normalize("NFKD", label).encode("ascii", "ignore").decode("ascii")
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", ascii_label.strip()).strip("_.-") or fallback
        if not _NAME_START.match(base):
            base = f"{fallback}_{base}"
        candidate, n = base, 2
        while candidate in self.used:
            candidate = f"{base}-{n}"
            n += 1
        self.used.add(candidate)
        return candidate


@dataclass
class _Segment:
    start: int
    end: int
    quote: int  # index into the quotation list
    children: list[_Segment] = field(default_factory=list)
    ident: str = ""


@dataclass(frozen=True)
class _Block:
    kind: str  # "head" or "p"
    start: int
    end: int


def _e(parent: etree._Element | None, tag: str, text: str | None = None, **attrs: str) -> etree._Element:
    el = etree.Element(_T + tag, nsmap={None: TEI_NS}) if parent is None else etree.SubElement(parent, _T + tag)
    for key, value in attrs.items():
        el.set(XML_ID if key == "xml_id" else key, value)
    if text is not None:
        el.text = text
    return el


def _squash(s: str) -> str:
    return " ".join(s.split())


def _divisions(text: str, chapters: Sequence[Chapter], paragraphs: Sequence[Paragraph]) -> list[tuple[str, str | None, list[_Block]]]:
    """(div type, chapter number or None, blocks) covering every non-space character in order."""
    bounds = sorted((c for c in chapters if c.end > c.start), key=lambda c: c.start)
    divs: list[tuple[int, int, str, str | None, str]] = []  # start, end, type, n, title
    cursor = 0
    number = 0
    for chapter in bounds:
        start = max(chapter.start, cursor)
        if start > cursor and text[cursor:start].strip():
            divs.append((cursor, start, "front", None, ""))
        if chapter.end <= start:
            continue
        if chapter.title.strip():
            number += 1
            divs.append((start, chapter.end, "chapter", str(number), chapter.title))
        else:
            divs.append((start, chapter.end, "front", None, ""))
        cursor = chapter.end
    if cursor < len(text) and (text[cursor:].strip() or not divs):
        divs.append((cursor, len(text), "back" if divs else "front", None, ""))

    paras = sorted(((p.start, p.end) for p in paragraphs if p.end > p.start), key=lambda p: p[0])
    out: list[tuple[str, str | None, list[_Block]]] = []
    for d_start, d_end, d_type, d_n, title in divs:
        blocks: list[_Block] = []
        pos = d_start
        i = bisect.bisect_left(paras, (d_start, -1))
        if i > 0 and paras[i - 1][1] > d_start:
            i -= 1
        while i < len(paras) and paras[i][0] < d_end:
            p_start, p_end = max(paras[i][0], pos), min(paras[i][1], d_end)
            i += 1
            if p_end <= p_start:
                continue
            if text[pos:p_start].strip():
                blocks.append(_Block("p", pos, p_start))
            kind = "p"
            if title and not blocks and _squash(text[p_start:p_end]) == _squash(title):
                kind = "head"
            blocks.append(_Block(kind, p_start, p_end))
            pos = p_end
        if text[pos:d_end].strip():
            blocks.append(_Block("p", pos, d_end))
        if any(text[b.start:b.end].strip() for b in blocks):
            # Leading and trailing whitespace of a block belongs between elements.
            trimmed = []
            for b in blocks:
                piece = text[b.start:b.end]
                if not piece.strip():
                    continue
                s = b.start + (len(piece) - len(piece.lstrip()))
                e = b.end - (len(piece) - len(piece.rstrip()))
                trimmed.append(_Block(b.kind, s, e))
            out.append((d_type, d_n, trimmed))
    return out


def _segments(blocks: list[_Block], quotations: Sequence[Quotation]) -> tuple[dict[int, list[_Segment]], list[str]]:
    """Each block's top-level segments (nested ones as children), and notes on cuts."""
    starts = [b.start for b in blocks]
    per_block: dict[int, list[_Segment]] = {}
    cut_across = 0
    for qi, q in enumerate(quotations):
        for s, e in q.spans:
            i = max(bisect.bisect_right(starts, s) - 1, 0)
            parts = 0
            while i < len(blocks) and blocks[i].start < e:
                lo, hi = max(s, blocks[i].start), min(e, blocks[i].end)
                if hi > lo:
                    per_block.setdefault(i, []).append(_Segment(lo, hi, qi))
                    parts += 1
                i += 1
            cut_across += parts > 1
    notes = []
    if cut_across:
        notes.append(f"{cut_across} sub-quotation(s) run across a paragraph break and were cut there (linked with next/prev)")
    overlaps = 0
    for i, segs in per_block.items():
        segs.sort(key=lambda g: (g.start, -g.end, g.quote))
        per_block[i], n = _nest(segs)
        overlaps += n
    if overlaps:
        notes.append(f"{overlaps} sub-quotation(s) overlapped another without nesting and were cut where it ends")
    return per_block, notes


def _nest(segs: list[_Segment]) -> tuple[list[_Segment], int]:
    """Sorted segments as a forest; a segment that leaves its container is cut at its end."""
    roots: list[_Segment] = []
    stack: list[_Segment] = []
    cuts = 0
    for seg in segs:
        while stack and stack[-1].end <= seg.start:
            stack.pop()
        if stack and seg.end > stack[-1].end:
            # Partial overlap: keep the part after the container ends, at the container's level.
            cuts += 1
            while stack and seg.end > stack[-1].end:
                seg = _Segment(max(seg.start, stack[-1].end), seg.end, seg.quote)
                stack.pop()
            if seg.end <= seg.start:
                continue
        (stack[-1].children if stack else roots).append(seg)
        stack.append(seg)
    return roots, cuts


def _fill(parent: etree._Element, text: str, start: int, end: int, segs: list[_Segment], attrs: dict[int, dict[str, str]]) -> None:
    """Put text[start:end] into ``parent`` with a ``said`` per segment."""
    parent.text = text[start:segs[0].start] if segs else text[start:end]
    for k, seg in enumerate(segs):
        el = _e(parent, "said", **attrs[id(seg)])
        _fill(el, text, seg.start, seg.end, seg.children, attrs)
        el.tail = text[seg.end:segs[k + 1].start] if k + 1 < len(segs) else text[seg.end:end]


def _cert(q: Quotation) -> str | None:
    if q.speaker is None:
        return None
    if q.speaker_confidence is None or q.origin in ("gold", "human") or q.edited:
        return "high"
    if q.speaker_confidence >= 0.8:
        return "high"
    return "medium" if q.speaker_confidence >= 0.5 else "low"


def build_tei(
    text: str,
    meta: BookMeta,
    chapters: Sequence[Chapter],
    paragraphs: Sequence[Paragraph],
    quotations: Sequence[tuple[str, Quotation]],
    characters: Sequence[Character],
) -> TeiDocument:
    """The TEI P5 document of one book. ``quotations`` pairs each with its export id."""
    notes: list[str] = []
    safe = xml_safe_text(text)
    if safe != text:
        notes.append(f"{sum(a != b for a, b in zip(safe, text))} character(s) XML cannot hold were replaced by U+FFFD")
    text = safe

    ids = IdMaker(reserved=QUOTE_TYPES + ("quotation-types",))
    # Quotation ids first: they are the ones a user cites (q<export id>).
    q_list = [q for _, q in quotations]

    # People: every character, then any speaker or addressee name that is no character's.
    person_of: dict[str, str] = {}
    persons: list[tuple[str, Character]] = []
    for c in characters:
        pid = ids.make(c.name, "person")
        persons.append((pid, c))
        person_of.setdefault(c.name, pid)
    for pid, c in persons:
        for alias in c.aliases:
            person_of.setdefault(alias, pid)
    for q in q_list:
        for name in ([q.speaker] if q.speaker else []) + list(q.addressees):
            if name not in person_of:
                pid = ids.make(name, "person")
                person_of[name] = pid
                persons.append((pid, Character(name=name, aliases=[name])))
                notes.append(f"{name!r} speaks or is addressed but is not in the character list; listed as a person")

    # Header.
    tei = _e(None, "TEI")
    tei.set("{http://www.w3.org/XML/1998/namespace}lang", "en")
    header = _e(tei, "teiHeader")
    file_desc = _e(header, "fileDesc")
    title_stmt = _e(file_desc, "titleStmt")
    title = meta.title or _basename(meta.source)
    _e(title_stmt, "title", title)
    if meta.author:
        _e(title_stmt, "author", meta.author)
    resp = _e(title_stmt, "respStmt")
    _e(resp, "resp", "quotations, quotation types, speakers and characters annotated and encoded by")
    _e(resp, "name", f"{meta.generator} {meta.version}")
    pub = _e(file_desc, "publicationStmt")
    _e(pub, "p", f"Exported by {meta.generator} {meta.version} on {meta.when}.")
    source_desc = _e(file_desc, "sourceDesc")
    bibl = _e(source_desc, "bibl")
    _e(bibl, "title", title)
    if meta.author:
        _e(bibl, "author", meta.author)
    _e(bibl, "idno", meta.source, type="file")

    encoding = _e(header, "encodingDesc")
    app_info = _e(encoding, "appInfo")
    app = _e(app_info, "application", ident=meta.generator, version=meta.version, when=meta.when[:10])
    _e(app, "label", meta.generator)
    class_decl = _e(encoding, "classDecl")
    taxonomy = _e(class_decl, "taxonomy", xml_id="quotation-types")
    _e(taxonomy, "desc", "Types of quotation of direct speech, after the Project Dialogism Novel Corpus (PDNC).")
    for t in QUOTE_TYPES:
        category = _e(taxonomy, "category", xml_id=t)
        _e(category, "catDesc", TYPE_DESCRIPTIONS[t])

    if persons:
        profile = _e(header, "profileDesc")
        list_person = _e(_e(profile, "particDesc"), "listPerson")
        for pid, c in persons:
            person = _e(list_person, "person", xml_id=pid, sex=_SEX.get(c.gender, "U"))
            _e(person, "persName", c.name, type="main")
            for alias in c.aliases:
                if alias != c.name:
                    _e(person, "persName", alias, type="alias")

    # Body.
    body = _e(_e(tei, "text"), "body")
    divisions = _divisions(text, chapters, paragraphs)
    all_blocks = [b for _, _, blocks in divisions for b in blocks]
    per_block, seg_notes = _segments(all_blocks, q_list)
    notes.extend(seg_notes)

    # Ids and attributes per segment, chained per quotation in text order.
    chains: dict[int, list[_Segment]] = {}

    def walk(segs: list[_Segment]) -> Iterable[_Segment]:
        for seg in segs:
            yield seg
            yield from walk(seg.children)

    ordered = sorted((seg for i in sorted(per_block) for seg in walk(per_block[i])), key=lambda g: (g.start, g.end))
    for seg in ordered:
        chains.setdefault(seg.quote, []).append(seg)
    attrs: dict[int, dict[str, str]] = {}
    for qi, chain in chains.items():
        export_id, q = quotations[qi]
        base = f"q{export_id}"
        for k, seg in enumerate(chain):
            seg.ident = ids.make(base if len(chain) == 1 else f"{base}-{k + 1}", "q")
        for k, seg in enumerate(chain):
            a: dict[str, str] = {"xml_id": seg.ident}
            if q.source_id:
                a["n"] = q.source_id
            if q.speaker:
                a["who"] = "#" + person_of[q.speaker]
            if q.addressees:
                a["toWhom"] = " ".join("#" + person_of[name] for name in dict.fromkeys(q.addressees))
            a["direct"] = "true"
            a["aloud"] = "true"
            if q.type in QUOTE_TYPES:
                a["ana"] = "#" + q.type
            cert = _cert(q)
            if cert:
                a["cert"] = cert
            if k > 0:
                a["prev"] = "#" + chain[k - 1].ident
            if k + 1 < len(chain):
                a["next"] = "#" + chain[k + 1].ident
            attrs[id(seg)] = a

    block_index = 0
    previous: etree._Element | None = None
    pos = 0
    for d_type, d_n, blocks in divisions:
        div = _e(body, "div", type=d_type, **({"n": d_n} if d_n else {}))
        if previous is None:
            body.text = text[pos:blocks[0].start]
        else:
            previous.tail = (previous.tail or "") + text[pos:blocks[0].start]
        last: etree._Element | None = None
        for b in blocks:
            if last is None:
                div.text = ""
            else:
                last.tail = text[pos:b.start]
            el = _e(div, b.kind)
            _fill(el, text, b.start, b.end, per_block.get(block_index, []), attrs)
            block_index += 1
            pos = b.end
            last = el
        previous = last
    if previous is not None:
        previous.tail = (previous.tail or "") + text[pos:]
    else:
        body.text = text
        _e(body, "p")  # an empty text still needs a body with content

    xml = etree.tostring(tei, xml_declaration=True, encoding="UTF-8")
    return TeiDocument(
        xml=xml,
        quotations=len(chains),
        saids=sum(len(c) for c in chains.values()),
        persons=len(persons),
        notes=tuple(notes),
    )


def _basename(path: str) -> str:
    parts = [p for p in re.split(r"[\\/]", path) if p]
    if len(parts) >= 2 and parts[-1] == "novel_text.txt":  # a PDNC folder: the folder names the novel
        return parts[-2]
    return parts[-1] if parts else "untitled"


def body_text(xml: bytes) -> str:
    """The text of a TEI document's ``body``, as a reader of the export would get it."""
    root = etree.fromstring(xml)
    body = root.find(f"{_T}text/{_T}body")
    return "".join(body.itertext()) if body is not None else ""
