import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { failureMessage, shouldFail } from './outcome.js'
import {
  formatRatio,
  headingLine,
  STATUS_ICONS,
  STATUSES,
  parseVerdict,
  readVerdict,
  statusFromExit,
  verdictOutputs,
  worse
} from './verdict.js'

const verdict = {
  status: 'fail',
  summary: 'afpd writes per AFP op grew 12 % (threshold 2 %)',
  decided_by: 'aggregate.afpd_w_per_op',
  errors: [],
  rows: [
    {
      metric: 'aggregate.time_per_op',
      ratio: 1.0312345,
      state: 'pass',
      baseline: 10,
      current: 10.3
    },
    { metric: 'aggregate.afpd_r_per_op', ratio: 0.99, state: 'pass' },
    { metric: 'aggregate.afpd_w_per_op', ratio: 1.12, state: 'fail' },
    { metric: 'lantest.4.afpd_w', ratio: 1.5, state: 'fail' },
    { metric: 'lantest.9.time', ratio: null, state: 'inconclusive' }
  ]
}

describe('verdict.json', () => {
  it('maps the aggregate rows to the ratio outputs and counts the failed rows', () => {
    expect(verdictOutputs(parseVerdict(JSON.stringify(verdict), 'v'))).toEqual({
      verdict: 'fail',
      summary: verdict.summary,
      timePerOpRatio: '1.0312',
      readsPerOpRatio: '0.99',
      writesPerOpRatio: '1.12',
      regressions: '2',
      regressedMetrics: '["aggregate.afpd_w_per_op","lantest.4.afpd_w"]'
    })
  })

  it('a missing aggregate row (IO monitoring off) gives an empty output', () => {
    const v = parseVerdict(JSON.stringify({ status: 'pass', rows: [] }), 'v')
    expect(verdictOutputs(v)).toMatchObject({
      readsPerOpRatio: '',
      regressions: '0',
      regressedMetrics: '[]'
    })
  })

  it.each([
    ['not JSON', '{', /v is not JSON/],
    ['not an object', '[]', /v is not a JSON object/],
    ['an unknown status', '{"status":"great"}', /"status" is "great", not one of/],
    ['no status', '{"rows":[]}', /"status" is undefined/],
    ['rows not an array', '{"status":"pass","rows":{}}', /"rows" is not an array/],
    ['a row not an object', '{"status":"pass","rows":[1]}', /rows\[0\] is not an object/]
  ])('rejects %s', (_what, json, message) => {
    expect(() => parseVerdict(json, 'v')).toThrow(message)
  })

  it('drops non-numeric ratios and over-long text', () => {
    const v = parseVerdict(
      JSON.stringify({
        status: 'pass',
        summary: 'x'.repeat(5000),
        rows: [{ metric: 'm', ratio: 'big', state: 'pass' }]
      }),
      'v'
    )
    expect(v.rows[0].ratio).toBeNull()
    expect(v.summary.length).toBe(2000)
  })

  it('escapes control characters: no workflow command from a verdict reaches the log (issue 10)', () => {
    const v = parseVerdict(
      JSON.stringify({
        status: 'error',
        summary: 'error: server evil\u001b[31m\r\n::set-output name=verdict::pass',
        errors: ['a\n::error::b', 'c\u009bd']
      }),
      'v'
    )
    expect(v.summary).toBe('error: server evil\\x1b[31m\\x0d\\x0a::set-output name=verdict::pass')
    expect(v.errors).toEqual(['a\\x0a::error::b', 'c\\x9bd'])
    for (const t of [v.summary, ...v.errors])
      for (const c of ['\r', '\n', '\u001b', '\u009b']) expect(t).not.toContain(c)
  })

  it('readVerdict: null when there is no file, parsed when there is', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'verdict-'))
    expect(readVerdict(dir)).toBeNull()
    writeFileSync(path.join(dir, 'verdict.json'), JSON.stringify(verdict))
    expect(readVerdict(dir)?.status).toBe('fail')
  })

  it('formats ratios without exponents', () => {
    expect(formatRatio(1)).toBe('1')
    expect(formatRatio(0.000012)).toBe('0')
    expect(formatRatio(2.34567)).toBe('2.3457')
  })
})

describe('gate exit status and verdict', () => {
  it('maps exit statuses', () => {
    expect([0, 1, 2, 3, 127, -1].map(statusFromExit)).toEqual([
      'pass',
      'fail',
      'inconclusive',
      'error',
      'error',
      'error'
    ])
  })

  it('takes the worse status', () => {
    expect(worse('pass', 'fail')).toBe('fail')
    expect(worse('error', 'inconclusive')).toBe('error')
    expect(worse('inconclusive', 'pass')).toBe('inconclusive')
  })
})

describe('fail-on', () => {
  it.each([
    ['pass', 'regression', false],
    ['pass', 'inconclusive', false],
    ['pass', 'never', false],
    ['inconclusive', 'regression', false],
    ['inconclusive', 'inconclusive', true],
    ['inconclusive', 'never', false],
    ['fail', 'regression', true],
    ['fail', 'inconclusive', true],
    ['fail', 'never', false],
    ['error', 'regression', true],
    ['error', 'inconclusive', true],
    ['error', 'never', true]
  ] as const)('%s with fail-on %s: fails = %s', (status, failOn, fails) => {
    expect(shouldFail(status, failOn)).toBe(fails)
  })

  it('says what the verdict means', () => {
    expect(failureMessage('fail', 'writes grew')).toBe(
      'afpbench verdict: fail: performance regressed beyond the thresholds (writes grew)'
    )
    expect(failureMessage('error', '')).toMatch(/could not reach a verdict$/)
  })
})

// One heading: the comments the action writes itself (a matrix's, a run's
// that wrote no report) head as report.jq heads the gate's.
describe('headingLine', () => {
  const jqDir = path.join(import.meta.dirname, '..', '..', 'scripts', 'jq')
  it.each(STATUSES)("%s: the icon is words.jq's", (status) => {
    const r = spawnSync(
      'jq',
      ['-n', '-r', '-L', jqDir, '--arg', 's', status, 'include "words"; $s | icon'],
      {
        encoding: 'utf8'
      }
    )
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout.trim()).toBe(STATUS_ICONS[status])
  })
  it("is report.jq's heading line", () => {
    const r = spawnSync(
      'grep',
      [
        '-F',
        '"### \\($v.icon // ($v.status | icon)) afpbench: **\\($v.status)** — ',
        path.join(jqDir, 'report.jq')
      ],
      { encoding: 'utf8' }
    )
    expect(r.stdout, "report.jq's heading changed: change headingLine with it").not.toBe('')
    expect(headingLine('fail', 'x +4 %')).toBe('### ❌ afpbench: **fail** — x +4 %')
    expect(headingLine('error', '')).toBe('### ⛔ afpbench: **error**')
  })
})
