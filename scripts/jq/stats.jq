# Small statistics for the verdict: medians, the spread of samples, a
# one-sided Mann-Whitney U test and the paired (A/B) signed-rank bounds.
# Pure functions on arrays of numbers. Checked against SciPy by
# scripts/tests/verdict_stats.bats (reference values in scripts/tests/reference/).
# Written for jq 1.6 and 1.7 alike: no abs, no limit(0; ...), no 1.7-only
# builtins.

def fabs: if . < 0 then -. else . end;

def sig6:
  # six significant digits, so verdict.json reads the same under jq 1.6 and 1.7;
  # whole numbers (counts, bytes) print the same in both and stay exact
  if . == null or . == 0 or (. == floor and fabs < 1e15) then .
  else (. | fabs | log10 | floor) as $e | (pow(10; 5 - $e)) as $f | (. * $f | round) / $f
  end;

# median of an array of numbers; null for an empty array.
def median:
  sort as $s | ($s | length) as $n
  | if $n == 0 then null
    elif $n % 2 == 1 then $s[($n - 1) / 2]
    else ($s[$n / 2 - 1] + $s[$n / 2]) / 2
    end;

# P(X <= k) for X ~ Binomial(n, 1/2), exact for the sizes we see.
def binom_half_cdf($n; $k):
  if $k < 0 then 0
  else
    reduce range(0; $k + 1) as $i ({c: 1, sum: 0};
      .sum += .c | .c = .c * ($n - $i) / ($i + 1))
    | .sum / pow(2; $n)
  end;

# Distribution-free confidence interval of the median: the order statistics
# x(k) and x(n-k+1) with the largest k whose two-sided coverage is >= 95 %.
# Below 6 samples no such k exists and the interval is the full range (with 5
# samples that still covers the median with 94 % confidence). Returns
# {lo, hi}; null for an empty array.
def median_interval:
  sort as $s | ($s | length) as $n
  | if $n == 0 then null
    else
      (if $n > 1000 then
         # normal approximation of the binomial for very long runs
         ([1, (($n - 1.96 * ($n | sqrt)) / 2 | floor)] | max)
       else
         ([range(1; ($n + 1) / 2 | floor + 1)]
          | map(select(2 * binom_half_cdf($n; . - 1) <= 0.05))
          | if length == 0 then 1 else max end)
       end) as $k
      | {lo: $s[$k - 1], hi: $s[$n - $k]}
    end;

# Relative half-width of median_interval: "the median is known to within
# +- this fraction". It shrinks roughly as 1/sqrt(n) with more samples.
# 0 when all samples are equal; null when the median is 0 but samples differ.
def relative_noise:
  median as $m | median_interval as $ci
  | if $ci == null then null
    elif $ci.hi == $ci.lo then 0
    elif $m == 0 then null
    else ($ci.hi - $ci.lo) / 2 / ($m | fabs)
    end;

# Full range (max - min) of the samples; 0 for fewer than two.
def sample_range: if length < 2 then 0 else max - min end;

# Mann-Whitney U of $a against $b: pairs where a > b, ties count one half.
def mw_u($a; $b):
  reduce $a[] as $x (0;
    . + reduce $b[] as $y (0;
      . + (if $x > $y then 1 elif $x == $y then 0.5 else 0 end)));

# Exact null distribution of U for sample sizes $m and $n (no ties): an
# array where element u is the number of orderings with U == u. These are the
# coefficients of the Gaussian binomial [m+n choose m]_q, built as the
# product over i = 1..min of (1 - q^(max+i)) / (1 - q^i); each division is a
# product of (1 + q^(i*2^j)) truncated to the mn+1 coefficients, so every
# step is one pass over the array (jq updates arrays by copying). Cost about
# min * mn * log2(mn) element steps: 10 against 100 takes 0.15 s.
def mw_counts($m; $n):
  ([$m, $n] | min) as $a | ([$m, $n] | max) as $b
  | ($a * $b + 1) as $len
  | def times($s; $sign):
      . as $c | [range(0; $len) as $k | $c[$k] + (if $k >= $s then $sign * $c[$k - $s] else 0 end)];
    reduce range(1; $a + 1) as $i ([1] + [range(1; $len) | 0];
      times($b + $i; -1)
      | reduce ($i | recurse(. * 2; . < $len)) as $s (.; times($s; 1)));

