"""The exception types: :class:`SqlanonError`, the one users catch, and the
engine's typed errors (:class:`EngineError` and its kinds), which an engine
(:mod:`sqlanon.engines`) raises in place of its database's own exceptions, so
nothing outside the engine matches a database's exception types or messages.
"""

import re


class SqlanonError(ValueError):
    """Bad input or a failed release: the message names the table, column or
    value at fault and how to fix it. Nothing has been written when it is raised."""


class EngineError(Exception):
    """A statement the engine could not run. Raised by the engine with the
    database's own exception as ``__cause__`` and its text as the message
    (which may quote data values: callers that show it mask it)."""


class MissingObject(EngineError):
    """A statement names a table, view, function or macro that does not exist."""


class Conflict(EngineError):
    """Another transaction changed what this one changed (a write-write
    conflict); this transaction has been rolled back."""


class ReadOnly(EngineError):
    """A write on a database opened read-only."""


class LockHeld(EngineError, SqlanonError):
    """The database (file or warehouse) is held by another process; the message
    names it and what to do."""


class CannotOpen(EngineError, SqlanonError):
    """A database that cannot be opened (missing, not a database, no permission);
    the message says which and what to do."""


def masked(exc: Exception) -> str:
    """A database error without the data values it may quote: numbers and
    '...' literals become ?, identifiers in double quotes stay (the unmasked
    message is the SqlanonError's __cause__). Our own templates' error() texts
    (they start with 'sqlanon') hold no data and stay as they are."""
    if re.search(r"\bsqlanon( internal error)?:", str(exc)):
        return str(exc)
    text = re.sub(r"'(?:[^']|'')*'", "?", str(exc))
    return re.sub(r"(?<![\w.\"])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w\"])", "?", text)
