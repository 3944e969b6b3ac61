"""A release project file, ``sqlanon.toml`` (SPEC §10): the database, the
source, id, QI and SA columns, the model with its parameters, the output, a
folder of template overrides and the export target - everything the CLI's
``run``, ``status``, ``audit``, ``export`` and ``report`` would otherwise take
as arguments. Relative paths are relative to the file's folder. The file is
read with ``tomllib`` and checked here: an unknown or missing key is an error
that names it.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> cfg = load(init(folder / "sqlanon.toml"))
>>> cfg.project, cfg.database.name, cfg.model, cfg.parameters
('ward', 'my.duckdb', 'm-invariance', {'m': 4, 'seed': 0})
>>> sorted(cfg.publisher_arguments())
['id', 'm', 'model', 'output', 'qi', 'sa', 'seed', 'source', 'templates_dir']
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SqlanonError
from .models import MODELS
from .ident import check_project

FILENAME = "sqlanon.toml"

#: what ``sqlanon init`` writes (every key explained; the optional ones commented out)
EXAMPLE = '''\
# sqlanon release project (docs/projects.md). Relative paths are relative to
# this file's folder. `sqlanon run` makes the next release from it; `status`,
# `audit`, `export`, `report` and `compile` read it when given no arguments.

project = "ward"             # names the tables: sqlanon_ward_qit, sqlanon_ward_st, ...
database = "my.duckdb"       # the DuckDB file holding the source and every release

# the source table: one row per person
source = "patients"          # table or view (schema.table works)
id = "id"                    # never published
qi = ["age", "zip"]          # quasi-identifiers
sa = "disease"               # the sensitive attribute

model = "m-invariance"       # or "dynamic-anatomy", "anatomy" (the unsafe baseline)
output = "anatomy"           # qit + st tables; "generalized" adds sqlanon_<project>_published

# templates = "templates"    # a folder of your own sql/<pipeline>/ steps (same relative paths)

[parameters]                 # of the model; fixed by the first release (the ledger keeps them)
m = 4                        # m of m-invariance (the anatomy models take l = ...)
seed = 0                     # seed of every ordering: same input + seed = same release
# eligibility = "optimal"    # m-invariance only: "optimal", "counterfeit", "random", "optimal-unsafe"

[export]                     # `sqlanon export`: the published tables only
to = "export"                # folder
format = "parquet"           # or "csv"
'''

_TOP = {"project", "database", "source", "id", "qi", "sa", "model", "output", "templates", "parameters", "export",
        "warn"}
_REQUIRED = ("project", "database", "source", "id", "qi", "sa")
# [parameters]: every parameter (and alias) a registered model declares, and the seed
_PARAMETERS = {"seed"} | {n for spec in MODELS.values() for p in spec.parameters for n in (p.name, *p.aliases)}
_EXPORT = {"to", "format"}
# [warn]: thresholds of the fake and stale shares (Publisher's warn_fake, warn_stale)
_WARN = {"fake", "stale"}


@dataclass(frozen=True)
class ProjectFile:
    """A loaded ``sqlanon.toml`` (paths resolved against its folder)."""

    path: Path
    project: str
    database: Path
    source: str
    id: str
    qi: list[str]
    sa: str
    model: str = "m-invariance"
    output: str = "anatomy"
    parameters: dict = field(default_factory=dict)
    templates: Path | None = None
    export_to: Path | None = None
    export_format: str = "parquet"
    warn: dict = field(default_factory=dict)

    def publisher_arguments(self) -> dict:
        """Keyword arguments of :class:`sqlanon.Publisher` (after ``con`` and the project name)."""
        return {"source": self.source, "id": self.id, "qi": list(self.qi), "sa": self.sa, "model": self.model,
                "output": self.output, "templates_dir": self.templates, **self.parameters,
                **{f"warn_{k}": v for k, v in self.warn.items()}}

    def privacy_parameter(self) -> int | None:
        """m (m-invariance) or l (anatomy models), as the file gives it."""
        return self.parameters.get("m", self.parameters.get("l"))


def _fail(path: Path, what: str) -> SqlanonError:
    return SqlanonError(f"project file {str(path)!r}: {what}")


def _table(path, data: dict, name: str, known: set[str], what: str) -> dict:
    """Table ``[name]`` of the file (empty when absent), with only ``known`` keys."""
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise _fail(path, f"[{name}] must be a table")
    bad = sorted(set(table) - known)
    if bad:
        raise _fail(path, f"unknown {what} {bad[0]!r} in [{name}]; known: {', '.join(sorted(known))}")
    return table


def load(path: str | Path) -> ProjectFile:
    """Read and check project file ``path``."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError as exc:
        raise SqlanonError(f"project file {str(path)!r} does not exist; write one with `sqlanon init`") from exc
    except tomllib.TOMLDecodeError as exc:
        raise _fail(path, f"not valid TOML ({exc})") from exc
    except OSError as exc:
        raise _fail(path, f"cannot be read ({exc.strerror or exc})") from exc
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise _fail(path, f"unknown key {unknown[0]!r}; the keys are {', '.join(sorted(_TOP))}")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise _fail(path, f"missing key {missing[0]!r} (needed: {', '.join(_REQUIRED)})")
    for k in ("project", "database", "source", "id", "sa", "model", "output", "templates"):
        if k in data and not isinstance(data[k], str):
            raise _fail(path, f"{k} must be a string, got {data[k]!r}")
    qi = data["qi"]
    if isinstance(qi, str):
        qi = [qi]
    if not isinstance(qi, list) or not qi or not all(isinstance(c, str) for c in qi):
        raise _fail(path, f"qi must be a list of column names, got {data['qi']!r}")
    params = _table(path, data, "parameters", _PARAMETERS, "parameter")
    export = _table(path, data, "export", _EXPORT, "key")
    warn = _table(path, data, "warn", _WARN, "key")
    for k, v in warn.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
            raise _fail(path, f"[warn] {k} must be a share between 0 and 1 (0.1 = 10%), got {v!r}")
    try:
        check_project(data["project"])
    except SqlanonError as exc:
        raise _fail(path, str(exc)) from exc
    base = path.resolve().parent
    return ProjectFile(
        path=path, project=data["project"], database=base / data["database"], source=data["source"],
        id=data["id"], qi=qi, sa=data["sa"], model=data.get("model", "m-invariance"),
        output=data.get("output", "anatomy"), parameters=dict(params),
        templates=base / data["templates"] if "templates" in data else None,
        export_to=base / export["to"] if "to" in export else None, export_format=export.get("format", "parquet"),
        warn=dict(warn))


def find(explicit: str | Path | None = None, cwd: str | Path | None = None) -> ProjectFile:
    """The project file ``explicit``, else ``sqlanon.toml`` in ``cwd`` (default:
    the current directory)."""
    if explicit is not None:
        return load(explicit)
    candidate = Path(cwd or Path.cwd()) / FILENAME
    if not candidate.is_file():
        raise SqlanonError(f"no {FILENAME} in {str(candidate.parent)!r}: give the arguments, or --project FILE, or "
                           "write one with `sqlanon init`")
    return load(candidate)


def init(path: str | Path = FILENAME, *, force: bool = False) -> Path:
    """Write the commented example project file to ``path`` (not over an existing file unless ``force``)."""
    path = Path(path)
    if path.exists() and not force:
        raise SqlanonError(f"{str(path)!r} exists; keep it, or pass --force to overwrite it")
    try:
        path.write_text(EXAMPLE, encoding="utf-8")
    except OSError as exc:
        raise SqlanonError(f"cannot write {str(path)!r} ({exc.strerror or exc})") from exc
    return path
