"""(tau, m)-slicedBucket (Khan et al., Trans Emerging Tel Tech 2022, seed 003):
m-invariant releases that fill buckets with real records held back in a
Cach instead of counterfeits, and keep a person's signatures equal or disjoint
over its whole history (the Del/Upd rule of Algorithm 4). Templates
sql/sliced_bucket/: the model extends m-invariance's pipeline (its steps
04, 06, 07, 09 and 90 ``{% extends %}`` m-invariance's and override some of
their blocks, the others, step 3b's merge among them, are m-invariance's;
steps 3m moves, 3r Cach reserve and 6h holdovers are its own);
decisions and measurements in docs/sliced_bucket.md.

Parameters: ``m`` (the privacy parameter, as m-invariance), ``tau`` (a person
is held back in at most tau releases before it is published; seed 003 leaves
tau undefined, docs/sliced_bucket.md says why we read it so), ``cach`` (how
many persons of each SA value the Cach keeps; Algorithm 2 keeps one) and
``hold`` (an update is held over in at most hold consecutive releases, then
published with its current value while a ghost keeps the person's signature:
docs/sliced_bucket.md, "Bounded hold-over").

Its results (sqlanon.ReleaseResult): ``held`` = persons with no real row (the
Cach, re-inserted persons shown by a ghost only), ``suppressed`` = updates
held over (published with their previous value; ``result_fields``).
"""

from __future__ import annotations

from .. import eligibility as _eligibility
from ..errors import SqlanonError
from ..ident import require_m
from . import m_invariance as _mi
from .base import Model, Parameter, StepContext


