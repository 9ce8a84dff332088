#!/usr/bin/env bats
# Issue 12, item 3: report.md as a reader sees it. Every case runs the real
# pipeline (scripts/baseline, compare, plot, report) on the REAL fixtures
# (fixtures/README.md); scripts/tests/render/render.mjs renders the comment as
# GitHub does (GFM with GitHub's Markdown CSS, headless Chromium, a 780 px
# box, the chart PNGs where the action puts them) and measures it; the tests
# here decide. Screenshots and pages stay in $AFPBENCH_TEST_ARTIFACTS/render
# (scripts/test-all: its log directory's artifacts/), printed as a "# " line.
#
# The checks, for every case:
#   - the verdict: the case still gives the state it stands for (verdict.json);
#   - the first screen: the first visible line is the "### " verdict heading,
#     it names the verdict and goes on with a reason, and it (with the
#     paragraph right under it, when there is one: the shared reason) ends
#     within the first FIRST_SCREEN px of the box;
#   - the width: no table is wider than the box (its scrollWidth, the contents,
#     against the box's 780 px; GitHub's CSS makes a wider table scroll
#     sideways), measured with every <details> open;
#   - the length: report.md at most 20,000 characters, and at most 3,000 for a
#     pass where every metric passed unchanged;
#   - the height (issue 21), folded as it opens: a pass at most 1,000 px, a
#     fail, an inconclusive or an error at most 1,800 px.
# The control cases break each check on purpose, so none of them can pass
# blindly.

bats_require_minimum_version 1.5.0

# The first screen, in px from the top of the comment's Markdown box: what a
# reader sees without scrolling on the smallest common laptop screen, 1366 x
# 768, when a notification link scrolls the page to the comment: 768 px less
# the browser's own bars (about 110 px) and GitHub's sticky pull-request header
# and the comment's header (about 60 px) leaves about 600 px.
readonly FIRST_SCREEN=600
readonly BUDGET_ANY=20000
readonly BUDGET_UNCHANGED_PASS=3000
readonly HEIGHT_PASS=1000
readonly HEIGHT_OTHER=1800

