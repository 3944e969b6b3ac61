"""Fixed cost of a small Spark release (issue 34; docs/spark.md, "Fixed cost and
clean output"): the README's 12 persons (dynamic-anatomy, l = 3) with one update
in release 2, or issue 34's history of 2,500 Adult persons (m-invariance, m = 4),
releases 1 and 2, on local[2]. One run per process (its own JVM); wall seconds
and the load average at the start and the end. Run from the repository root:

    python benchmarks/spark_small.py readme|adult [QUICK_JIT 0|1] [SMALL_BYTES]

(``0 0``: the settings before issue 34 - C2 JIT, generated code, the session's
shuffle partitions.)"""
import os, sys, tempfile, time
sys.path.insert(0, os.path.join(os.getcwd(), "tests"))
t00 = time.perf_counter()
import pandas as pd
import sqlanon
from sqlanon.spark import SparkEngine, session
what = sys.argv[1]
quick = bool(int(sys.argv[2])) if len(sys.argv) > 2 else None
small = int(sys.argv[3]) if len(sys.argv) > 3 else None
l0 = os.getloadavg()[0]
t = time.perf_counter()
s = session("local[2]", quick_jit=quick)
out = [f"session {time.perf_counter() - t:.1f}"]
eng = SparkEngine(tempfile.mkdtemp(), s, **({"small": small} if small is not None else {}))
if what == "readme":
    ward = pd.DataFrame({"id": range(12), "age": [30 + i % 5 for i in range(12)],
                         "disease": ["flu", "hiv", "cold", "acne"] * 3})
    frames = [ward, ward.assign(disease=["hiv"] + list(ward.disease[1:]))]
    kw = dict(id="id", qi=["age"], sa="disease", model="dynamic-anatomy", l=3)
else:
    from test_spark import _issue34_history
    frames = _issue34_history(2500)[:2]
    kw = dict(id="id", qi=["age", "workclass", "education", "sex"], sa="occupation", model="m-invariance", m=4)
pub = None
for i, f in enumerate(frames, 1):
    eng.load("ward", f)
    pub = pub or sqlanon.Publisher(eng, "ward", source="ward", **kw)
    t = time.perf_counter()
    r = pub.release()
    out.append(f"release {i} {time.perf_counter() - t:.1f}")
print(what, f"quick_jit={quick} small={small}", " | ".join(out), f"| process {time.perf_counter() - t00:.1f}",
      f"| load {l0:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