def _count(v, name: str, low: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise SqlanonError(f"model 'sliced-bucket': {name} must be an integer >= {low}, got {v!r}")
    return v


def additions(c: list[int], m: int) -> int:
    """Counterfeits Algorithm 1 adds to make counts ``c`` m-eligible (zeros are
    values without a row; fewer than m values with rows get counterfeits of
    other values, as m-invariance's plan does).

    >>> additions([3, 3, 3], 3), additions([5, 1, 1], 3), additions([2, 1], 3), additions([], 3)
    (0, 8, 3, 0)
    """
    nz = [x for x in c if x > 0]
    if not nz:
        return 0
    if len(nz) < m:
        return sum(_eligibility.targets(nz + [1] * (m - len(nz)), m, "counterfeit")) - sum(nz)
    return max(0, m * max(nz) - sum(nz))


def cach(c: list[int], reserved: list[int], room: list[int], m: int) -> list[int]:
    """How many persons of each SA value step 7 holds back (the Cach), from the
    pool's counts ``c``: at least the ``reserved`` ones (step 3r; all zero when
    the Cach cannot cover every value), at most ``room`` (the lone persons:
    not held back in tau releases already, a QI tuple of their own), and an
    m-eligible set (a held person's absence then
    tells at most 1/m of a value: docs/sliced_bucket.md). Among such sets, the
    one that leaves the fewest counterfeits for the published rest, then the
    smallest: seed 003 caches the last records that cannot form a group with
    the others instead of adding counterfeits (Algorithm 6).

    >>> cach([10, 10, 10, 10], [1, 1, 1, 1], [10, 10, 10, 10], m=3)  # the reserve only
    [1, 1, 1, 1]
    >>> cach([6, 6, 1, 1, 1], [1, 1, 1, 1, 1], [6, 6, 1, 1, 1], m=3)  # the reserve alone: 5 counterfeits, this: 3
    [3, 3, 1, 1, 1]
    >>> cach([9, 1, 1, 1], [1, 1, 1, 1], [9, 1, 1, 1], m=3)  # holding more of 9 is not m-eligible
    [1, 1, 1, 1]
    >>> cach([9, 1, 1, 1], [0, 0, 0, 0], [9, 1, 1, 1], m=3)  # no reserve: nothing is held
    [0, 0, 0, 0]
    """
    if not any(reserved):
        return [0] * len(c)
    # holding back an m-eligible set never lowers the counterfeits below those
    # of the whole pool (docs/threat_model.md, "Absence"), so the reserve alone
    # is the answer when it costs none
    least = additions(c, m)
    if m * max(reserved) <= sum(reserved) and additions([n - r_ for n, r_ in zip(c, reserved)], m) <= least:
        return list(reserved)
    best = None
    for t in range(max(c), -1, -1):
        # publish at most t of each value; the rest (and the reserve) is held
        h = [min(r_, max(res, n - t)) for n, r_, res in zip(c, room, reserved)]
        # an m-eligible held set: add persons of other values while one value is
        # above |H|/m (the values with most room first)
        while sum(h) and m * max(h) > sum(h):
            spare = [(r_ - x, i) for i, (x, r_) in enumerate(zip(h, room)) if r_ > x and x < max(h)]
            if not spare:
                break
            h[max(spare)[1]] += 1
        if sum(h) and m * max(h) > sum(h):
            continue
        key = (additions([n - x for n, x in zip(c, h)], m), sum(h))
        if best is None or key < best[0]:
            best = (key, h)
        if key[0] <= least:
            break  # no held set does better; lower caps only hold more
    return best[1] if best else [0] * len(c)


def _sql(step: StepContext, macro: str, *args) -> str:
    """SQL: macro ``macro`` of this model's hook statements (sql/sliced_bucket/hooks.sql.j2)."""
    return step.render("sliced_bucket/hooks.sql.j2", macro, *args)


def moves(step: StepContext) -> None:
    """Before step 3m: its parameters."""
    step.params["hold"] = step.values["hold"]


def reserve(step: StepContext) -> None:
    """Before step 3r: its parameters."""
    step.params["tau"] = step.values["tau"]


def joint_targets(step: StepContext) -> None:
    """Before step 6: m-invariance's joint target plan, for the persons whose
    target step 6 keeps: a person that may not move (step 3m: not free, not
    overdue) keeps only its signature A, so it is planned for only when A
    holds its value (the plan's fixed targets). Step 6 leaves the same persons
    (and the stale ones, which aim inside their cover) out of its ranks."""
    _mi.joint_targets(step, join=_sql(step, "joint_join", step.tables), where=_sql(step, "joint_where"))


def plan(step: StepContext) -> None:
    """Before step 7: the Cach and the counterfeits of the pool (per SA value:
    the count, the reserved and the lone persons), then m-invariance's QI value
    lists."""
    T, m = step.tables, step.privacy
    counts = step.engine.fetch(_sql(step, "pool_counts", T))
    _mi.step8_context(step, sum(int(r[1]) for r in counts))
    values = [r[0] for r in counts]
    c = [int(r[1]) for r in counts]
    room = [int(r[3]) for r in counts]
    # the Cach to keep: up to `cach` lone persons per value, when step 3r
    # reserved one of every value (the Cach then covers them all)
    covered = any(int(r[2]) for r in counts)
    keep = [min(step.values["cach"], x) if covered else 0 for x in room]
    while sum(keep) and m * max(keep) > sum(keep) and max(keep) > 1:
        keep[keep.index(max(keep))] -= 1  # an m-eligible Cach: trim the largest, never below one
    if sum(keep) and m * max(keep) > sum(keep):
        keep = [0] * len(keep)  # fewer values than m: no Cach
    h = cach(c, keep, room, m)
    rest = [(v, n - x) for v, n, x in zip(values, c, h) if n - x > 0]
    adds = _mi.plan_rows(step, [v for v, _ in rest], [n for _, n in rest], "counterfeit")
    _mi.write_plan(step, [(v, -x) for v, x in zip(values, h) if x] + adds)
    _mi.domains(step)


MODEL = Model(
    name="sliced-bucket",
    pipeline="sliced_bucket",
    summary="(tau, m)-slicedBucket: m-invariance filled from a Cach of held-back real records (seed 003)",
    parameters=(
        Parameter("m", "every group holds m distinct SA values; a person's signatures are equal or disjoint",
                  lambda v: require_m(v, name="m")),
        Parameter("tau", "a person is held back in at most tau releases before it is published",
                  lambda v: _count(v, "tau", 1), default=3, example="3"),
        Parameter("cach", "persons of each SA value the Cach keeps for later vacancies (seed 003 Algorithm 2: 1)",
                  lambda v: _count(v, "cach", 0), default=3, example="3"),
        Parameter("hold", "an update is held over in at most hold releases; then it is published with its "
                  "current value and the person keeps a ghost at its signature",
                  lambda v: _count(v, "hold", 0), default=1, example="1"),
    ),
    # the anatomy form only: an update moves a person to a disjoint signature,
    # which the release gate's test for generalized boxes (the exact-QI
    # intersection from the first release holds m values) refuses
    outputs=("anatomy",),
    # joint_targets: step 6's joint plan (the hook joint_targets);
    # reserve_slots: m-invariance's reserved places for persons away one
    # release (step 4); hold_budget (step 3m: the share of the source whose
    # update may wait) off: with hold 3 and 2 reserved releases the fakes were
    # lower, but the red team's agedev detector found the counterfeits
    # (docs/sliced_bucket.md, "The merge: what is on by default")
    context={"mask_qi": (), "joint_targets": True, "reserve_slots": 1, "hold_budget": None},
    hooks={"03_moves": moves, "03_reserve": reserve, "06_constrained": joint_targets, "07_eligible": plan},
    temps=_mi.MODEL.temps + ("tuples", "cover", "mv", "stale", "lone", "resv", "kept", "hold", "hfill", "aged"),
    temp_views=_mi.MODEL.temp_views,
    state=("groups",),
    tables=_mi.MODEL.tables,
    result_fields=("suppressed",),  # updates held over (published with their previous value)
    signatures=True,
    extends="m_invariance",
    max_sa_values=_mi.MAX_SA_VALUES,
)