# Standard normal upper tail, Abramowitz-Stegun 7.1.26 (error < 1.5e-7).
def normal_upper_tail:
  . as $z | (($z | fabs) / (2 | sqrt)) as $x
  | (1 / (1 + 0.3275911 * $x)) as $t
  | (($t * (0.254829592 + $t * (-0.284496736 + $t * (1.421413741
      + $t * (-1.453152027 + $t * 1.061405429))))) * ((- $x * $x) | exp)) as $erfc
  | if $z >= 0 then $erfc / 2 else 1 - $erfc / 2 end;

# Where the exact tie-free distribution is cheap enough (min^2 * max <=
# 10000: 20 against 25, 10 against 100, 5 against 400).
def mw_exact_size($m; $n): ([$m, $n] | min) as $a | $a * $a * ([$m, $n] | max) <= 10000;

# One-sided p-values of U for $m against $n samples without ties: {greater:
# P(U >= u), less: P(U <= u)}. Exact for mw_exact_size; beyond, the normal
# approximation with continuity correction and the Edgeworth term for U's
# (negative) excess kurtosis, which the plain normal misses: without it p came
# out 0.0032 low at 5 against 81. With it, the approximation is within 0.0015
# of the exact p at every size of scripts/tests/reference/mann-whitney.json
# that it serves (not always above it).
def mw_tails($u; $m; $n):
  if mw_exact_size($m; $n) then
    mw_counts($m; $n) as $f
    | ($f | add) as $total
    | ([$f | to_entries[] | select(.key >= $u) | .value] | add) as $ge
    | ([$f | to_entries[] | select(.key <= $u) | .value] | add) as $le
    # rounding in the long sums may leave a hair below 0 or above 1
    | {greater: ([([$ge / $total, 0] | max), 1] | min), less: ([([$le / $total, 0] | max), 1] | min)}
  else
    (($m * $n) / 2) as $mu
    | (($m * $n * ($m + $n + 1) / 12) | sqrt) as $sigma
    | (-6 * ($m * $m + $n * $n + $m * $n + $m + $n) / (5 * $m * $n * ($m + $n + 1))) as $kurt
    | def upper($z):
        ($z | normal_upper_tail)
        + ((- $z * $z / 2) | exp) / ((2 * 3.141592653589793) | sqrt) * $kurt / 24 * ($z * $z * $z - 3 * $z)
        | [([., 0] | max), 1] | min;
    {greater: upper(($u - $mu - 0.5) / $sigma), less: upper(($mu - $u - 0.5) / $sigma)}
  end;

