#!/usr/bin/env python3
"""Reference values for the A/B statistics in scripts/jq/stats.jq, from SciPy.

Run at development time (CI does not: it reads the committed JSON):
    python3 -m venv /tmp/sp && /tmp/sp/bin/pip install scipy
    /tmp/sp/bin/python scripts/tests/reference/make-signed-rank.py \
        > scripts/tests/reference/signed-rank.json

For n pairs and a one-sided level alpha, "order" is the largest k with
P(T+ <= k - 1) <= alpha under the null (T+: the Wilcoxon signed-rank
statistic), from SciPy's exact distribution (method="exact") for every n
(stats.jq approximates it beyond 60 pairs); the interval of the Hodges-Lehmann
estimate is the k-th smallest and largest Walsh average.
"""
import json
import statistics

import numpy as np
from scipy import stats


def p_at_most(n, t, method):
    """P(T+ <= t) for n pairs without ties, via scipy's wilcoxon: data whose
    positive ranks add up to exactly t (greedy from the largest rank)."""
    if t < 0:
        return 0.0
    signs = [-1] * (n + 1)
    left = t
    for r in range(n, 0, -1):
        if r <= left:
            signs[r] = 1
            left -= r
    x = np.array([signs[r] * r for r in range(1, n + 1)], dtype=float)
    return float(stats.wilcoxon(x, alternative="less", method=method, correction=False).pvalue)


def order(n, alpha):
    method = "exact"
    k = 0
    top = n * (n + 1) // 2
    for t in range(0, top + 1):
        if p_at_most(n, t, method) <= alpha:
            k = t + 1
        else:
            break
    return k


def hodges_lehmann(d, alpha):
    n = len(d)
    w = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    k = order(n, alpha)
    return {
        "estimate": statistics.median(w),
        "lo": w[k - 1] if k >= 1 else None,
        "hi": w[len(w) - k] if k >= 1 else None,
    }


def main():
    orders = [{"n": n, "alpha": a, "order": order(n, a)}
              for a in (0.05, 0.025, 0.1) for n in list(range(1, 31)) + [35, 40, 41, 50, 60, 61, 70, 90]]
    rng = np.random.default_rng(20261123)
    samples = []
    for n in (5, 6, 8, 12, 20):
        d = [round(float(v), 6) for v in rng.normal(0.05, 0.08, n)]
        samples.append({"d": d, "alpha": 0.05, "expect": hodges_lehmann(d, 0.05)})
    json.dump({"scipy": __import__("scipy").__version__, "orders": orders, "hodges_lehmann": samples},
              __import__("sys").stdout, indent=1)
    print()


main()