setup_file() {
  load fixtures/verdict-helpers
  [[ -x ${AFPBENCH_CHROMIUM:-/usr/bin/chromium} ]] || {
    echo "no Chromium at ${AFPBENCH_CHROMIUM:-/usr/bin/chromium}: run scripts/install-deps --test" >&2
    return 1
  }
  [[ -d $VERDICT_ROOT/node_modules/playwright-core && -d $VERDICT_ROOT/node_modules/markdown-it ]] || {
    echo "no node_modules: run npm ci in $VERDICT_ROOT" >&2
    return 1
  }
  local art=${AFPBENCH_TEST_ARTIFACTS:-}
  [[ -n $art ]] || art=$(mktemp -d /tmp/afpbench-test-artifacts.XXXXXX)
  export RENDER_OUT=$art/render
  rm -rf "$RENDER_OUT"
  mkdir -p "$RENDER_OUT"
  export CASES=$BATS_FILE_TMPDIR/cases
  mkdir -p "$CASES"
  build_cases
  build_controls
  node "$VERDICT_ROOT/scripts/tests/render/render.mjs" --out "$RENDER_OUT" \
    "$CASES"/* "$BATS_FILE_TMPDIR"/controls/* >"$BATS_FILE_TMPDIR/render.log" 2>&1 || {
    cat "$BATS_FILE_TMPDIR/render.log" >&2
    return 1
  }
  export MEASURES=$RENDER_OUT/measures.json
  sed 's/^/# /' "$BATS_FILE_TMPDIR/render.log" >&3
}

# pipeline NAME BASELINE RAW...: a results directory made of raw fixture files,
# judged against BASELINE (empty: none), its charts and its report, as the gate
# makes them. compare's exit status is the verdict's; the tests read that.
pipeline() {
  local dir=$CASES/$1 baseline=$2
  shift 2
  results_dir "$dir" "$@"
  local with=()
  [[ -z $baseline ]] || with=(--baseline "$baseline")
  "$SCRIPTS/compare" "${with[@]}" --out "$dir/verdict.json" "$dir/results.json" 2>/dev/null || true
  "$SCRIPTS/plot" "$dir" >/dev/null 2>&1
  report_with "$dir" AFPBENCH_BASELINE="$baseline" 2>/dev/null
}

# A run whose afpd died in test 5 of the first iteration, the way afpbench
# writes it (as verdict_hostile_inputs.bats): tests 1-4 measured once, test 5
# failed, the run failed, tests 6-12 without samples.
readonly DIED_IN_TEST_5='.status = "error"
  | .error = {"exit_code": 5, "message": "test 5 (Creating dir with 2000 files): FPCreateFile: server closed the connection"}
  | .tests[] |= (if .id < 5 then .samples |= .[0:1]
                 elif .id == 5 then .status = "error" | .error = "FPCreateFile: server closed the connection" | .samples = []
                 else .samples = [] end)'

# The cases, each named for the state it stands for, from the real runs.
build_cases() {
  local t=$BATS_FILE_TMPDIR
  export AFPBENCH_TESTS=1-12 AFPBENCH_ITERATIONS=5
  mkdir -p "$t/quiet" "$t/speed" "$t/cut"
  # baselines: lantest-a as it is; lantest-a with its timings quieted; lantest-a
  # and speedtest-a; lantest-a cut short (not JSON)
  results_dir "$t/base-a" "$FIXTURES/lantest-a.json"
  "$SCRIPTS/baseline" "$t/baseline.json" "$t/base-a" 2>/dev/null
  transform "$FIXTURES/lantest-a.json" "$t/a-quiet.json" "$QUIET_TIMES"
  results_dir "$t/base-a-quiet" "$t/a-quiet.json"
  "$SCRIPTS/baseline" "$t/quiet/baseline.json" "$t/base-a-quiet" 2>/dev/null
  results_dir "$t/base-a-speed" "$FIXTURES/lantest-a.json" "$FIXTURES/speedtest-a.json"
  "$SCRIPTS/baseline" "$t/speed/baseline.json" "$t/base-a-speed" 2>/dev/null
  head -c 4000 "$t/baseline.json" >"$t/cut/baseline.json"

  # the runs with system calls (fixtures/README.md, "System calls"): the idle
  # one is the baseline; the second ran under two busy loops
  results_dir "$t/base-sys" "$FIXTURES/lantest-sys-a.json"
  "$SCRIPTS/baseline" "$t/sys-baseline.json" "$t/base-sys" 2>/dev/null

  # pass: the second real run against the first, as a user's runs go: the
  # deterministic rows pass, the timings are shown
  pipeline pass "$t/sys-baseline.json" "$FIXTURES/lantest-sys-b.json"
  # a first run: no baseline, every metric new (measure only)
  pipeline first-run "" "$FIXTURES/lantest-sys-a.json"
  # fail: the second run with afpd writing 5 % more and one lstat more per
  # request of test 9, against the first
  transform "$FIXTURES/lantest-sys-b.json" "$t/b-w5.json" "$SCALE_AFPD_W_5PCT"
  transform "$t/b-w5.json" "$t/b-w5-lstat.json" "$LSTAT_PER_REQUEST_TEST9"
  pipeline fail "$t/sys-baseline.json" "$t/b-w5-lstat.json"
  # inconclusive: where timings gate against a stored baseline (a machine that
  # opted in), the second run against the first one's single session, with
  # speedtest
  AFPBENCH_BASELINE_TIMINGS=gate pipeline inconclusive "$t/speed/baseline.json" "$FIXTURES/lantest-b.json" \
    "$FIXTURES/speedtest-c.json"
  # error: the second run's server died in test 5
  transform "$FIXTURES/lantest-b.json" "$t/b-died.json" "$DIED_IN_TEST_5"
  pipeline error "$t/baseline.json" "$t/b-died.json"
  # error: a baseline file cut short
  pipeline error-baseline "$t/cut/baseline.json" "$FIXTURES/lantest-b.json"
  # A/B: base and head measured together (10 pairs), no stored baseline
  AFPBENCH_ITERATIONS=10 pipeline ab "" "$FIXTURES/lantest-ab.json"
  # whole real gate runs, judged again as the gate judged them
  # (fixtures/runs/capture.sh says how each was made)
  local r
  for r in "${REAL_RUNS[@]}"; do real_case "$r"; done
  # a matrix of real runs, a slice each, merged as the action's publish step
  # merges a matrix's artifacts
  matrix_case matrix stored-fail maxdebug ab-ea-ad
}

# matrix_case NAME SLICE...: the real-run cases SLICE... (their verdict.json,
# report.md and charts) as the slices of a matrix, and its comment in
# $CASES/NAME (src/action/testing/matrix-report.ts, bundled here).
matrix_case() {
  local name=$1 slices=$BATS_FILE_TMPDIR/$1-slices s
  shift
  mkdir -p "$slices"
  for s in "$@"; do cp -r "$CASES/$s" "$slices/$s"; done
  "$VERDICT_ROOT/node_modules/.bin/esbuild" "$VERDICT_ROOT/src/action/testing/matrix-report.ts" \
    --bundle --platform=node --format=cjs --log-level=error --outfile="$BATS_FILE_TMPDIR/matrix-report.cjs"
  node "$BATS_FILE_TMPDIR/matrix-report.cjs" "$slices" "$CASES/$name" >/dev/null
}

# The real-run cases (fixtures/runs/): what each stands for is its verdict
# test below.
REAL_RUNS=(ab-ea-ad stored-fail maxdebug error after-main-step release-ab
  pass-history-2 fail-history-2 pass-history-4 fail-history-4 push-step)
# the pass cases among them, held to a pass's height
REAL_PASSES=(pass-history-2 pass-history-4 push-step)

# real_case NAME: fixtures/runs/NAME judged and reported as the gate did it:
# against its baseline.json, else (a run with main's reference.json) the
# bundled default; with main's reference and trend where it kept them.
real_case() {
  local src=$BATS_TEST_DIRNAME/fixtures/runs/$1 dir=$CASES/$1 baseline="" args=() env=()
  mkdir -p "$dir"
  cp "$src/results.json" "$dir/"
  [[ ! -f $src/trace.json ]] || cp "$src/trace.json" "$dir/"
  [[ ! -f $src/baseline.json ]] || baseline=$src/baseline.json
  if [[ -f $src/reference.json ]]; then
    baseline=${baseline:-$VERDICT_ROOT/baselines/default.json}
    args+=(--reference "$src/reference.json")
    env+=(AFPBENCH_REFERENCE="$src/reference.json")
  fi
  [[ ! -f $src/trend.json ]] || env+=(AFPBENCH_TREND="$src/trend.json")
  if [[ -n $baseline ]]; then
    args+=(--baseline "$baseline")
    env+=(AFPBENCH_BASELINE="$baseline")
  fi
  "$SCRIPTS/compare" "${args[@]}" --out "$dir/verdict.json" "$dir/results.json" 2>/dev/null || true
  "$SCRIPTS/plot" "$dir" >/dev/null 2>&1
  report_with "$dir" "${env[@]}" 2>/dev/null
}

# Controls: the pass report, each broken so that exactly one check must fail.
build_controls() {
  local c=$BATS_FILE_TMPDIR/controls words
  words=$(printf 'reason %.0s' {1..400})
  mkdir -p "$c"/{not-a-heading,no-reason,long-heading,long-reason,wide-table,over-budget,charts-marker,too-tall}
  # taller than a pass may be: 40 more unfolded rows in a table of its own
  {
    cat "$CASES/pass/report.md"
    printf '\n| row | value |\n|---|---|\n'
    printf '| a row that makes the comment taller | %s |\n' {1..40}
  } >"$c/too-tall/report.md"
  # the charts marker right under the heading: the renderer puts the images there
  sed '2a <!-- afpbench-action:charts -->' "$CASES/pass/report.md" >"$c/charts-marker/report.md"
  cp -r "$CASES/pass/charts" "$c/charts-marker/"
  # the verdict line as a plain paragraph, not a heading
  sed '2s/^### //' "$CASES/pass/report.md" >"$c/not-a-heading/report.md"
  # the heading names the verdict and stops there
  sed -E '2s/(pass\*\*).*/\1/' "$CASES/pass/report.md" >"$c/no-reason/report.md"
  # the verdict heading itself runs past the first screen
  awk -v w="$words" 'NR == 2 { print $0 " " w; next } 1' "$CASES/pass/report.md" >"$c/long-heading/report.md"
  # the paragraph right under the heading (the shared reason) runs past it
  awk -v w="$words" 'NR == 2 { print; print ""; print w; next } 1' "$CASES/pass/report.md" >"$c/long-reason/report.md"
  # a table wider than the box
  {
    cat "$CASES/pass/report.md"
    printf '\n|%s\n' "$(printf ' column_heading_%s |' {1..9})"
    printf '|%s\n' "$(printf -- '---|%.0s' {1..9})"
    printf '|%s\n' "$(printf ' cell_without_a_break_%s |' {1..9})"
  } >"$c/wide-table/report.md"
  # more characters than the all-unchanged budget, in the details
  {
    cat "$CASES/pass/report.md"
    printf '\n<details><summary>padding</summary>\n\n%s\n\n</details>\n' "$(printf 'x%.0s' {1..3000})"
  } >"$c/over-budget/report.md"
}