# The exact null distribution of U when values tie, given the ties: over the
# C(m+n, m) ways to pick which values are $a's, the number with each sum of
# $a's midranks, indexed by twice that sum. A walk over the groups of equal
# values, choosing k of a group's t values for $a in C(t, k) ways. Cost
# about 2 m^2 (m+n)^2 element steps.
def mw_tied_counts($a; $b):
  def choose($n; $k): reduce range(0; $k) as $i (1; . * ($n - $i) / ($i + 1));
  def plus_shifted($x; $w; $shift):
    . as $acc | ([length, ($x | length) + $shift] | max) as $len
    | [range(0; $len) as $s
       | ($acc[$s] // 0) + (if $s >= $shift then ($x[$s - $shift] // 0) * $w else 0 end)];
  ($a | length) as $m
  | reduce ([($a + $b) | sort | group_by(.)[] | length][]) as $t ({f: [[1]], start: 0};
      # twice the group's midrank: (start + 1) + (start + t)
      (2 * .start + $t + 1) as $r2
      | .f as $f
      | .f = [range(0; [($f | length) + $t, $m + 1] | min) as $j
              | reduce range(0; ([$t, $j] | min) + 1) as $k ([];
                  if $j - $k < ($f | length) then plus_shifted($f[$j - $k]; choose($t; $k); $k * $r2) else . end)]
      | .start += $t)
  | .f[$m];
def mw_tied_exact_size($m; $n): 2 * $m * $m * ($m + $n) * ($m + $n) <= 200000;

# One-sided p-values that $a tends to be larger than $b ({greater}) and
# smaller ({less}); null when a side has no samples. With ties: the exact
# distribution given the ties where mw_tied_exact_size (12 against 12, 5
# against 58); beyond, the normal approximation with the tie-corrected
# variance and continuity correction (SciPy's "asymptotic"). Timings in
# nanoseconds rarely tie.
def mw_p($a; $b):
  ($a | length) as $m | ($b | length) as $n
  | if $m == 0 or $n == 0 then null
    else
      mw_u($a; $b) as $u
      | [($a + $b) | sort | group_by(.)[] | length | select(. > 1)] as $ties
      | if ($ties | length) == 0 then mw_tails($u; $m; $n)
        elif mw_tied_exact_size($m; $n) then
          mw_tied_counts($a; $b) as $f
          | ($f | add) as $total
          | (2 * $u + $m * ($m + 1)) as $r2
          | {greater: (([$f | to_entries[] | select(.key >= $r2) | .value] | add) / $total),
             less: (([$f | to_entries[] | select(.key <= $r2) | .value] | add) / $total)}
          | map_values([([., 0] | max), 1] | min)
        else
          ($m + $n) as $N
          | (($m * $n) / 2) as $mu
          | (($m * $n / 12 * (($N + 1) - ([$ties[] | . * . * . - .] | add) / ($N * ($N - 1)))) | sqrt) as $sigma
          | {greater: (($u - $mu - 0.5) / $sigma | normal_upper_tail),
             less: (($mu - $u - 0.5) / $sigma | normal_upper_tail)}
        end
    end;

# One-sided p-value that $a tends to be larger than $b (H1: a > b).
def mw_p_greater($a; $b): mw_p($a; $b) | if . == null then null else .greater end;

# ---- paired samples (A/B) ------------------------------------------------

# z with P(Z > z) = $p for the standard normal, by bisection on
# normal_upper_tail (0 < $p < 0.5).
def normal_upper_quantile($p):
  reduce range(0; 60) as $_ ({lo: 0, hi: 10};
    ((.lo + .hi) / 2) as $m
    | if ($m | normal_upper_tail) > $p then .lo = $m else .hi = $m end)
  | (.lo + .hi) / 2;

# Exact null distribution of the Wilcoxon signed-rank statistic T+ for $n
# pairs without ties: element t is the number of the 2^n sign patterns whose
# positive ranks add up to t.
def signed_rank_counts($n):
  reduce range(1; $n + 1) as $k ([1];
    . as $prev
    | [range(0; ($prev | length) + $k) as $t
       | ($prev[$t] // 0) + (if $t >= $k then $prev[$t - $k] else 0 end)]);

# The order k of the one-sided confidence bound from Walsh averages: the
# largest k with P(T+ <= k - 1) <= $alpha; 0 when even k = 1 is not covered
# (fewer than 5 pairs at alpha 0.05). Exact up to 60 pairs; beyond, the
# normal approximation with continuity correction, which errs on the
# cautious side (scripts/tests/reference/signed-rank.json: equal to the
# exact orders up to 60, never above them beyond).
def signed_rank_order($n; $alpha):
  if $n <= 0 then 0
  elif $n <= 60 then
    signed_rank_counts($n) as $f | pow(2; $n) as $total
    | reduce range(0; $f | length) as $t ({sum: 0, k: 0, done: false};
        if .done then .
        else .sum += $f[$t]
             | if .sum / $total <= $alpha then .k = $t + 1 else .done = true end
        end)
    | .k
  else
    ($n * ($n + 1) / 4) as $mu
    | (($n * ($n + 1) * (2 * $n + 1) / 24) | sqrt) as $sd
    # the order whose lower tail the corrected normal puts at alpha, less one
    | ([0, ($mu - normal_upper_quantile($alpha) * $sd - 0.5 | floor)] | max)
  end;

# Hodges-Lehmann estimate and confidence interval of the centre of the
# differences $d (an array of numbers): the median of the Walsh averages
# (d_i + d_j) / 2, i <= j, and the k-th smallest and largest of them, each a
# one-sided bound at level 1 - $alpha (together a 1 - 2 * $alpha interval).
# {estimate, lo, hi, n}; lo and hi are null when there are too few pairs.
# The Walsh averages, sorted:
def walsh_averages($d):
  ($d | length) as $n
  | [range(0; $n) as $i | range($i; $n) as $j | ($d[$i] + $d[$j]) / 2] | sort;
# hodges_lehmann from the sorted Walsh averages $w of $n differences: several
# levels of one set of differences share them.
def hodges_lehmann_of($w; $n; $alpha):
  ($w | length) as $m
  | signed_rank_order($n; $alpha) as $k
  | {estimate: ($w | median), n: $n,
     lo: (if $k >= 1 then $w[$k - 1] else null end),
     hi: (if $k >= 1 then $w[$m - $k] else null end)};
def hodges_lehmann($d; $alpha): hodges_lehmann_of(walsh_averages($d); $d | length; $alpha);

# Numbers for the verdict's reasons: one decimal; a fraction as a signed
# percentage; four decimals for a ratio.
def pct_text_raw: . * 10 | round / 10 | tostring;
def signed_pct: (if . >= 0 then "+" else "" end) + (. * 100 | pct_text_raw);
def r4: if . == null then null else . * 10000 | round / 10000 end;
