#!/usr/bin/env bash
# Quick start. Each command sets itself up (a virtualenv in .venv) first.
#   bash run.sh demo   - the main job: a multi-release demo on an embedded DuckDB file
#   bash run.sh test   - the whole test suite (what CI runs)
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
VENV=${SQLANON_VENV:-.venv}

setup() {
  if [ ! -x "$VENV/bin/python" ]; then "$PY" -m venv "$VENV"; fi
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  # non-editable on purpose: tests run against the installed wheel
  "$VENV/bin/python" -m pip install --quiet "$1"
}

case "${1:-}" in
  demo)
    setup "."
    shift
    "$VENV/bin/sqlanon" demo "$@"
    ;;
  test)
    setup ".[test,spark,dbt]"
    shift
    set +e
    SQLANON_EXPECT_INSTALLED=1 "$VENV/bin/pytest" -p no:cacheprovider -n 2 "$@"
    rc=$?
    set -e
    if [ "$rc" -eq 5 ]; then echo "run.sh: pytest collected no tests - treating as failure"; exit 1; fi
    exit "$rc"
    ;;
  *)
    echo "usage: bash run.sh demo|test [args]"; exit 2 ;;
esac
