"""A logging filter for the benchmarks: each of sqlanon's warnings once per
(project, column) in a run. A benchmark publishes the same setting over many
releases and seeds, and the publisher warns on every release (the right thing
for a user, whose releases are separate events); here one line says it."""

from __future__ import annotations

import logging


class Once(logging.Filter):
    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.msg, *(record.args or ())[:2]) if isinstance(record.args, tuple) else (record.msg,)
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


def warn_once() -> None:
    """Install the filter on logger ``sqlanon`` (where the publisher warns)."""
    logging.getLogger("sqlanon").addFilter(Once())
