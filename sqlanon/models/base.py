"""What a publishing model declares (SPEC §9; docs/architecture.md, "How to add
a model"). A model is a :class:`Model` value in a module of its own under
``sqlanon/models/`` plus a template folder ``sql/<pipeline>/`` (or, defined
outside the package, its own module and folder: ``template_dir`` and
:func:`sqlanon.models.register`); the
:class:`sqlanon.Publisher` keeps the transaction, the ledger, the step loop and
the release gate, and asks the model only what this class holds: its
parameters and how to check them, the outputs it can write, the extra template
context, the hooks to run before a step (keyed by the step's full name; each
gets a :class:`StepContext`), the
step whose last statement returns the release's counts (named like the fields
of :class:`sqlanon.ReleaseResult`), its temporary tables and the private state
a later release needs. Like ARX's ``PrivacyCriterion`` and pycanon's
one-module-per-model, a model says what it supports; the engine does the
iterating.

>>> from sqlanon.ident import require_m
>>> toy = Model("toy", "toy", "a toy", parameters=(Parameter("k", "group size", require_m, example="3"),))
>>> toy.bind({"k": 4})
{'k': 4}
>>> toy.bind({})
Traceback (most recent call last):
...
sqlanon.errors.SqlanonError: model 'toy' needs the privacy parameter k (e.g. k=3)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import SqlanonError

#: the published forms a model may write (docs/contracts.md)
OUTPUTS = ("anatomy", "generalized")


@dataclass(frozen=True)
class Parameter:
    """One parameter of a model: its name, one line of help, ``check`` (takes
    the given value, returns the value to use or raises :class:`SqlanonError`),
    ``default`` (None: the parameter must be given), ``aliases`` (other names
    accepted for it), ``example`` (shown when it is missing) and ``type`` (how
    the CLI's ``--param name=value`` converts the text)."""

    name: str
    help: str
    check: Callable[[Any], Any]
    default: Any = None
    aliases: tuple[str, ...] = ()
    example: str = "3"
    type: Callable[[str], Any] = int


@dataclass
class StepContext:
    """What a hook sees of the release it runs in (not the Publisher):
    ``engine`` (run SQL: ``fetch``, ``execute``, ``executemany``; its constants
    such as ``mask_values``), ``values`` (the model's parameters, bound),
    ``release`` (its number), ``params`` (the ``$`` parameters of the
    release's statements; a hook may add to them), ``ctx`` (the template
    context; a hook may add to it), ``tables`` (the project's tables and the
    release's temporary tables as written in SQL: ``ctx["T"]``), ``cols`` (the
    source's column types by name), ``sa`` (the SA column's name), ``seed``,
    and :meth:`render` (SQL from a Jinja macro of the template folders)."""

    engine: Any
    values: Mapping[str, Any]
    release: int
    params: dict
    ctx: dict
    cols: Mapping[str, str]
    sa: str
    seed: int
    parameter: str
    render_macro: Callable[..., str]

    @property
    def tables(self) -> Mapping[str, str]:
        return self.ctx["T"]

    @property
    def privacy(self) -> int:
        """The value of the privacy parameter (``m``, ``l``)."""
        return self.values[self.parameter]

    def render(self, template: str, macro: str, *args) -> str:
        """SQL: Jinja macro ``macro`` of ``template`` (e.g. ``"_lib/hash.sql.j2"``,
        ``"portable_hash"``) called with ``args``."""
        return self.render_macro(template, macro, *args)


#: a hook run before a step: hook(step: StepContext); it may add to the
#: template context ``step.ctx`` and the parameters ``step.params`` and make
#: temporary tables
Hook = Callable[[StepContext], None]


@dataclass(frozen=True)
class Model:
    """A publishing model (see the module docstring). The first parameter is the
    privacy parameter (``m``, ``l``): the release gate and the audit measure
    exposure against it. ``signatures``: the model keeps SA signatures as bit
    masks (the state table is ``groups``; too few SA values is an error at any
    release, not only the first). ``max_sa_values``: the most distinct SA
    values a release may have (None: no limit; the engine's mask capacity
    ``signature_values`` lowers it). ``gated``: the release gate refuses an
    unsafe release (else it only reports it; :meth:`refuses` may decide by
    parameter). ``unsafe_baseline``: the model exists to be broken; its results
    say so.

    What else the Publisher reads from the declaration (it knows no model by
    name): ``tables``, the model's private state tables (key -> suffix of the
    name ``sqlanon_private.<P><suffix>``, made by the model's templates with
    ``CREATE TABLE IF NOT EXISTS``; ``{{ T.<key> }}`` in the templates, dropped
    by ``sqlanon purge``); ``state``, the keys of the state tables a later
    release needs (checked before it runs); ``result_fields``, the optional
    counts of :class:`sqlanon.ReleaseResult` (``suppressed``, ``dl``) its
    stats step returns, shown by the result's line and notebook display;
    ``template_dir``, the folder that holds ``<pipeline>/`` when it is not the
    package's ``sql/`` (a model defined outside the package,
    :func:`sqlanon.models.register`).

    ``extends``: the template folder of the pipeline this model is a variant
    of; its steps are that folder's steps, a file of the model's own folder
    replacing the step of the same name (and ``{% extends %}``-ing it to change
    only its blocks) or adding a step (:func:`sqlanon.templates.steps`)."""

    name: str
    pipeline: str
    summary: str
    parameters: tuple[Parameter, ...]
    outputs: tuple[str, ...] = OUTPUTS
    context: Mapping[str, Any] = field(default_factory=dict)
    hooks: Mapping[str, Hook] = field(default_factory=dict)
    stats_step: str = "90_stats"
    temps: tuple[str, ...] = ()
    temp_views: tuple[str, ...] = ()
    state: tuple[str, ...] = ("rows",)
    tables: Mapping[str, str] = field(default_factory=dict)
    result_fields: tuple[str, ...] = ()
    signatures: bool = False
    max_sa_values: int | None = None
    template_dir: str | None = None
    gated: bool = True
    unsafe_baseline: bool = False
    extends: str | None = None

    @property
    def parameter(self) -> str:
        """The name of the privacy parameter (the first one)."""
        return self.parameters[0].name

    def refuses(self, values: dict) -> bool:
        """Whether the release gate refuses a release that exposes persons (else
        the release is committed and its exposure reported)."""
        return self.gated

    def bind(self, given: Mapping[str, Any]) -> dict:
        """The model's parameter values from ``given`` (None = not given; an alias
        counts as its parameter), checked, in declaration order."""
        given = {k: v for k, v in given.items() if v is not None}
        names = {p.name for p in self.parameters} | {a for p in self.parameters for a in p.aliases}
        for k in given:
            if k not in names:
                others = [p.name for p in self.parameters[1:]]
                raise SqlanonError(f"model {self.name!r} takes the privacy parameter {self.parameter}, not {k}"
                                   + (f" (its other parameters: {', '.join(others)})" if others else ""))
        values = {}
        for i, p in enumerate(self.parameters):
            kind = "privacy parameter" if i == 0 else "parameter"
            found = [(n, given[n]) for n in (p.name, *p.aliases) if n in given]
            if len({v for _, v in found}) > 1:
                got = " and ".join(f"{n} = {v!r}" for n, v in found)
                raise SqlanonError(f"model {self.name!r} takes one {kind} {p.name}; got {got}")
            if not found and p.default is None:
                raise SqlanonError(f"model {self.name!r} needs the {kind} {p.name} (e.g. {p.name}={p.example})")
            values[p.name] = p.check(found[0][1] if found else p.default)
        return values
