# Small statistics for the verdict: medians, the spread of samples and a
# one-sided Mann-Whitney U test. Pure functions on arrays of numbers.
# Written for jq 1.6 and 1.7 alike: no abs, no limit(0; ...), no 1.7-only
# builtins.

def fabs: if . < 0 then -. else . end;

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

# Exact null distribution of U for sample sizes $m and $n: an array where
# element u is the number of orderings with U == u. Built row by row from
# f(i,j)[u] = f(i-1,j)[u-j] + f(i,j-1)[u], keeping one row of arrays.
def mw_counts($m; $n):
  def add_shifted($a; $b; $shift):
    # $a + ($b shifted right by $shift), as arrays of counts
    ([($a | length), ($b | length) + $shift] | max) as $len
    | [range(0; $len) as $u
       | ($a[$u] // 0) + (if $u >= $shift then ($b[$u - $shift] // 0) else 0 end)];
  # row for i = 0: f(0,j) = [1] for every j
  reduce range(1; $m + 1) as $i ([range(0; $n + 1) | [1]];
    . as $prev
    | reduce range(0; $n + 1) as $j ([];
        if $j == 0 then [[1]]
        else . + [add_shifted(.[$j - 1]; $prev[$j]; $j)]
        end))
  | .[$n];

# Standard normal upper tail, Abramowitz-Stegun 7.1.26 (error < 1.5e-7).
def normal_upper_tail:
  . as $z | (($z | fabs) / (2 | sqrt)) as $x
  | (1 / (1 + 0.3275911 * $x)) as $t
  | (($t * (0.254829592 + $t * (-0.284496736 + $t * (1.421413741
      + $t * (-1.453152027 + $t * 1.061405429))))) * ((- $x * $x) | exp)) as $erfc
  | if $z >= 0 then $erfc / 2 else 1 - $erfc / 2 end;

# One-sided p-value that $a tends to be larger than $b (H1: a > b).
# Exact for small samples, normal approximation (with continuity correction,
# no tie correction, which errs on the cautious side) for large ones.
def mw_p_greater($a; $b):
  ($a | length) as $m | ($b | length) as $n
  | if $m == 0 or $n == 0 then null
    else
      mw_u($a; $b) as $u
      | if $m * $n <= 400 then
          mw_counts($m; $n) as $f
          | ($f | add) as $total
          # ties give half-integer U; rounding down keeps p on the safe side
          | ([$f | to_entries[] | select(.key >= ($u | floor)) | .value] | add) / $total
        else
          (($m * $n) / 2) as $mu
          | (($m * $n * ($m + $n + 1) / 12) | sqrt) as $sigma
          | (($u - $mu - 0.5) / $sigma) | normal_upper_tail
        end
    end;

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
def hodges_lehmann($d; $alpha):
  ($d | length) as $n
  | [range(0; $n) as $i | range($i; $n) as $j | ($d[$i] + $d[$j]) / 2] | sort
  | . as $w | length as $m
  | signed_rank_order($n; $alpha) as $k
  | {estimate: ($w | median), n: $n,
     lo: (if $k >= 1 then $w[$k - 1] else null end),
     hi: (if $k >= 1 then $w[$m - $k] else null end)};
