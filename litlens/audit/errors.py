"""Typed errors of the memorization probes (each says what to do)."""

from __future__ import annotations

from litlens.errors import LitLensError


class NoEligiblePassageError(LitLensError):
    """A book has no passage a probe can use."""
