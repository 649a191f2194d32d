"""Human corrections of characters and quotations: each one persisted at once and undoable.

Everything downstream reads characters and speakers from the store, so an edit here
changes what every view and export shows.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from litlens.errors import LitLensError
from litlens.model import QUOTE_TYPES, Character
from litlens.quotes.characters import count_mentions
from litlens.store import edits
from litlens.store.project import Project

GENDERS = ("female", "male", "nonbinary", "unknown")


class EditError(LitLensError):
    """A correction that cannot be applied (unknown character, empty name, ...)."""


def _character(project: Project, book_id: int, character_id: int) -> Character:
    for cid, character in project.characters(book_id):
        if cid == character_id:
            return character
    raise EditError(f"book {book_id} has no character with id {character_id}; refresh the character list")


def _quotation_book(project: Project, quotation_id: int) -> int:
    row = project.conn.execute("SELECT book_id FROM quotations WHERE id = ?", (quotation_id,)).fetchone()
    if row is None:
        raise EditError(f"no quotation with id {quotation_id}; refresh the view")
    return int(row[0])


def _rename_speaker(conn: sqlite3.Connection, book_id: int, old: str, new: str) -> None:
    conn.execute("UPDATE quotations SET speaker = ? WHERE book_id = ? AND speaker = ?", (new, book_id, old))
    rows = conn.execute(
        "SELECT id, addressees FROM quotations WHERE book_id = ? AND addressees LIKE ?", (book_id, f'%"{old}"%')
    ).fetchall()
    for qid, addressees in rows:
        names = [new if a == old else a for a in json.loads(addressees)]
        conn.execute("UPDATE quotations SET addressees = ? WHERE id = ?", (json.dumps(list(dict.fromkeys(names))), qid))


def _quotations_naming(conn: sqlite3.Connection, book_id: int, name: str) -> set[int]:
    rows = conn.execute(
        "SELECT id FROM quotations WHERE book_id = ? AND (speaker = ? OR addressees LIKE ?)",
        (book_id, name, f'%"{name}"%'),
    ).fetchall()
    return {r[0] for r in rows}


MentionKey = frozenset[tuple[str, tuple[str, ...]]]  # (name, aliases) of the characters counted together


@dataclass(frozen=True)
class MentionCounts:
    """Mentions counted for a set of characters, keyed by what was counted (names and aliases)."""

    key: MentionKey
    counts: dict[str, int]


def _mention_key(characters: list[Character]) -> MentionKey:
    return frozenset((c.name, tuple(c.aliases)) for c in characters)


def count_character_mentions(project: Project, book_id: int, characters: list[Character]) -> MentionCounts:
    """Count the mentions of ``characters`` (with the names and aliases they will have after an
    edit) over the whole text. It takes about half a second on a novel, so call it before the
    edit's transaction: every other writer waits while one holds the project's write lock."""
    return MentionCounts(_mention_key(characters), count_mentions(project.text(book_id), characters))


def recount_quotations(conn: sqlite3.Connection, book_id: int, ids: list[int]) -> None:
    """Refresh the quotation counts of the given characters (an index lookup, no text is read)."""
    if not ids:
        return
    conn.execute(
        f"UPDATE characters SET quote_count = (SELECT COUNT(*) FROM quotations q WHERE q.book_id = ?"
        f" AND q.speaker = characters.name AND q.status = 'active') WHERE id IN ({','.join('?' * len(ids))})",
        [book_id, *ids],
    )


def recount_characters(
    conn: sqlite3.Connection, project: Project, book_id: int, ids: list[int] | None = None,
    mentions: MentionCounts | None = None,
) -> None:
    """Refresh mention and quotation counts of the given characters (all when ``ids`` is None).

    ``mentions``, counted before the transaction by :func:`count_character_mentions`, is used
    when it was counted for exactly the characters now stored (no one renamed or merged them
    in between); otherwise the mentions are counted here.
    """
    if ids is None:
        rows = conn.execute("SELECT id, name, aliases FROM characters WHERE book_id = ?", (book_id,)).fetchall()
    else:
        rows = conn.execute(
            f"SELECT id, name, aliases FROM characters WHERE id IN ({','.join('?' * len(ids))})", ids
        ).fetchall()
    characters = [Character(name=r[1], aliases=json.loads(r[2])) for r in rows]
    if mentions is not None and mentions.key == _mention_key(characters):
        counts = mentions.counts
    else:
        counts = count_mentions(project.text(book_id), characters)
    for (cid, name, _), _character in zip(rows, characters):
        conn.execute("UPDATE characters SET mention_count = ? WHERE id = ?", (counts.get(name, 0), cid))
    recount_quotations(conn, book_id, [r[0] for r in rows])


def merge_characters(project: Project, book_id: int, source_id: int, target_id: int) -> edits.Edit:
    """Fold ``source`` into ``target``: aliases joined, its quotations now spoken by ``target``."""
    if source_id == target_id:
        raise EditError("choose two different characters to merge")
    source = _character(project, book_id, source_id)
    target = _character(project, book_id, target_id)
    aliases = list(dict.fromkeys(target.aliases + source.aliases))
    mentions = count_character_mentions(project, book_id, [Character(name=target.name, aliases=aliases)])

    def change(conn: sqlite3.Connection) -> None:
        ambiguous = list(dict.fromkeys(target.ambiguous_aliases + source.ambiguous_aliases))
        gender = target.gender if target.gender != "unknown" else source.gender
        conn.execute(
            "UPDATE characters SET aliases = ?, ambiguous_aliases = ?, gender = ? WHERE id = ?",
            (json.dumps(aliases), json.dumps(ambiguous), gender, target_id),
        )
        conn.execute("DELETE FROM characters WHERE id = ?", (source_id,))
        _rename_speaker(conn, book_id, source.name, target.name)
        recount_characters(conn, project, book_id, [target_id], mentions)

    touched = {"characters": {source_id, target_id}, "quotations": _quotations_naming(project.conn, book_id, source.name)}
    return edits.apply_edit(project, book_id, "merge", f"merge {source.name} into {target.name}", touched, change)


def split_alias(project: Project, book_id: int, character_id: int, alias: str) -> edits.Edit:
    """Make ``alias`` a character of its own (its quotations stay where they are)."""
    character = _character(project, book_id, character_id)
    if alias not in character.aliases:
        raise EditError(f"{alias!r} is not an alias of {character.name}")
    if len(character.aliases) == 1:
        raise EditError(f"{character.name} has only this alias; rename the character instead")
    new_ids: set[int] = set()
    rest = [a for a in character.aliases if a != alias]
    name = character.name if character.name != alias else rest[0]
    mentions = count_character_mentions(
        project, book_id, [Character(name=name, aliases=rest), Character(name=alias, aliases=[alias])]
    )

    def change(conn: sqlite3.Connection) -> dict[str, set[int]]:
        conn.execute("UPDATE characters SET aliases = ?, name = ? WHERE id = ?", (json.dumps(rest), name, character_id))
        if name != character.name:
            _rename_speaker(conn, book_id, character.name, name)
        cur = conn.execute(
            "INSERT INTO characters (book_id, name, aliases, gender, origin) VALUES (?, ?, ?, 'unknown', 'human')",
            (book_id, alias, json.dumps([alias])),
        )
        new_ids.add(int(cur.lastrowid))
        recount_characters(conn, project, book_id, [character_id, *new_ids], mentions)
        return {"characters": new_ids}

    touched = {"characters": {character_id}, "quotations": _quotations_naming(project.conn, book_id, character.name)}
    return edits.apply_edit(project, book_id, "split", f"split {alias!r} off {character.name}", touched, change)


def rename_character(project: Project, book_id: int, character_id: int, new_name: str) -> edits.Edit:
    new_name = " ".join(new_name.split())
    if not new_name:
        raise EditError("a character's name cannot be empty")
    character = _character(project, book_id, character_id)
    clash = [c.name for cid, c in project.characters(book_id) if cid != character_id and c.name == new_name]
    if clash:
        raise EditError(f"another character is already called {new_name!r}; merge them instead")

    aliases = list(dict.fromkeys([new_name, *character.aliases]))
    mentions = count_character_mentions(project, book_id, [Character(name=new_name, aliases=aliases)])

    def change(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE characters SET name = ?, aliases = ? WHERE id = ?", (new_name, json.dumps(aliases), character_id))
        _rename_speaker(conn, book_id, character.name, new_name)
        recount_characters(conn, project, book_id, [character_id], mentions)

    touched = {"characters": {character_id}, "quotations": _quotations_naming(project.conn, book_id, character.name)}
    return edits.apply_edit(project, book_id, "rename", f"rename {character.name} to {new_name}", touched, change)


def set_gender(project: Project, book_id: int, character_id: int, gender: str) -> edits.Edit:
    if gender not in GENDERS:
        raise EditError(f"gender must be one of {', '.join(GENDERS)}, not {gender!r}")
    character = _character(project, book_id, character_id)

    def change(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE characters SET gender = ? WHERE id = ?", (gender, character_id))

    return edits.apply_edit(
        project, book_id, "gender", f"set {character.name}'s gender to {gender}", {"characters": {character_id}}, change
    )


def set_quotation_type(project: Project, quotation_id: int, quote_type: str) -> edits.Edit:
    if quote_type not in QUOTE_TYPES:
        raise EditError(f"type must be one of {', '.join(QUOTE_TYPES)}, not {quote_type!r}")
    book_id = _quotation_book(project, quotation_id)

    def change(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE quotations SET type = ?, edited = 1 WHERE id = ?", (quote_type, quotation_id))

    return edits.apply_edit(
        project, book_id, "quote-type", f"set quotation {quotation_id} to {quote_type}", {"quotations": {quotation_id}}, change
    )


def set_quotation_speaker(project: Project, quotation_id: int, speaker: str | None) -> edits.Edit:
    book_id = _quotation_book(project, quotation_id)
    names = {c.name for _, c in project.characters(book_id)}
    if speaker is not None and speaker not in names:
        raise EditError(f"{speaker!r} is not a character of this book; add or rename a character first")
    old = project.conn.execute("SELECT speaker FROM quotations WHERE id = ?", (quotation_id,)).fetchone()[0]
    affected = {cid for cid, c in project.characters(book_id) if c.name in {speaker, old}}

    def change(conn: sqlite3.Connection) -> None:
        conn.execute(
            "UPDATE quotations SET speaker = ?, speaker_confidence = ?, edited = 1 WHERE id = ?",
            (speaker, 1.0 if speaker else None, quotation_id),
        )
        # A new speaker changes two characters' quotation counts, not anyone's mentions.
        recount_quotations(conn, book_id, sorted(affected))

    return edits.apply_edit(
        project, book_id, "quote-speaker", f"set the speaker of quotation {quotation_id} to {speaker or 'nobody'}",
        {"quotations": {quotation_id}, "characters": affected}, change,
    )


def add_quotation(project: Project, book_id: int, start: int, end: int, quote_type: str = "implicit") -> edits.Edit:
    """Mark a quotation the detector missed, from a selection (surrounding quote marks are trimmed)."""
    text = project.text(book_id)
    if not 0 <= start < end <= len(text):
        raise EditError(f"the selection {start}..{end} is outside the book's text")
    while start < end and (text[start].isspace() or text[start] in "\"'“”‘’«»"):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in "\"'“”‘’«»"):
        end -= 1
    if start >= end:
        raise EditError("select some words of the quotation first")
    chapter = project.conn.execute(
        'SELECT idx FROM chapters WHERE book_id = ? AND start <= ? AND "end" > ?', (book_id, start, start)
    ).fetchone()
    new_ids: set[int] = set()

    def change(conn: sqlite3.Connection) -> dict[str, set[int]]:
        cur = conn.execute(
            'INSERT INTO quotations (book_id, spans, start, "end", type, chapter, origin, edited)'
            " VALUES (?, ?, ?, ?, ?, ?, 'human', 1)",
            (book_id, json.dumps([[start, end]]), start, end, quote_type, chapter[0] if chapter else None),
        )
        new_ids.add(int(cur.lastrowid))
        return {"quotations": new_ids}

    return edits.apply_edit(project, book_id, "quote-add", f"mark a quotation at {start}..{end}", {}, change)


def reject_quotation(project: Project, quotation_id: int) -> edits.Edit:
    """Remove a false quotation; it stays rejected when the pipeline runs again."""
    book_id = _quotation_book(project, quotation_id)

    def change(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE quotations SET status = 'rejected', edited = 1 WHERE id = ?", (quotation_id,))

    return edits.apply_edit(
        project, book_id, "quote-reject", f"delete quotation {quotation_id}", {"quotations": {quotation_id}}, change
    )


def undo(project: Project, book_id: int) -> edits.Edit | None:
    return edits.undo(project, book_id)


def redo(project: Project, book_id: int) -> edits.Edit | None:
    return edits.redo(project, book_id)
