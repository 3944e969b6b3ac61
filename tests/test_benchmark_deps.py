"""A benchmark whose optional extra is missing says how to install it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_eligibility_benchmark_without_matplotlib_says_pip_install_bench(tmp_path):
    code = ("import runpy, sys; sys.modules['matplotlib'] = None; sys.argv = ['eligibility.py']; "
            f"runpy.run_path({str(ROOT / 'benchmarks' / 'eligibility.py')!r}, run_name='__main__')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode != 0
    assert "pip install .[bench]" in out.stderr and "Traceback" not in out.stderr, out.stderr
