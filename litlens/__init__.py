"""LitLens: read novels, find and type their quotations, discover characters.

The package is layered: domain packages (``text``, ``quotes``) depend on nothing
inside LitLens but ``errors`` and ``model``; ``store`` persists their plain data;
``services`` are the use cases the CLI and the GUI both call.
"""

__version__ = "0.1.0"
