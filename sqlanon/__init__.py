"""sqlanon: privacy-preserving continuous data publishing on DuckDB."""

__version__ = "0.1.0"  # first: the publisher records it in the ledger

from .errors import SqlanonError

# The rest is imported on first use (PEP 562), so that `sqlanon --help` and
# the other commands that need no database start without DuckDB and pandas.
_LAZY = {
    "Installed": "install", "bundle": "install", "connect": "install", "install": "install",
    "AuditReport": "audit", "audit": "audit",
    "Publisher": "publisher", "ReleaseResult": "publisher",
    "AnonymizeResult": "static", "anonymize": "static",
}
_SUBMODULES = ("metrics", "checks")


def __getattr__(name: str):
    from importlib import import_module

    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'sqlanon' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted([*globals(), *_LAZY, *_SUBMODULES])


__all__ = ["anonymize", "AnonymizeResult", "metrics", "Publisher", "ReleaseResult", "AuditReport", "audit", "SqlanonError", "Installed", "bundle", "connect", "install", "__version__"]
