"""Python UDFs, registered on a connection by :func:`register_all`. The
registry is empty today: every check is a SQL macro (macros/), which the
DuckDB shell also has.

UDFs exist only on the connection that registered them, so nothing a DuckDB
shell user needs may depend on one; they are for what SQL cannot do well.
Add a UDF by appending a :class:`Udf` to ``REGISTRY`` (from any module, via
:func:`register`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb


@dataclass(frozen=True)
class Udf:
    name: str
    fn: Callable
    parameters: list[str] | None  # DuckDB type strings, e.g. ["BIGINT[]", "INTEGER"]
    return_type: str
    side_effects: bool = False


REGISTRY: dict[str, Udf] = {}


def register(udf: Udf) -> Udf:
    REGISTRY[udf.name] = udf
    return udf


def register_all(con: duckdb.DuckDBPyConnection) -> list[str]:
    """(Re-)register every UDF in REGISTRY on ``con``; return their names."""
    _load_udf_modules()
    for udf in REGISTRY.values():
        try:
            con.remove_function(udf.name)
        except Exception:  # not registered yet on this connection
            pass
        con.create_function(
            udf.name,
            udf.fn,
            udf.parameters,
            udf.return_type,
            side_effects=udf.side_effects,
        )
    return sorted(REGISTRY)


# Modules that define UDFs register them on import; list them here.
_UDF_MODULES: list[str] = []


def _load_udf_modules() -> None:
    import importlib

    for mod in _UDF_MODULES:
        importlib.import_module(mod)