# measured NAME FILTER: a jq filter on the measures of one rendered case.
measured() {
  jq -r --arg n "$1" ".[] | select(.name == \$n) | $2" "$MEASURES"
}

# verdict_is NAME STATUS: the case's verdict.json says STATUS.
verdict_is() {
  local got
  got=$(jq -r .status "$CASES/$1/verdict.json")
  [[ $got == "$2" ]] || {
    echo "$1: verdict $got, expected $2 (the fixture no longer gives this state)" >&2
    return 1
  }
}

# on_first_screen NAME: the verdict heading and its reason end within the
# first screen.
on_first_screen() {
  local n=$1 tag text bottom reason status
  tag=$(measured "$n" '.first.tag')
  text=$(measured "$n" '.first.text')
  bottom=$(measured "$n" '.first.bottom')
  [[ $tag == h3 ]] || {
    echo "$n: the first visible element is <$tag> ('${text:0:80}'), not the ### verdict heading" >&2
    return 1
  }
  status=$(measured "$n" '.status // empty')
  if [[ -n $status && $text != *"$status"* ]]; then
    echo "$n: the heading does not name the verdict '$status': $text" >&2
    return 1
  fi
  [[ $text =~ (pass|fail|inconclusive|error)[^[:alnum:]]*[—:–-][[:space:]]*[^[:space:]] ]] || {
    echo "$n: the heading gives no reason after the verdict: $text" >&2
    return 1
  }
  ((bottom <= FIRST_SCREEN)) || {
    echo "$n: the verdict heading ends at y = $bottom px, below the first screen ($FIRST_SCREEN px)" >&2
    return 1
  }
  reason=$(measured "$n" '.reason.bottom // empty')
  [[ -z $reason ]] || ((reason <= FIRST_SCREEN)) || {
    echo "$n: the paragraph under the heading ends at y = $reason px, below the first screen ($FIRST_SCREEN px)" >&2
    return 1
  }
}

