"""Slow, obvious pure-Python reference for dynamic Anatomy (seed 004 §4).

Used by the tests only, as the independent check of the SQL implementation:

* ``definition6_violations`` -- Definition 6 against the previous release:
  every new partition has >= l distinct SA values, and for every pair
  (new partition, related previous partition) the multiset differences of SA
  values in both directions are empty or hold >= l distinct values.  Two
  partitions are *related* when they share a person id (a held row keeps its
  id and carries its previous SA value).
* ``penalty_dl`` -- eq. 1-2.  Read literally, eq. 1 adds
  ``|D^j|*|HD| + |SP|`` to every partition, which does not give the paper's
  own DL = 89 for Table 12.  The reading that does is
  ``DL = sum_g |par_g|^2 + |D^j| * (|HD| + |SP|)`` with the penalty term
  counted once per release: 4^2 + 5^2 + 3^2 + 13 * (1 + 2) = 89.
* ``exhaustive_daa`` -- the paper's exhaustive search, on tiny inputs: every
  choice per current row (publish; suppress; for an updated row also "hold":
  suppress the new version and publish the old one; for a deleted row: gone or
  "hold", publish its previous tuple, Definition 5) times every set partition
  of the published rows; returns the minimum-DL release satisfying
  Definition 6.  Suppressing everything is always allowed, so a release always
  exists; "feasible without suppression" is ``best.suppressed == 0``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import product


def set_partitions(items):
    """All set partitions of a list (Bell(n) of them)."""
    items = list(items)
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1 :]
        yield [[first]] + part


def _groups(assign: dict, sa: dict) -> dict:
    """pid -> {id: sa} from id -> pid."""
    out: dict = {}
    for i, g in assign.items():
        out.setdefault(g, {})[i] = sa[i]
    return out


def definition6_violations(prev_assign, prev_sa, new_assign, new_sa, l):
    """List of violations (kind, new pid, old pid, values) of Definition 6.

    ``prev_assign``/``new_assign``: id -> partition id of the previous / new
    release; ``prev_sa``/``new_sa``: id -> published SA value.  An empty list
    means the new release satisfies Definition 6 w.r.t. the previous one.
    """
    out = []
    new_groups = _groups(new_assign, new_sa)
    old_groups = _groups(prev_assign, prev_sa) if prev_assign else {}
    for g, members in new_groups.items():
        if len(set(members.values())) < l:
            out.append(("not-l-diverse", g, None, sorted(set(members.values()))))
    for g, members in new_groups.items():
        related = {prev_assign[i] for i in members if i in prev_assign}
        new_ms = Counter(members.values())
        for h in sorted(related, key=str):
            old_ms = Counter(old_groups[h].values())
            for kind, diff in (("new-minus-old", new_ms - old_ms), ("old-minus-new", old_ms - new_ms)):
                if diff and len(diff) < l:
                    out.append((kind, g, h, sorted(diff)))
    return out


def penalty_dl(partition_sizes, n_rows, held, suppressed):
    """Seed 004 eq. 1-2 as the paper's worked example evaluates it (DL = 89)."""
    return sum(s * s for s in partition_sizes) + n_rows * (held + suppressed)


@dataclass
class DaaResult:
    dl: int
    assign: dict  # id -> pid (1-based) of the published rows
    sa: dict  # id -> published SA value (old value for held rows)
    held: frozenset
    suppressed: frozenset


def exhaustive_daa(prev_assign, prev_sa, current, l):
    """Minimum-DL release of ``current`` (id -> SA) satisfying Definition 6.

    Exponential: meant for <= ~7 current rows.  Ties are broken by the first
    release found in a fixed enumeration order (deterministic).
    """
    n = len(current)
    deleted = sorted(i for i in prev_sa if i in prev_assign and i not in current)
    ids = sorted(current) + deleted
    updated = {i for i in current if i in prev_sa and prev_sa[i] != current[i]}
    options = [
        ("gone", "hold") if i not in current else ("pub", "sup", "hold") if i in updated else ("pub", "sup")
        for i in ids
    ]
    best = None
    for choice in product(*options):
        held = frozenset(i for i, c in zip(ids, choice) if c == "hold")
        # holding suppresses the new version (SP) and publishes the old one (HD)
        suppressed = frozenset(i for i, c in zip(ids, choice) if c == "sup" or (c == "hold" and i in current))
        pub = [i for i, c in zip(ids, choice) if c in ("pub", "hold")]
        penalty = n * (len(held) + len(suppressed))
        sa = {i: (prev_sa[i] if i in held else current[i]) for i in pub}
        if best is not None and penalty >= best.dl:
            continue
        for parts in set_partitions(pub):
            dl = penalty + sum(len(p) ** 2 for p in parts)
            if best is not None and dl >= best.dl:
                continue
            assign = {i: k + 1 for k, p in enumerate(parts) for i in p}
            if not definition6_violations(prev_assign, prev_sa, assign, sa, l):
                best = DaaResult(dl, assign, sa, held, suppressed)
    return best
