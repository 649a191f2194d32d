"""Typed errors. Every message says what went wrong, where, and how to fix it.

The CLI prints ``str(error)`` on one line and exits non-zero; the GUI shows it in a
dialog. Library code raises these and never prints or exits.
"""

from __future__ import annotations


class LitLensWarning(UserWarning):
    """A warning LitLens itself raises (turned into an error in the test suite)."""


class LitLensError(Exception):
    """Base of every error a user can cause and fix."""

    exit_code = 2


class InputFileError(LitLensError):
    """A book or data file cannot be read as what it claims to be."""

    def __init__(self, path: object, problem: str, fix: str):
        self.path = str(path)
        self.problem = problem
        self.fix = fix
        super().__init__(f"{self.path}: {problem}. {fix}")


class EmptyInputError(InputFileError):
    pass


class BinaryInputError(InputFileError):
    pass


class EncodingDetectionError(InputFileError):
    pass


class InputTooLargeError(InputFileError):
    pass


class EpubError(InputFileError):
    pass


class NoQuotationsWarning(LitLensWarning):
    pass


class DataFormatError(LitLensError):
    """A row or line of a data file (CSV, JSON, JSONL) is malformed."""

    def __init__(self, path: object, line: int | None, problem: str, fix: str = ""):
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}" + (f". {fix}" if fix else ""))


class ProjectError(LitLensError):
    """The project file cannot be opened or written."""

    def __init__(self, path: object, problem: str, fix: str):
        self.path = str(path)
        super().__init__(f"{path}: {problem}. {fix}")


class NotAProjectError(ProjectError):
    pass


class ForeignDatabaseError(NotAProjectError):
    """An SQLite file another application made: LitLens never writes to it."""


class NewerProjectError(ProjectError):
    """A project written by a newer LitLens (unknown migrations): read-only here."""


class DamagedProjectError(ProjectError):
    """The project file's pages fail SQLite's integrity check."""


class ProjectLockedError(ProjectError):
    pass


class DiskFullError(ProjectError):
    pass


class BookNotFoundError(LitLensError):
    pass


class Cancelled(LitLensError):
    """The user cancelled a long operation; nothing was stored."""

    exit_code = 130

    def __init__(self, what: str = "operation"):
        super().__init__(f"{what} cancelled; nothing was changed")


# --- LLM backends (litlens/llm) -------------------------------------------------------


class LLMError(LitLensError):
    """An LLM backend cannot load a model or answer a request."""


class LLMModelNotFoundError(LLMError):
    """The model path or id does not exist (and cannot be downloaded here)."""


class LLMNotCausalError(LLMError):
    """The model exists but is not a text-generating (causal) language model."""


class LLMBackendUnavailableError(LLMError):
    """The backend's optional package is not installed."""


class LLMServerError(LLMError):
    """An OpenAI-compatible server is down, refused the request or died mid-run."""


class LLMTimeoutError(LLMServerError):
    """The server took longer than the timeout to answer."""


class LLMOutOfMemoryError(LLMError):
    """Generation ran out of (GPU) memory even with a batch of one."""


class NoCharactersError(LitLensError):
    """Speaker attribution needs at least one character to choose from."""
