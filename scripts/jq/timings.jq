# The timing rules of the verdict (verdict.jq): a timing judged against a
# stored baseline (judge_timing: medians, Mann-Whitney, the noise) and one
# judged from A/B pairs (judge_paired: Hodges-Lehmann, signed-rank bounds held
# over the row's family), and how many more samples would settle one. $th is
# the thresholds verdict.jq is given (--argjson th).
include "stats";

# How many samples (pairs) would settle an undecided timing, from its noise.
# Beyond the most the gate runs (255), no number is given: at that noise the
# machine, not the sample size, is what stands in the way.
def settleable($need): if $need <= 255 then $need else null end;
def settle_text($need; $unit):
  if $need <= 255 then "about \($need) \($unit) would settle it"
  else "at this noise more than the 255 \($unit) the gate can run would be needed to settle it" end;

# Timings (kind time: lower is better; kind throughput: higher is better).
# Regression: the median moved the wrong way by more than the threshold, a
# one-sided Mann-Whitney test says it is not chance (alpha, >= 5 samples a
# side; with fewer, the move must exceed twice the threshold), and the move
# is larger than the noise. Noise larger than the threshold otherwise makes
# the metric inconclusive.
# $between: the baseline's sessions for this metric, {sessions: n, spread:
# fraction} (spread: range of the per-session medians over the pooled
# median). Iterations of one session do not show how far the next session
# moves (load, cache, CPU frequency), so a timing cannot fail against a
# one-session baseline, and against several sessions only beyond their spread.
def judge_timing($b; $c; $kind; $thpct; $timing_block; $between):
  ($b | median) as $mb | ($c | median) as $mc
  | ($thpct / 100) as $t
  | ([($b | relative_noise), ($c | relative_noise)]) as $noises
  | (if any($noises[]; . == null) then null else ($noises | max) end) as $noise
  | ($b | length) as $nb | ($c | length) as $nc
  | (if $mb > 0 and $mc > 0 then $mc / $mb else null end) as $ratio
  | ($between.sessions // 1) as $sessions
  | (if $sessions >= 2 then $between.spread else null end) as $spread
  | {ratio: $ratio, noise: (if $noise == null then null else ([$noise, ($spread // 0)] | max) * 100 end),
     n_baseline: $nb, n_current: $nc, baseline_sessions: $sessions}
  | if $ratio == null then
      . + {state: "inconclusive", reason: "a median is 0; cannot form a ratio"}
    else
      # change > 0 means worse, in the metric's own direction
      (if $kind == "throughput" then 1 / $ratio - 1 else $ratio - 1 end) as $change
      # one U for both directions: "worse" is larger for times, smaller for throughput
      | (mw_p($c; $b) // {}) as $mw
      | (if $kind == "throughput" then $mw.less else $mw.greater end) as $p_worse
      | (if $kind == "throughput" then $mw.greater else $mw.less end) as $p_better
      | ($nb >= 5 and $nc >= 5) as $ranked
      | ($th.alpha // 0.05) as $alpha
      | (if $ranked then $p_worse < $alpha else $change > 2 * $t end) as $worse_sure
      | (if $ranked then $p_better < $alpha else - $change > 2 * $t end) as $better_sure
      | ({"throughput": "throughput", "cpu": "server CPU"}[$kind] // "time") as $what
      | ($ratio - 1 | signed_pct) as $chg
      | ([($noise // 1e9), ($spread // 0)] | max) as $nz
      | . + {p_value: ($p_worse | sig6)}
      | if $timing_block != null then
          . + {state: "inconclusive", reason: "\($what) not gated: \($timing_block) (change \($chg) %)"}
        elif $change > $t and $worse_sure and $change > $nz and $sessions < 2 then
          . + {state: "inconclusive",
               reason: "\($what) worse by \($change * 100 | pct_text_raw) %, but the baseline is one session, whose spread between sessions is unknown: a timing cannot fail against it (pool 2+ runs into the baseline, or measure base and head together)"}
        elif $change > $t and $worse_sure and $change > $nz then
          . + {state: "fail", reason: ("\($what) worse by \($change * 100 | pct_text_raw) % (threshold \($thpct) %, noise ±\($nz * 100 | pct_text_raw) % over \($sessions) baseline sessions, "
            + (if $ranked then "rank test p=\($p_worse | sig6 | tostring))" else "fewer than 5 samples: beyond twice the threshold)" end))}
        elif - $change > $t and $better_sure and - $change > $nz then
          . + {state: "improved", reason: "\($what) better by \(- $change * 100 | pct_text_raw) % (threshold \($thpct) %); consider refreshing the baseline"}
        elif $nz > $t then
          # the median is known to +-noise; it shrinks as 1/sqrt(n), so this
          # many samples per side would bring it under the threshold (the
          # between-session spread does not shrink with iterations)
          ([$nb, $nc] | min) as $n
          | ([($n * ($nz / $t) * ($nz / $t)) | ceil, $n + 1, 5] | max) as $need
          | if ($spread // 0) > $t and ($spread // 0) >= ($noise // 0) then
              . + {state: "inconclusive",
                   reason: "the baseline's sessions differ by ±\($spread * 100 | pct_text_raw) %, more than the \($thpct) % threshold (change \($chg) %); measure base and head together"}
            else
              . + {state: "inconclusive", iterations_needed: settleable($need),
                   reason: (if $noise == null then "samples vary around a zero median"
                            else "noise ±\($nz * 100 | pct_text_raw) % exceeds the \($thpct) % threshold (change \($chg) %); \(settle_text($need; "iterations per side"))"
                            end)}
            end
        elif $change > $t then
          . + {state: "inconclusive",
               reason: (if $ranked then "\($what) worse by \($change * 100 | pct_text_raw) % but the rank test does not rule out chance (p=\($p_worse | sig6 | tostring))"
                        else "\($what) worse by \($change * 100 | pct_text_raw) %, not beyond twice the threshold with fewer than 5 samples a side" end)}
        else
          . + {state: "pass", reason: "change \($chg) % within ±\($thpct) %"}
        end
    end;

# A/B: base and head measured in the same run, pair by pair. Each pair gives
# the log ratio head/base; the Hodges-Lehmann estimate of their centre and its
# confidence bounds (signed-rank) decide. Many rows are judged at once, so a
# fail must hold for the family: its lower bound is taken at alpha / $family
# ($family: the Bonferroni divisor metric_row gives the row's group), and the
# row fails when that bound is beyond the threshold. It passes when the upper
# bound at alpha is within the threshold (no regression of that size is
# plausible), improves when the family-level upper bound is below minus the
# threshold, and is inconclusive otherwise, saying how many pairs would
# settle it. `interval` is always the one that decided: [lower, upper] at
# alpha for a pass (its upper bound decided), at the family's level
# otherwise; `interval_confidence` is the confidence of each of its bounds.
# $pairs: [[base, head], ...].
def judge_paired($pairs; $kind; $thpct; $family):
  ($thpct / 100) as $t
  | ($th.alpha // 0.05) as $alpha
  | ($alpha / ([$family, 1] | max)) as $alpha_fail
  | ({"throughput": "throughput", "cpu": "server CPU"}[$kind] // "time") as $what
  # a pair of zeros is no change; a zero on one side alone cannot form a ratio
  | [$pairs[] | select((.[0] > 0 and .[1] > 0) or (.[0] == 0 and .[1] == 0))
     | if .[0] == 0 then 0 else ((.[1] / .[0]) | log) end
     | if $kind == "throughput" then - . else . end] as $d
  | ($d | length) as $n
  | walsh_averages($d) as $walsh
  | hodges_lehmann_of($walsh; $n; $alpha) as $hl
  | hodges_lehmann_of($walsh; $n; $alpha_fail) as $hf
  | def change: if . == null then null else exp - 1 end;
    def p: . * 100 | pct_text_raw;
    def signed_p: (if . >= 0 then "+" else "" end) + p;
    def bounds($lo; $hi; $conf): {interval: [($lo * 100 | sig6), ($hi * 100 | sig6)], interval_confidence: $conf};
    # what an undecided pair of sides could have seen: the upper bound at
    # alpha, past which a change is ruled out (a pass needs it within the
    # threshold; here it is beyond, and below it is this machine's noise)
    def limit_of($hi; $conf): if $hi == null then {} else {limit_pct: ($hi * 100 | sig6), limit_confidence: $conf} end;
    ($hl.estimate | change) as $est
  | ($hl.lo | change) as $lo | ($hl.hi | change) as $hi
  | ($hf.lo | change) as $lo_f | ($hf.hi | change) as $hi_f
  # each bound's confidence in percent: exact in verdict.json, one decimal in words
  | ((1 - $alpha) * 100 | sig6) as $conf_n | ((1 - $alpha_fail) * 100 | sig6) as $conf_fn
  | ($conf_n | pct_text_raw) as $conf | ($conf_fn | pct_text_raw) as $conf_f
  # the fewest pairs whose signed-rank tail can reach alpha_fail
  | (first(range(1; 256) | select(signed_rank_order(.; $alpha_fail) >= 1)) // 255) as $min_pairs
  | {ratio: (if $n == 0 then null else ($hl.estimate | if $kind == "throughput" then - . else . end | exp) end),
     noise: (if $lo == null then null else ($hi - $lo) / 2 * 100 end),
     p_value: null, pairs: $n, n_baseline: ($pairs | length), n_current: ($pairs | length),
     family: $family, interval: null, interval_confidence: null}
  | if $n == 0 then
      . + {state: "inconclusive", reason: "no pair with both values above 0"}
    elif $lo_f != null and $lo_f > $t then
      . + bounds($lo_f; $hi_f; $conf_fn)
      + {state: "fail",
         reason: "\($what) worse by \($est | p) % over \($n) pairs: at least \($lo_f | signed_p) % at \($conf_f) % confidence, beyond the \($thpct) % threshold"}
    elif $hi_f != null and $hi_f < - $t then
      . + bounds($lo_f; $hi_f; $conf_fn)
      + {state: "improved",
         reason: "\($what) better by \(- $est | p) % over \($n) pairs: at least \(- $hi_f | p) % at \($conf_f) % confidence"}
    elif $hi != null and $hi <= $t then
      . + bounds($lo; $hi; $conf_n)
      + {state: "pass",
         reason: "change \($est | signed_p) % over \($n) pairs: at most \($hi | signed_p) % at \($conf) % confidence, within \($thpct) %"}
    elif $lo_f == null then
      . + {state: "inconclusive", iterations_needed: ([$min_pairs, $n + 1] | max),
           reason: "\($what) change \($est | signed_p) % over \($n) pairs; a fail needs at least \($min_pairs) pairs"}
      + limit_of($hi; $conf_n)
    else
      # how many pairs would settle it the way the estimate leans: below the
      # threshold, the ordinary upper bound reaching it (a pass); above, the
      # family-level lower bound passing it (a fail). A bound's distance from
      # the estimate shrinks as 1/sqrt(pairs).
      (if $est <= $t then $hi - $est else $est - $lo_f end) as $w
      | (($t - $est) | fabs) as $gap
      | ([(if $gap > 0 then $n * ($w / $gap) * ($w / $gap) else 1e9 end | ceil), $n + 1, $min_pairs] | max) as $need
      | . + bounds($lo_f; $hi_f; $conf_fn)
      + {state: "inconclusive", iterations_needed: settleable($need),
         reason: "\($what) change \($est | signed_p) % over \($n) pairs, \($lo_f | signed_p) % to \($hi_f | signed_p) % at \($conf_f) % confidence: the \($thpct) % threshold is inside; \(settle_text($need; "pairs"))"}
      + limit_of($hi; $conf_n)
    end;
