#!/usr/bin/env python3
"""Reference p-values for the Mann-Whitney test in scripts/jq/stats.jq, from SciPy.

Run at development time (CI does not: it reads the committed JSON):
    python3 -m venv /tmp/sp && /tmp/sp/bin/pip install scipy
    /tmp/sp/bin/python scripts/tests/reference/make-mann-whitney.py \\
        > scripts/tests/reference/mann-whitney.json

Each case is two samples of sizes m and n, their U statistic (pairs where a
is above b, ties one half), the samples themselves where they are small, and
the one-sided p-values that a tends to be larger ("greater") and smaller
("less"):
- without ties, SciPy's exact p-values (method="exact"), for small and
  unequal sizes (stats.jq's exact branch) and large ones (its approximation);
- with ties, SciPy's exact permutation p-values of the tied data
  (PermutationMethod) for small sizes, and for large ones SciPy's
  "asymptotic" p-values (normal, tie-corrected variance, continuity
  correction).
The samples are drawn with a fixed seed and shifted so that the p-values
cover both tails and the middle.
"""
import json

import numpy as np
from scipy import stats

rng = np.random.default_rng(20261123)


def exact(a, b):
    return {
        side: float(stats.mannwhitneyu(a, b, alternative=side, method="exact").pvalue)
        for side in ("greater", "less")
    }


def asymptotic(a, b):
    return {
        side: float(stats.mannwhitneyu(a, b, alternative=side, method="asymptotic").pvalue)
        for side in ("greater", "less")
    }


def u_statistic(a, b):
    return float(stats.mannwhitneyu(a, b, alternative="greater", method="exact").statistic)


def permutation(a, b):
    method = stats.PermutationMethod(n_resamples=np.inf)
    return {
        side: float(stats.mannwhitneyu(a, b, alternative=side, method=method).pvalue)
        for side in ("greater", "less")
    }


def tie_free(m, n, shift):
    # distinct values (checked): a continuous draw rounded to 9 digits
    a = np.round(rng.normal(shift, 1.0, m), 9)
    b = np.round(rng.normal(0.0, 1.0, n), 9)
    assert len(set(a) | set(b)) == m + n
    return [float(x) for x in a], [float(x) for x in b]


def tied(m, n, shift, levels):
    # few distinct values: ties within and across the samples
    a = np.round(rng.normal(shift, 1.0, m) * levels) / levels
    b = np.round(rng.normal(0.0, 1.0, n) * levels) / levels
    return [float(x) for x in a], [float(x) for x in b]


cases = []
SIZES = [
    (5, 5), (3, 7), (7, 3), (5, 9), (8, 12), (10, 10), (20, 20),
    (15, 27), (5, 81), (9, 45), (10, 100), (4, 600),  # exact in stats.jq
    (30, 30), (25, 41), (16, 100), (40, 60), (60, 60), (5, 500),
    (4, 1200), (3, 1500), (100, 100),  # its approximation
]
for m, n in SIZES:
    for shift in (-1.0, 0.0, 0.4, 1.0, 2.5):
        a, b = tie_free(m, n, shift)
        case = {"ties": False, "m": m, "n": n, "u": u_statistic(a, b), "exact": exact(a, b)}
        if m + n <= 40:  # small enough to keep the samples: stats.jq's U is checked too
            case.update(a=a, b=b)
        cases.append(case)

TIED = [(5, 5), (4, 6), (6, 8), (7, 7), (8, 9)]
for m, n in TIED:
    for shift, levels in ((0.0, 1), (0.8, 2), (1.5, 1), (-0.5, 3)):
        a, b = tied(m, n, shift, levels)
        cases.append({"ties": True, "m": m, "n": n, "a": a, "b": b, "u": u_statistic(a, b),
                      "permutation": permutation(a, b)})

TIED_LARGE = [(20, 30), (15, 60), (40, 40)]
for m, n in TIED_LARGE:
    for shift, levels in ((0.0, 1), (0.5, 2), (-0.3, 4)):
        a, b = tied(m, n, shift, levels)
        cases.append({"ties": True, "m": m, "n": n, "a": a, "b": b,
                      "u": u_statistic(a, b), "asymptotic": asymptotic(a, b)})

json.dump({
    "made_by": "scripts/tests/reference/make-mann-whitney.py",
    "scipy": __import__("scipy").__version__,
    "cases": cases,
}, __import__("sys").stdout, indent=None, separators=(",", ":"))
print()
