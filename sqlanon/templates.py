"""Jinja2 rendering of the per-release SQL (``sql/<pipeline>/<NN_step>.sql.j2``).

Templates only assemble structure (quoted identifiers, column lists); every
value (release number, seed, m) is a ``$name`` parameter bound at execution.
A rendered template is cut into statements, and each statement's ``$name``
parameters are found, by sqlglot's tokenizer in DuckDB's dialect: a ``;`` or
``$name`` inside a string literal or a comment is neither.
A project may point at a folder of its own templates: a file there with the same
relative path (e.g. ``m_invariance/08_assign.sql.j2``) overrides ours.

Engine-specific SQL (bit masks, arg_min over a tuple, rowid positions) is not
written in the templates but called as ``lib.<macro>(...)``, dispatched per
macro as dbt's ``adapter.dispatch`` does (:class:`Lib`): the macro of the
engine's file ``sql/_lib/<engine>.sql.j2`` when it defines one, else the
default of ``sql/_lib/default.sql.j2``; ``lib.<constant>`` is the engine
dialect's attribute (:class:`sqlanon.engines.base.Dialect`). A second engine
adds one file with the macros it overrides, not a copy of each template.

>>> env = environment()
>>> env.from_string("SELECT {{ lib.mask_or(lib.mask_bit('pos')) }}").render()
'SELECT bit_or((1::UHUGEINT << (pos)::UHUGEINT))'
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import jinja2
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import TokenError
from sqlglot.tokens import TokenType

from ._resources import sql_dir
from .engines import dialect
from .errors import SqlanonError

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DUCKDB = Dialect.get_or_raise("duckdb")
# a step's template: NN<name>.sql.j2 in the pipeline's folder (a file without
# a leading digit, e.g. hooks.sql.j2, holds macros the model's hooks render)
_STEP_RE = re.compile(r"\d[^/]*\.sql\.j2")


# Environments by template folder: Jinja compiles each template once per
# environment (about 37 ms for the m-invariance pipeline), so Publishers in one
# process share them. An override folder's key includes its files and their
# modification times, so added, removed or edited overrides give a fresh
# environment (Jinja itself reloads an edited file it already compiled).
_ENVIRONMENTS: dict[tuple, jinja2.Environment] = {}


class Lib:
    """``lib`` in the templates: ``lib.x`` is the engine's macro or value ``x``
    (its macro file's module) if it has one, else the default's; the engine's
    constants come from its dialect.

    >>> lib = environment(engine="spark").globals["lib"]
    >>> lib.mask_count("m"), lib.mask_zero(), lib.signature_values
    ('bit_count(m)', '0::BIGINT', 63)
    """

    def __init__(self, engine_dialect, own, default) -> None:
        self._constants = engine_dialect.constants()
        self._sources = (own, default)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._constants:
            return self._constants[name]
        for src in self._sources:
            if hasattr(src, name):
                return getattr(src, name)
        raise AttributeError(f"no SQL macro lib.{name} in sql/_lib/default.sql.j2 or the engine's file")


def environment(overrides: str | Path | None = None, engine: str = "duckdb",
                search: tuple[str | Path, ...] = ()) -> jinja2.Environment:
    """A Jinja2 environment with StrictUndefined over ``overrides`` (first),
    the folders of ``search`` (a model's own template folder outside the
    package, ``Model.template_dir``) and the package's ``sql/`` folder (shared
    by calls with the same folder state), whose templates see the macros of
    ``sql/_lib/<engine>.sql.j2`` (over the defaults) as ``lib`` (:class:`Lib`)."""
    paths = []
    key: tuple = (str(sql_dir()), engine, *(str(Path(f).resolve()) for f in search))
    if overrides is not None:
        folder = Path(overrides)
        if not folder.is_dir():
            raise SqlanonError(f"template folder {str(folder)!r} does not exist; pass an existing folder or None")
        paths.append(str(folder))
        key += (str(folder.resolve()),
                tuple(sorted((str(f.relative_to(folder)), f.stat().st_mtime_ns) for f in folder.rglob("*") if f.is_file())))
    paths += [str(f) for f in search]
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
        # where sqlanon's own templates are (a file elsewhere is a project's override)
        env.sqlanon_own = tuple(Path(f).resolve() for f in (*search, sql_dir()))
        try:
            d = dialect(engine)
            own = env.get_template(d().macro_file).module
            env.globals["lib"] = Lib(d, own, env.get_template("_lib/default.sql.j2").module)
            # the files behind ``lib``: every template may call them, so the
            # ledger's provenance lists them (:func:`hashes`)
            env.sqlanon_lib = (d().macro_file, "_lib/default.sql.j2")
        except jinja2.TemplateNotFound as exc:
            del _ENVIRONMENTS[key]
            raise SqlanonError(f"no SQL macro file for engine {engine!r}: add sql/_lib/{engine}.sql.j2 (the macros "
                               "of sql/_lib/duckdb.sql.j2 for that engine)") from exc
    return env


def steps(env: jinja2.Environment, pipeline: str, extends: str | None = None) -> list[str]:
    """Template names of a pipeline in step order (``NN_`` prefix). With
    ``extends`` (a variant's base pipeline, :class:`sqlanon.models.base.Model`),
    the base's steps and the pipeline's own, a file of the pipeline replacing
    the base's file of the same name.

    >>> [n for n in steps(environment(), "sliced_bucket", "m_invariance") if n.startswith(("s", "m_invariance/03"))]
    ['m_invariance/03_carry.sql.j2', 'm_invariance/03_merge.sql.j2', 'sliced_bucket/03_moves.sql.j2', \
'sliced_bucket/03_reserve.sql.j2', 'sliced_bucket/04_refill.sql.j2', 'sliced_bucket/06_constrained.sql.j2', 'sliced_bucket/06_holdover.sql.j2', \
'sliced_bucket/07_eligible.sql.j2', 'sliced_bucket/09_publish.sql.j2', 'sliced_bucket/90_stats.sql.j2']
    """
    by_step: dict[str, str] = {}
    for folder in (extends, pipeline) if extends else (pipeline,):
        names = {n for n in env.list_templates() if _STEP_RE.fullmatch(n[len(folder) + 1:]) and n.startswith(folder + "/")}
        if not names:
            raise SqlanonError(f"no templates for pipeline {folder!r} under sql/{folder}/")
        by_step.update((n[len(folder) + 1:], n) for n in names)
    return [by_step[step] for step in sorted(by_step)]


def imports(env: jinja2.Environment, names) -> list[str]:
    """The templates that ``names`` import or include (``{% import %}``,
    ``{% from ... import %}``, ``{% include %}``), and theirs, first seen first.

    >>> imports(environment(), ["m_invariance/09_publish.sql.j2"])
    ['_lib/hash.sql.j2', '_lib/store.sql.j2']
    """
    out: list[str] = []
    todo = list(names)
    while todo:
        source = env.loader.get_source(env, todo.pop(0))[0]
        for node in env.parse(source).find_all((jinja2.nodes.Import, jinja2.nodes.FromImport, jinja2.nodes.Include)):
            if isinstance(node.template, jinja2.nodes.Const) and node.template.value not in out:
                out.append(node.template.value)
                todo.append(node.template.value)
    return out


def parents(env: jinja2.Environment, name: str) -> list[str]:
    """The templates ``name`` extends (``{% extends "..." %}``), nearest first.

    >>> parents(environment(), "sliced_bucket/06_constrained.sql.j2")
    ['m_invariance/06_constrained.sql.j2']
    """
    out = []
    while True:
        source = env.loader.get_source(env, name)[0]
        found = [node.template.value for node in env.parse(source).find_all(jinja2.nodes.Extends)
                 if isinstance(node.template, jinja2.nodes.Const)]
        if not found:
            return out
        name = found[0]
        out.append(name)


def hashes(env: jinja2.Environment, names) -> tuple[dict[str, str], list[str]]:
    """The sha256 (hex) of the source of each template in ``names``, as the
    environment loads it (an override when the project has one), and the names
    of the files that came from the override folder (recorded in the release
    ledger). A template that extends others hashes its source and theirs
    (nearest parent first, each after a NUL), then the sources of the
    templates they import or include, so an edit of a parent or of an imported
    ``_lib`` file changes the hash too; the files listed include such parents
    and imports. The files behind the ``lib`` global (the engine's macro file
    and ``_lib/default.sql.j2``) get entries of their own."""
    sha, overridden = {}, []
    for name in [*names, *(n for n in getattr(env, "sqlanon_lib", ()) if n not in names)]:
        digest, over = _hash(env, name)
        sha[name] = digest
        overridden += [n for n in over if n not in overridden]
    return sha, overridden


# (environment, template) -> (the template object, the names of its parents and
# of the templates they import or include)
_PARENTS: dict[tuple[int, str], tuple[jinja2.Template, tuple[str, ...]]] = {}


def _chain(env: jinja2.Environment, name: str) -> tuple[jinja2.Template, ...]:
    """The template objects of ``name``, its parents and the templates they
    import: Jinja reloads an edited file (a new Template object), so the caches
    below compare these."""
    tpl = env.get_template(name)
    hit = _PARENTS.get((id(env), name))
    if hit is None or hit[0] is not tpl:
        if len(_PARENTS) > _MAX_CACHED:
            _PARENTS.clear()
        up = parents(env, name)
        hit = _PARENTS[(id(env), name)] = (tpl, (*up, *imports(env, [name, *up])))
    return (tpl, *(env.get_template(n) for n in hit[1]))


# (environment, template) -> (the template objects of it and its parents, sha256
# of their sources, those of them from an override folder): the files are read
# and hashed again only when Jinja has reloaded one of them
_HASHES: dict[tuple[int, str], tuple[tuple[jinja2.Template, ...], str, list[str]]] = {}


def _hash(env: jinja2.Environment, name: str) -> tuple[str, list[str]]:
    import hashlib

    chain = _chain(env, name)
    hit = _HASHES.get((id(env), name))
    if hit is not None and hit[0] == chain:
        return hit[1], hit[2]
    digest, over = hashlib.sha256(), []
    own = getattr(env, "sqlanon_own", (Path(sql_dir()).resolve(),))
    for i, tpl in enumerate(chain):
        source, filename, _ = env.loader.get_source(env, tpl.name)
        digest.update((b"\0" if i else b"") + source.encode("utf-8"))
        if filename and not any(f in Path(filename).resolve().parents for f in own):
            over.append(tpl.name)
    if len(_HASHES) > _MAX_CACHED:
        _HASHES.clear()
    _HASHES[(id(env), name)] = (chain, digest.hexdigest(), over)
    return digest.hexdigest(), over


# (environment, template, context with the ``vary`` strings replaced) -> the
# template objects rendered (it and its parents) and its statements with their
# parameters, in that normalized form (bounded like an LRU cache)
_RENDERED: dict[tuple, tuple[tuple[jinja2.Template, ...], tuple[tuple[str, frozenset[str]], ...]]] = {}


def render_macro(env: jinja2.Environment, name: str, macro: str, *args) -> str:
    """SQL from Jinja macro ``macro`` of template ``name`` called with ``args``
    (a model hook's statement, :meth:`sqlanon.models.base.StepContext.render`).

    >>> render_macro(environment(), "m_invariance/hooks.sql.j2", "plan_insert", {"plan": "p"})
    'INSERT INTO p VALUES (?, ?)'
    """
    return str(getattr(env.get_template(name).module, macro)(*args))


def render(env: jinja2.Environment, name: str, context: dict, *, vary: dict[str, str] | None = None) -> list[str]:
    """Render template ``name`` with an explicit context; returns its statements
    (see :func:`statements`).

    ``vary`` (e.g. :meth:`sqlanon.project.Project.placeholders`): strings of
    the context -> placeholders (holding a NUL, which no template holds). The
    rendering is cached under the context with those strings replaced, so a
    release of another project with otherwise the same context reuses it
    (Jinja rendering and tokenizing cost about 25 ms per release) with the
    strings put back; a template renders such strings as they are, never
    computes on them."""
    chain = _chain(env, name)  # Jinja reloads an edited file: a new Template object
    tpl = chain[0]
    key = None
    if vary:
        norm = repr(context)
        for real, ph in vary.items():
            norm = norm.replace(real, ph)
        key = (id(env), name, norm)
        hit = _RENDERED.get(key)
        if hit is not None and hit[0] == chain:
            if len(_PARAMETERS) > _MAX_CACHED:
                _PARAMETERS.clear()
            out = []
            for stmt, names in hit[1]:
                for real, ph in vary.items():
                    stmt = stmt.replace(ph, real)
                _PARAMETERS[stmt] = names
                out.append(stmt)
            return out
    text = tpl.render(**context)
    try:
        stmts = list(statements(text))
    except TokenError as exc:
        raise SqlanonError(f"template {name} does not render to SQL that DuckDB's tokenizer reads: {exc}") from exc
    if key is not None:
        normalized = []
        for stmt in stmts:
            names = parameters(stmt)
            for real, ph in vary.items():
                stmt = stmt.replace(real, ph)
            normalized.append((stmt, names))
        if len(_RENDERED) > _MAX_CACHED:
            _RENDERED.clear()
        _RENDERED[key] = (chain, tuple(normalized))
    return stmts


# statement -> its parameters, filled when a template's text is split (one
# tokenizer pass per rendered text; bounded like an LRU cache)
_PARAMETERS: dict[str, frozenset[str]] = {}
_MAX_CACHED = 4096


def _scan(sql: str) -> list[tuple[str, frozenset[str]]]:
    """One tokenizer pass over ``sql``: its statements with their parameters."""
    out, begin, code, names = [], 0, False, set()
    prev = None
    for tok in _DUCKDB.tokenize(sql):
        if tok.token_type == TokenType.SEMICOLON:
            if code:
                out.append((sql[begin:tok.end + 1].strip(), frozenset(names)))
            begin, code, names = tok.end + 1, False, set()
        else:
            code = True
            if (prev is not None and prev.token_type == TokenType.PARAMETER and prev.text == "$"
                    and tok.start == prev.end + 1 and _NAME_RE.match(tok.text)):
                names.add(tok.text)
        prev = tok
    if code:
        out.append((sql[begin:].strip(), frozenset(names)))
    return out


@functools.lru_cache(maxsize=256)
def statements(sql: str) -> tuple[str, ...]:
    r"""The statements of ``sql``, each with its ``;`` and the comments before
    it; parts holding only comments are dropped. A ``;`` in a string or a
    comment does not end a statement.

    >>> statements("-- one;\nSELECT 'a;b'; -- two;\n\nSELECT 2")
    ("-- one;\nSELECT 'a;b';", '-- two;\n\nSELECT 2')
    """
    found = _scan(sql)
    if len(_PARAMETERS) > _MAX_CACHED:
        _PARAMETERS.clear()
    _PARAMETERS.update(found)
    return tuple(stmt for stmt, _ in found)


def parameters(statement: str) -> frozenset[str]:
    r"""The ``$name`` parameters of ``statement`` (not those in strings or comments).

    >>> sorted(parameters("SELECT $m, '$x--$y' -- $z\n, $seed"))
    ['m', 'seed']
    """
    used = _PARAMETERS.get(statement)
    if used is None:
        used = frozenset().union(*(names for _, names in _scan(statement)))
    return used


def params_for(statement: str, params: dict) -> dict:
    """The subset of ``params`` that ``statement`` references as ``$name``."""
    used = parameters(statement)
    missing = used - set(params)
    if missing:
        raise SqlanonError(f"template parameter ${sorted(missing)[0]} has no value; pass it in the release parameters")
    return {k: v for k, v in params.items() if k in used}
