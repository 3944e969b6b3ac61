"""A toy publishing model defined outside the sqlanon package (issue 36 item
8): its own module and its own template folder (``sql/toy/`` next to this
file), joined to the registry through the public call
:func:`sqlanon.models.register`. It proves the model seam: the Publisher, the
release gate and the audit take it by its declaration alone.

The model (frozen groups, inserts only): a person new to the project joins
a group of m persons of m distinct SA values, which it keeps in every later
release (its signature never changes, as in m-invariance); persons of a
value with no such group yet are held back until there is one. Its hook
(Python, before step 02) refuses a release that deletes or updates a person,
which this toy does not handle, through the
:class:`~sqlanon.models.base.StepContext` it is given.
"""

from __future__ import annotations

from pathlib import Path

from sqlanon.errors import SqlanonError
from sqlanon.ident import require_m
from sqlanon.models import Model, Parameter, StepContext

TEMPLATES = Path(__file__).parent / "sql"


def inserts_only(step: StepContext) -> None:
    """Before step 02: the release diff holds no deleted or updated person."""
    (n,) = step.engine.fetch(f"SELECT count(*) FROM {step.tables['cls']} "
                             "WHERE sqlanon__class IN ('deleted', 'updated')")[0]
    if n:
        raise SqlanonError(f"release {step.release}: the toy model publishes inserts only; {n} persons were "
                           "deleted or updated")
    step.ctx["group_size"] = step.privacy  # (the template reads it: the context reaches the templates)


MODEL = Model(
    name="toy-frozen",
    pipeline="toy",
    summary="frozen groups of m persons of m distinct SA values, inserts only (a toy defined outside the package)",
    parameters=(Parameter("m", "every group holds m persons of m distinct SA values",
                          lambda v: require_m(v, name="m")),),
    outputs=("anatomy",),
    hooks={"02_group": inserts_only},
    temps=("snap", "cls", "newg"),
    tables={"toyrows": "__toyrows"},  # its private state: every grouped person and its group
    state=("toyrows",),
    template_dir=str(TEMPLATES),
)
