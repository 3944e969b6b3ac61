"""The Spark engine's committed state: a warehouse folder of Parquet table
versions and the manifest that names the committed one of each (no pyspark
needed; the engine writes the Parquet).

Atomicity without multi-statement transactions: a transaction's writes stay in
the session until COMMIT, which writes each changed table to a new version
directory (``tables/<schema>/<name>/<version>``) and then replaces the
manifest (:meth:`Warehouse.publish`: write a temporary file, fsync, rename: one
atomic step on a POSIX file system). The manifest is the commit marker: a
driver killed before the rename leaves version directories no manifest names,
and the next engine on that warehouse deletes them (:meth:`Warehouse.sweep`).
One writer at a time: a transaction holds an exclusive lock on
``<warehouse>/.lock`` (:meth:`Warehouse.lock`).

>>> import tempfile
>>> w = Warehouse(tempfile.mkdtemp())
>>> w.manifest()
{'seq': 0, 'tables': []}
>>> w.lock(); w.publish({"seq": 1, "tables": []}, "v1"); w.unlock()
>>> w.manifest()["seq"]
1
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

from .errors import SparkBusy

MAIN = "main"
MANIFEST = "manifest.json"


class Warehouse:
    """The folder ``root`` (on a cluster, a path every executor reaches)."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root).absolute()
        (self.root / "tables").mkdir(parents=True, exist_ok=True)
        self._lockf = None

    def manifest(self) -> dict:
        """The committed manifest: ``seq`` (commits so far), ``schemas``, and
        ``tables``: [{schema, name, path}] (path relative to the root)."""
        p = self.root / MANIFEST
        return json.loads(p.read_text()) if p.exists() else {"seq": 0, "tables": []}

    def path(self, rel: str) -> str:
        return str(self.root / rel)

    @staticmethod
    def new_version() -> str:
        return uuid.uuid4().hex[:12]

    @staticmethod
    def version_dir(key: tuple[str, str], version: str) -> str:
        return f"tables/{key[0]}/{key[1]}/{version}"

    # ------------------------------------------------------------------ lock
    def lock(self) -> None:
        """Take the write lock, or raise SparkBusy (another engine holds it)."""
        f = open(self.root / ".lock", "a+")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.close()
            raise SparkBusy(f"the warehouse {str(self.root)!r} is being written by another Spark engine; "
                            "run again when it has finished") from None
        self._lockf = f

    def unlock(self) -> None:
        if self._lockf is not None:
            fcntl.flock(self._lockf, fcntl.LOCK_UN)
            self._lockf.close()
            self._lockf = None

    @contextlib.contextmanager
    def try_locked(self) -> Iterator[bool]:
        """The write lock for the block if no other engine holds it (yields
        whether it got it)."""
        try:
            self.lock()
        except SparkBusy:
            yield False
            return
        try:
            yield True
        finally:
            self.unlock()

    # ---------------------------------------------------------------- commit
    def publish(self, manifest: dict, version: str) -> None:
        """Replace the manifest (the commit): temporary file, fsync, rename."""
        tmp = self.root / f".{MANIFEST}.{version}"
        with open(tmp, "w") as f:
            json.dump(manifest, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.root / MANIFEST)

    def sweep(self, keep: Iterable[str]) -> None:
        """Delete the version directories not in ``keep`` (what a driver killed
        mid-commit left), if no other engine is writing."""
        keep = set(keep)
        with self.try_locked() as got:
            if got:
                for d in (self.root / "tables").glob("*/*/*"):
                    if d.is_dir() and str(d.relative_to(self.root)) not in keep:
                        shutil.rmtree(d, ignore_errors=True)

    def remove(self, rels: Iterable[str]) -> None:
        """Delete table versions no manifest names any more."""
        for rel in rels:
            shutil.rmtree(self.root / rel, ignore_errors=True)