# tables_fit NAME: no table is wider than the box, and nothing widens the box.
tables_fit() {
  local n=$1 box wide widened ok=0
  box=$(measured "$n" '.boxWidth')
  [[ $box == 780 ]] || {
    echo "$n: the box is $box px wide, not 780" >&2
    return 1
  }
  wide=$(measured "$n" '.tables[] | select(.scrollWidth > .clientWidth or .scrollWidth > 780)
    | "table \(.index + 1) (\(.columns) columns\(if .inDetails then ", in <details>" else "" end)): \(.scrollWidth) px: \(.header)"')
  if [[ -n $wide ]]; then
    printf '%s: tables wider than the 780 px box:\n%s\n' "$n" "$wide" >&2
    ok=1
  fi
  widened=$(measured "$n" '.boxScrollWidth')
  if ((widened > box)); then
    echo "$n: something widens the box to $widened px" >&2
    ok=1
  fi
  return "$ok"
}

# within_budget NAME: report.md within 20,000 characters; within 3,000 for a
# pass where every metric passed (the all-unchanged pass).
within_budget() {
  local n=$1 chars limit=$BUDGET_ANY verdict=$CASES/$1/verdict.json
  chars=$(measured "$n" '.chars')
  if [[ ! -f $verdict ]] || jq -e '.status == "pass" and (.rows | length > 0) and all(.rows[]; .state == "pass")' "$verdict" >/dev/null; then
    limit=$BUDGET_UNCHANGED_PASS
  fi
  ((chars <= limit)) || {
    echo "$n: report.md is $chars characters, over the budget of $limit" >&2
    return 1
  }
}

# short_enough NAME LIMIT [as-opened]: the comment is at most LIMIT px tall
# with its details folded, or as GitHub opens it (a <details open> open, the
# rest folded).
short_enough() {
  local n=$1 limit=$2 height field=heightFolded how="with its details folded"
  [[ ${3:-} != as-opened ]] || field=heightAsOpened how="as GitHub opens it"
  height=$(measured "$n" ".$field")
  ((height <= limit)) || {
    echo "$n: the comment is $height px tall $how, over $limit px" >&2
    return 1
  }
}

# charts_shown NAME: every chart image of the comment loaded, and there are some.
charts_shown() {
  local n=$1
  [[ $(measured "$n" '.images | length') -gt 0 ]] || {
    echo "$n: the comment shows no chart" >&2
    return 1
  }
  [[ -z $(measured "$n" '.images[] | select(.loaded | not) | .src') ]] || {
    echo "$n: chart images that did not load: $(measured "$n" '[.images[] | select(.loaded | not) | .src] | join(", ")')" >&2
    return 1
  }
}

@test "render: the page, screenshots and figures of every case are written" {
  local n
  for n in pass first-run fail inconclusive error error-baseline ab; do
    [ -s "$RENDER_OUT/$n.png" ]
    [ -s "$RENDER_OUT/$n-open.png" ]
    [ -s "$RENDER_OUT/$n.html" ]
    [ "$(measured "$n" '.heightFolded')" -gt 0 ]
  done
}

@test "render pass: the verdict is pass: every row passed or is shown" {
  verdict_is pass pass
  jq -e 'all(.rows[]; .state == "pass" or .state == "info")' "$CASES/pass/verdict.json"
  jq -e 'any(.rows[]; .kind == "sys")' "$CASES/pass/verdict.json"
}
@test "render pass: at most 1,000 px tall" { short_enough pass "$HEIGHT_PASS"; }
@test "render pass: verdict and reason on the first screen" { on_first_screen pass; }
@test "render pass: no table wider than the box" { tables_fit pass; }
@test "render pass: within 3,000 characters" { within_budget pass; }
@test "render pass: the charts show" { charts_shown pass; }

@test "render first-run: the verdict is pass, every metric new" {
  verdict_is first-run pass
  jq -e 'all(.rows[]; .state == "new")' "$CASES/first-run/verdict.json"
}
@test "render first-run: at most 1,000 px tall" { short_enough first-run "$HEIGHT_PASS"; }
@test "render first-run: verdict and reason on the first screen" { on_first_screen first-run; }
@test "render first-run: no table wider than the box" { tables_fit first-run; }
@test "render first-run: within 20,000 characters" { within_budget first-run; }

@test "render fail: the verdict is fail, a system call named" {
  verdict_is fail fail
  sed -n 2p "$CASES/fail/report.md" | grep -q 'lstat'
}
@test "render fail: at most 1,800 px tall, folded" { short_enough fail "$HEIGHT_OTHER"; }
@test "render fail: verdict and reason on the first screen" { on_first_screen fail; }
@test "render fail: no table wider than the box" { tables_fit fail; }
@test "render fail: within 20,000 characters" { within_budget fail; }
@test "render fail: the charts show" { charts_shown fail; }

@test "render inconclusive: the verdict is inconclusive" { verdict_is inconclusive inconclusive; }
@test "render inconclusive: at most 1,800 px tall, folded" { short_enough inconclusive "$HEIGHT_OTHER"; }
@test "render inconclusive: verdict and reason on the first screen" { on_first_screen inconclusive; }
@test "render inconclusive: no table wider than the box" { tables_fit inconclusive; }
@test "render inconclusive: within 20,000 characters" { within_budget inconclusive; }

@test "render error: the verdict is error (the server died in test 5)" { verdict_is error error; }
@test "render error: at most 1,800 px tall, folded" { short_enough error "$HEIGHT_OTHER"; }
@test "render error: verdict and reason on the first screen" { on_first_screen error; }
@test "render error: no table wider than the box" { tables_fit error; }
@test "render error: within 20,000 characters" { within_budget error; }

@test "render error-baseline: the verdict is error (a baseline cut short)" {
  verdict_is error-baseline error
}
@test "render error-baseline: verdict and reason on the first screen" { on_first_screen error-baseline; }
@test "render error-baseline: no table wider than the box" { tables_fit error-baseline; }
@test "render error-baseline: within 20,000 characters" { within_budget error-baseline; }

@test "render ab: the verdict is inconclusive (A/B, 10 pairs)" {
  verdict_is ab inconclusive
  jq -e '.mode == "ab"' "$CASES/ab/verdict.json"
}
@test "render ab: verdict and reason on the first screen" { on_first_screen ab; }
@test "render ab: at most 1,800 px tall, folded" { short_enough ab "$HEIGHT_OTHER"; }
@test "render ab: no table wider than the box" { tables_fit ab; }
@test "render ab: within 20,000 characters" { within_budget ab; }

# The real runs (fixtures/runs/). Each is held to the state it stands for,
# the first screen, the box and its height folded.
@test "render real ab-ea-ad: A/B, head serving ea = ad: fail, the setting named in the first two lines" {
  verdict_is ab-ea-ad fail
  jq -e '.mode == "ab"' "$CASES/ab-ea-ad/verdict.json"
  sed -n '2,4p' "$CASES/ab-ea-ad/report.md" | grep -q 'ea = ad'
}
@test "render real stored-fail: one lstat more per reply against a stored baseline: fail on afpd's stat calls" {
  verdict_is stored-fail fail
  sed -n 2p "$CASES/stored-fail/report.md" | grep -q 'stat'
}
@test "render real maxdebug: a server logging at maxdebug: fail" { verdict_is maxdebug fail; }
@test "render real error: afpd killed mid-run: error, what was measured kept" {
  verdict_is error error
  jq -e '[.rows[] | select(.current != null)] | length > 0' "$CASES/error/verdict.json"
}
@test "render real after-main-step: a regression on top of main's run at the merge-base: fail, judged against main" {
  verdict_is after-main-step fail
  jq -e '.reference.commit != null' "$CASES/after-main-step/verdict.json"
}
# Main's own day (src/action/e2e/history.e2e.test.ts, issue 44): main took
# ea = ad through a pull request; its comments on histories of two and four runs.
@test "render real pass-history-2: a pull request equal to main after its step, two runs of history: pass, already on main since the step" {
  verdict_is pass-history-2 pass
  # shellcheck disable=SC2016  # backticks of Markdown, not a command
  sed -n 4p "$CASES/pass-history-2/report.md" | grep -q '^\*\*Already on main\*\* since `c0de020`: '
  run ! grep -q '^\*\*Differs:' "$CASES/pass-history-2/report.md"
  # the trend folded, the steps named once per commit
  grep -q '<!-- afpbench-action:trend folded -->' "$CASES/pass-history-2/report.md"
  [ "$(grep -c '^- \*\*\[c0de020\]' "$CASES/pass-history-2/report.md")" -eq 1 ]
}
@test "render real fail-history-2: a pull request taking main's step back: fail against main, Differs names only that" {
  verdict_is fail-history-2 fail
  # shellcheck disable=SC2016  # backticks of Markdown, not a command
  grep -qx '\*\*Differs:\*\* main at `c0de020` serves `ea = ad`; this run does not.' "$CASES/fail-history-2/report.md"
}
@test "render real pass-history-4 and fail-history-4: four runs of history, a pass and a regression on top" {
  verdict_is pass-history-4 pass
  verdict_is fail-history-4 fail
  sed -n 2p "$CASES/fail-history-4/report.md" | grep -q 'stat'
  # the columns say where their figures come from
  # shellcheck disable=SC2016  # backticks of Markdown, not a command
  grep -q '^| Measure | main `c0de040` | This run |' "$CASES/fail-history-4/report.md"
  grep -q 'rows against the stored baseline' "$CASES/fail-history-4/report.md"
}
@test "render real push-step: the push at main's step: pass, the step named as its pull request showed it" {
  verdict_is push-step pass
  sed -n 2p "$CASES/push-step/report.md" | grep -q 'a step at this commit (pull request #2): '
  jq -e '[.rows[] | select(.state == "step")] | length > 0' "$CASES/push-step/verdict.json"
}
@test "render real passes of main's day: at most 1,000 px tall, folded" {
  local r status=0
  for r in "${REAL_PASSES[@]}"; do short_enough "$r" "$HEIGHT_PASS" || status=1; done
  [ "$status" -eq 0 ]
}

@test "render real matrix: three real runs as slices, the worst decides and is open; at most 1,800 px as GitHub opens it" {
  verdict_is matrix fail
  local r="$CASES/matrix/report.md"
  # the table names every slice and what decided it; the first slice that
  # decided is open down to its first folded part, the rest of it folded
  grep -q '^| stored-fail | ❌ fail | ' "$r"
  grep -q '^| maxdebug | ' "$r"
  grep -q '^| ab-ea-ad | ❌ fail | ' "$r"
  [ "$(grep -c '^<details open>' "$r")" -eq 1 ]
  grep -q '^<details open><summary>❌ <b>ab-ea-ad</b>: fail</summary>' "$r"
  grep -q "^<details><summary>The rest of ab-ea-ad's report</summary>" "$r"
  short_enough matrix "$HEIGHT_OTHER" as-opened
  on_first_screen matrix
  tables_fit matrix
  # three reports in one comment: within GitHub's 65,536 characters
  (($(measured matrix '.chars') < 65536))
}

@test "render real release-ab: 4.2.3 against 4.5.1: fail, the version named in the first lines, 4.5's messages not taken for file IO" {
  verdict_is release-ab fail
  sed -n '2,4p' "$CASES/release-ab/report.md" | grep -q 'head runs netatalk 4.5.1, base 4.2.3'
  # the cache hints between 4.5's afpd sessions: pipe reads and local socket
  # writes, named so; afpd's file reads did not move
  grep -q '^| afpd pipe reads | 0 | 0.997 | ❌' "$CASES/release-ab/report.md"
  grep -q '^| afpd local socket writes | 0 | 0.0956 | ❌' "$CASES/release-ab/report.md"
  jq -e '.rows[] | select(.metric == "aggregate.afpd_file_r_per_op") | .state == "pass"' "$CASES/release-ab/verdict.json"
  # the sum over every kind is shown, not deciding
  [ "$(grep -c '^| afpd reads .*❌' "$CASES/release-ab/report.md")" -eq 0 ]
  jq -e '.rows[] | select(.metric == "aggregate.afpd_r_per_op") | .state == "info" and .reading == "fail"' "$CASES/release-ab/verdict.json"
}
@test "render real runs: verdict and reason on the first screen" {
  local r
  for r in "${REAL_RUNS[@]}"; do on_first_screen "$r"; done
}
@test "render real runs: at most 1,800 px tall, folded" {
  local r status=0
  for r in "${REAL_RUNS[@]}"; do
    echo "# $r: $(measured "$r" '.heightFolded') px folded" >&3
    short_enough "$r" "$HEIGHT_OTHER" || status=1
  done
  [ "$status" -eq 0 ]
}
@test "render real runs: no table wider than the box" {
  local r
  for r in "${REAL_RUNS[@]}"; do tables_fit "$r"; done
}

# The controls: each check fails where it must.
@test "render controls: a verdict line that is not a heading fails" {
  run ! on_first_screen not-a-heading
  [[ $output == *"the first visible element is <p>"* ]]
}
@test "render controls: a heading without a reason fails" {
  run ! on_first_screen no-reason
  [[ $output == *"the heading gives no reason after the verdict"* ]]
}
@test "render controls: a heading running past the first screen fails" {
  run ! on_first_screen long-heading
  [[ $output == *"verdict heading ends at y = "* ]]
}
@test "render controls: a reason running past the first screen fails" {
  run ! on_first_screen long-reason
  [[ $output == *"paragraph under the heading ends at y = "* ]]
}
@test "render controls: a table wider than the box fails" {
  run ! tables_fit wide-table
  [[ $output == *"tables wider than the 780 px box"*"column_heading_1"* ]]
}
@test "render controls: a pass taller than 1,000 px fails" {
  run ! short_enough too-tall "$HEIGHT_PASS"
  [[ $output == *"px tall with its details folded, over 1000 px"* ]]
}
@test "render controls: an all-unchanged pass over 3,000 characters fails" {
  run ! within_budget over-budget
  [[ $output == *"over the budget of 3000"* ]]
}
@test "render controls: the charts go where the report marks their place" {
  # (a check of the renderer, as the action does it: without the marker line
  # they go at the end under "### Charts")
  charts_shown charts-marker
  [ "$(measured charts-marker '.images | length')" -eq "$(measured pass '.images | length')" ]
  # right under the heading (one blank line of margin), no "Charts" heading
  [ "$(measured charts-marker '.images[0].top - .first.bottom')" -le 40 ]
  [ "$(measured charts-marker '[.headings[] | select(. == "Charts")] | length')" -eq 0 ]
  # and a paragraph of images under the heading is no reason that must fit
  on_first_screen charts-marker
  # the real reports carry the marker too: their charts come without a
  # heading, folded in a pass (nothing to look at), open in a fail
  grep -qx '<!-- afpbench-action:charts folded -->' "$CASES/pass/report.md"
  [ "$(measured pass '[.headings[] | select(. == "Charts")] | length')" -eq 0 ]
  [ "$(measured pass '.images | length')" -ge 1 ]
  grep -qx '<!-- afpbench-action:charts -->' "$CASES/ab/report.md"
  charts_shown ab
}
