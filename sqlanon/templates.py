"""Jinja2 rendering of the per-release SQL (``sql/<pipeline>/<NN_step>.sql.j2``).

Templates only assemble structure (quoted identifiers, column lists); every
value (release number, seed, m) is a ``$name`` parameter bound at execution.
A project may point at a folder of its own templates: a file there with the same
relative path (e.g. ``m_invariance/07_assign.sql.j2``) overrides ours.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2

from ._resources import sql_dir
from .errors import SqlanonError

_PARAM_RE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


# Environments by template folder: Jinja compiles each template once per
# environment (about 37 ms for the m-invariance pipeline), so Publishers in one
# process share them. An override folder's key includes its files and their
# modification times, so added, removed or edited overrides give a fresh
# environment (Jinja itself reloads an edited file it already compiled).
_ENVIRONMENTS: dict[tuple, jinja2.Environment] = {}


def environment(overrides: str | Path | None = None) -> jinja2.Environment:
    """A Jinja2 environment with StrictUndefined over ``overrides`` (first) and
    the package's ``sql/`` folder (shared by calls with the same folder state)."""
    paths = []
    key: tuple = (str(sql_dir()),)
    if overrides is not None:
        folder = Path(overrides)
        if not folder.is_dir():
            raise SqlanonError(f"template folder {str(folder)!r} does not exist; pass an existing folder or None")
        paths.append(str(folder))
        key += (str(folder.resolve()),
                tuple(sorted((str(f.relative_to(folder)), f.stat().st_mtime_ns) for f in folder.rglob("*") if f.is_file())))
    paths.append(str(sql_dir()))
    env = _ENVIRONMENTS.get(key)
    if env is None:
        env = _ENVIRONMENTS[key] = jinja2.Environment(
            loader=jinja2.FileSystemLoader(paths),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
    return env


def steps(env: jinja2.Environment, pipeline: str) -> list[str]:
    """Template names of a pipeline in step order (``NN_`` prefix)."""
    names = sorted({n for n in env.list_templates() if n.startswith(pipeline + "/") and n.endswith(".sql.j2")})
    if not names:
        raise SqlanonError(f"no templates for pipeline {pipeline!r} under sql/{pipeline}/")
    return names


def render(env: jinja2.Environment, name: str, context: dict) -> list[str]:
    """Render template ``name`` with an explicit context; returns its statements
    (split at lines that end with ``;``)."""
    text = env.get_template(name).render(**context)
    parts, buf = [], []
    for line in text.splitlines():
        buf.append(line)
        if line.rstrip().endswith(";"):
            stmt = "\n".join(buf).strip()
            if stmt.strip(" ;\n") and not all(x.strip().startswith("--") or not x.strip() for x in buf):
                parts.append(stmt)
            buf = []
    rest = "\n".join(buf).strip()
    if rest and not all(x.strip().startswith("--") or not x.strip() for x in buf):
        parts.append(rest)
    return parts


def params_for(statement: str, params: dict) -> dict:
    """The subset of ``params`` that ``statement`` references as ``$name``."""
    code = "\n".join(line.split("--", 1)[0] for line in statement.splitlines())
    used = set(_PARAM_RE.findall(code))
    missing = used - set(params)
    if missing:
        raise SqlanonError(f"template parameter ${sorted(missing)[0]} has no value; pass it in the release parameters")
    return {k: v for k, v in params.items() if k in used}
