"""Read a data file (CSV, TSV, JSON, JSON lines) as text, whatever its encoding.

Data files used to be decoded as UTF-8 while they were iterated, so a file saved in another
encoding failed in the middle of a loop, outside every error check, with a traceback. Here
the whole file is decoded first, by the same rules as a book (byte-order mark, UTF-8, a few
stray cp1252 bytes, then detection); binary data and undecodable text are refused with the
file's name, and callers parse the text knowing it is text.
"""

from __future__ import annotations

import os
from pathlib import Path

from litlens.errors import EmptyInputError, InputFileError
from litlens.text.ingest import _decode  # one set of decoding rules for books and data files


def read_data_text(path: str | os.PathLike[str], what: str, fix: str) -> str:
    """The decoded text of ``path``; ``what`` names the file in messages ("judgments CSV") and
    ``fix`` says what a valid one holds. Line ends come back as ``\\n``."""
    path = Path(path)
    if not path.is_file():
        problem = "this is a folder, not a file" if path.is_dir() else f"no such {what}"
        raise InputFileError(path, problem, fix)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputFileError(path, f"cannot read the {what} ({exc.strerror})", "Check the file's permissions") from None
    if not data.strip():
        raise EmptyInputError(path, f"the {what} is empty", fix)
    try:
        return _decode(path, data).text
    except InputFileError as exc:  # binary data or an unknown encoding: say what the file should be
        raise type(exc)(path, f"cannot be read as a {what}: {exc.problem}", fix) from None
