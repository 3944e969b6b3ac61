"""No protection at all: every person's current row is published as a group of
its own (exact QI next to its SA value). A baseline for the audit and its
tests: an adversary who links by QI reads every SA value, so the audit must
flag it. Templates sql/unprotected/.

The parameter ``m`` protects nothing; it is the m that the release gate (which
only reports here) and ``sqlanon audit`` measure the exposure against.
"""

from __future__ import annotations

from ..ident import require_m
from .base import Model, Parameter

MODEL = Model(
    name="unprotected",
    pipeline="unprotected",
    summary="publish every row as it is, no protection: a baseline the audit must flag",
    parameters=(Parameter("m", "not enforced: the m the release gate and the audit measure exposure against",
                          lambda v: require_m(v, name="m")),),
    outputs=("anatomy",),
    temps=("snap", "cls"),
    tables={"rows": "__rows"},  # the published rows (sql/unprotected/01_snapshot)
    gated=False,
    unsafe_baseline=True,
)
