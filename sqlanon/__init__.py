"""sqlanon: privacy-preserving continuous data publishing on DuckDB."""

__version__ = "0.1.0"  # first: the publisher records it in the ledger

import sys
import types

from .errors import SqlanonError

# The rest is imported on first use (PEP 562), so that `sqlanon --help` and
# the other commands that need no database start without DuckDB and pandas.
_LAZY = {
    "Installed": "install", "bundle": "install", "connect": "install", "install": "install",
    "AuditReport": "audit", "audit": "audit",
    "Publisher": "publisher", "ReleaseResult": "result",
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
    if name not in ("audit", "install"):  # those two: _Package's properties
        globals()[name] = value
    return value


def _function(module: str):
    def get(self):
        return __getattr__(module) if module not in vars(self) else vars(self)[module]

    def ignore(self, value) -> None:  # the import system setting the submodule of the same name
        if callable(value) and not isinstance(value, types.ModuleType):
            vars(self)[module] = value

    return property(get, ignore)


class _Package(types.ModuleType):
    """``sqlanon.audit`` and ``sqlanon.install`` are the functions (as when this
    package imported them eagerly), also after their submodules of the same
    name are imported (those are in ``sys.modules``)."""

    audit = _function("audit")
    install = _function("install")


sys.modules[__name__].__class__ = _Package


def __dir__():
    return sorted([*globals(), *_LAZY, *_SUBMODULES])


__all__ = ["anonymize", "AnonymizeResult", "metrics", "Publisher", "ReleaseResult", "AuditReport", "audit", "SqlanonError", "Installed", "bundle", "connect", "install", "__version__"]
