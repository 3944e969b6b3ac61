"""Step 6's joint target choice (sqlanon.models.m_invariance.joint_plan,
docs/publisher.md step 6): every planned target is one the person could have
aimed at alone (its value, m values, none of its earlier signatures' values),
every class that has such a target gets one for each of its persons, and the
plan never opens more groups than one target per class would."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sqlanon.models.m_invariance import joint_plan


def _groups(plan, same):
    """Groups step 6 opens for the plan: per target, its most persons of one value."""
    per: dict[int, dict[int, int]] = {}
    for v, _, t, n in plan:
        per.setdefault(t, {}).setdefault(v, 0)
        per[t][v] += n
    for (t, v), n in same.items():
        per.setdefault(t, {}).setdefault(v, 0)
        per[t][v] += n
    return sum(max(d.values()) for d in per.values())


@st.composite
def cases(draw):
    nv = draw(st.integers(3, 12))
    m = draw(st.integers(2, min(6, nv)))
    bits = [1 << i for i in range(nv)]
    full = (1 << nv) - 1
    free = {}
    for _ in range(draw(st.integers(0, 12))):
        v = draw(st.sampled_from(bits))
        u = draw(st.integers(0, full)) & ~v
        free[(v, u)] = free.get((v, u), 0) + draw(st.integers(1, 6))
    same = {}
    for _ in range(draw(st.integers(0, 3))):
        t = draw(st.sets(st.sampled_from(bits), min_size=m, max_size=m))
        tm = sum(t)
        same[(tm, draw(st.sampled_from(sorted(t))))] = draw(st.integers(1, 4))
    new = {b: draw(st.integers(0, 5)) for b in bits}
    return free, same, new, bits, m


@settings(max_examples=300, deadline=None)
@given(cases())
def test_joint_plan_targets_are_legal_and_cover_every_person(case):
    free, same, new, bits, m = case
    plan = joint_plan(free, same, new, bits, m)
    got: dict[tuple[int, int], int] = {}
    for v, u, t, n in plan:
        assert n > 0
        assert t & v, "the target holds the person's value"
        assert bin(t).count("1") == m, "a target has m values"
        assert not t & u, "a target shares no value with the person's earlier signatures"
        got[(v, u)] = got.get((v, u), 0) + n
    for (v, u), n in free.items():
        room = sum(1 for b in bits if not b & u)  # values outside the union (v among them)
        assert got.get((v, u), 0) == (n if room >= m else 0)
    # never more groups than each class aiming at a target of its own
    alone = sum(n for (v, u), n in free.items() if sum(1 for b in bits if not b & u) >= m)
    assert _groups(plan, same) <= _groups([], same) + alone


def test_persons_of_different_values_share_a_group():
    # five persons, values 0..4, each with an earlier signature among values 5..9:
    # one target {0..4} takes them all (one group, no counterfeit)
    bits = [1 << i for i in range(10)]
    free = {(1 << i, 0b1111100000): 1 for i in range(5)}
    plan = joint_plan(free, {}, {b: 0 for b in bits}, bits, 5)
    assert {t for _, _, t, _ in plan} == {0b11111}
    assert _groups(plan, {}) == 1
