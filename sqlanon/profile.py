"""Per-statement timings of a release, logged at DEBUG level by the
``sqlanon.profile`` logger (the Publisher's and static Anatomy's)."""

from __future__ import annotations

import logging
import time

#: per-statement timings of every release are logged here at DEBUG level, e.g.
#: ``logging.basicConfig(); logging.getLogger("sqlanon.profile").setLevel(logging.DEBUG)``
PROFILE_LOG = logging.getLogger("sqlanon.profile")


class _Profile:
    """Per-statement timings of a release (wall clock, and the process's CPU
    time over all its threads: on shared cores the CPU time moves less with
    other jobs' load), kept when ``PROFILE_LOG`` logs DEBUG messages and logged
    as one message when the release has committed."""

    def __init__(self) -> None:
        self.on, self.rows = PROFILE_LOG.isEnabledFor(logging.DEBUG), []
        self.t, self.c = time.perf_counter(), time.process_time()

    def mark(self, label: str) -> None:
        if self.on:
            now, cpu = time.perf_counter(), time.process_time()
            self.rows.append((label, now - self.t, cpu - self.c))
            self.t, self.c = now, cpu

    def report(self, head: str) -> None:
        if self.on:
            total = sum(s for _, s, _ in self.rows) or 1.0
            cpu = sum(c for _, _, c in self.rows)
            lines = [f"{s * 1000:9.1f} ms {100 * s / total:5.1f}% {c * 1000:9.1f} ms cpu  {label}"
                     for label, s, c in self.rows]
            PROFILE_LOG.debug("profile of %s: %.3f s (%.3f s cpu)\n%s", head, total, cpu, "\n".join(lines))


def _stmt_label(step: str, i: int, stmt: str) -> str:
    first = next((x.strip() for x in stmt.splitlines() if x.strip() and not x.strip().startswith("--")), "")
    return f"{step}#{i} {first[:70]}"
