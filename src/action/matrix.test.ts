// The matrix fan-in on result directories laid out as actions/download-artifact
// writes several artifacts: one subdirectory per slice. The verdicts here are
// small hand-written verdict.json files (the action only reads their status,
// rows and summary); the e2e test merges real gate runs.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseSlices } from './inputs.js'
import { fitted, isMatrix, matrixOutputs, readMatrix, splitAtFolded } from './matrix.js'
import { CHARTS_MARKER, CONTEXT_SCHEMA, REPORT_MARKER } from './names.js'

type SliceSpec = {
  status: string
  headline?: string
  failed?: string[]
  report?: string
  pull?: number
  sha?: string
}

function matrixDir(slices: Record<string, SliceSpec>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'matrix-'))
  for (const [name, s] of Object.entries(slices)) {
    const d = path.join(dir, name)
    mkdirSync(d)
    const rows = (s.failed ?? []).map((metric) => ({ metric, ratio: 2, state: 'fail' }))
    // the slice's headline is its verdict's (the report repeats it)
    const headline = s.headline ?? `${s.status} in ${name}`
    writeFileSync(
      path.join(d, 'verdict.json'),
      JSON.stringify({ status: s.status, summary: `${s.status} summary`, headline, rows })
    )
    writeFileSync(
      path.join(d, 'report.md'),
      s.report ??
        `${REPORT_MARKER}\n### afpbench: **${s.status}** — ${headline}\n\n${CHARTS_MARKER}\n\nrows of ${name}\n`
    )
    if (s.pull !== undefined)
      writeFileSync(
        path.join(d, 'action-context.json'),
        JSON.stringify({
          schema: CONTEXT_SCHEMA,
          repository: 'o/r',
          event: 'pull_request',
          pull_request: s.pull,
          head_sha: s.sha ?? 'a'.repeat(40),
          fork: false,
          run_id: 7
        })
      )
  }
  return dir
}

describe('splitAtFolded', () => {
  it('cuts a report before its first <details>, never inside a code block', () => {
    expect(
      splitAtFolded('### head\n\nwhy\n\n<details><summary>x</summary>\n\nrows\n</details>\n')
    ).toEqual(['### head\n\nwhy', '<details><summary>x</summary>\n\nrows\n</details>'])
    expect(splitAtFolded('a\n```\n<details>\n```\nb')).toEqual(['a\n```\n<details>\n```\nb', ''])
    expect(splitAtFolded('only\n')).toEqual(['only', ''])
  })
})

describe('readMatrix', () => {
  it('the worst slice decides; the table names every slice with what decided it', () => {
    const dir = matrixDir({
      'afpbench-dbd': { status: 'pass' },
      'afpbench-sqlite': {
        status: 'fail',
        headline: 'afpd stat calls per op +75 %',
        failed: ['aggregate.afpd_sys_stat_per_op']
      },
      'afpbench-ad': { status: 'inconclusive' }
    })
    const m = readMatrix(dir, ['afpbench-dbd', 'afpbench-sqlite', 'afpbench-ad'])
    expect(m.status).toBe('fail')
    expect(m.headline).toBe('1 of 3 slices failed: afpbench-sqlite; 1 inconclusive, 1 passed')
    const lines = m.report.split('\n')
    expect(lines[0]).toBe(REPORT_MARKER)
    expect(lines[1]).toBe(`### ❌ afpbench: **fail** — ${m.headline}`)
    expect(lines).toContain('| afpbench-sqlite | ❌ fail | afpd stat calls per op +75 % |')
    expect(lines).toContain('| afpbench-dbd | ✅ pass | pass in afpbench-dbd |')
    // each slice's report below, markers gone: the one that decided open, the
    // others folded (the table names what decided each)
    expect(m.report).toContain('<details open><summary>❌ <b>afpbench-sqlite</b>: fail</summary>')
    expect(m.report.match(/<details open>/g)).toHaveLength(1)
    expect(m.report).toContain('<details><summary>✅ <b>afpbench-dbd</b>: pass</summary>')
    expect(m.report).toContain('<details><summary>⚠️ <b>afpbench-ad</b>: inconclusive</summary>')
    expect(m.report).toContain('rows of afpbench-ad')
    expect(m.report.split(REPORT_MARKER)).toHaveLength(2)
    expect(m.report).not.toContain(CHARTS_MARKER)
    expect(matrixOutputs(m)).toMatchObject({
      verdict: 'fail',
      regressions: '1',
      regressedMetrics: JSON.stringify(['afpbench-sqlite: aggregate.afpd_sys_stat_per_op']),
      timePerOpRatio: ''
    })
  })

  it('a listed slice without results is an error, named, and the others still shown', () => {
    const dir = matrixDir({ a: { status: 'pass' }, b: { status: 'fail', failed: ['x'] } })
    mkdirSync(path.join(dir, 'c')) // downloaded, but no verdict in it
    const m = readMatrix(dir, ['a', 'b', 'c', 'd'])
    expect(m.status).toBe('error')
    expect(m.headline).toBe('2 of 4 slices in error: c, d; 1 failed, 1 passed')
    const row = (n: string) => m.report.split('\n').find((l) => l.startsWith(`| ${n} |`))
    expect(row('c')).toMatch(/⛔ error \| no verdict\.json in its results/)
    expect(row('d')).toMatch(
      /⛔ error \| no results: the job failed before it measured, or its artifact was not downloaded into .*\/d/
    )
    expect(row('b')).toMatch(/❌ fail/)
  })

  it('an unreadable verdict is that slice’s error, not a crash', () => {
    const dir = matrixDir({ a: { status: 'pass' }, b: { status: 'bogus' } })
    const m = readMatrix(dir, ['a', 'b'])
    expect(m.status).toBe('error')
    expect(m.slices[1].headline).toMatch(/unreadable verdict\.json: .*"status" is "bogus"/)
  })

  it('slices found but not listed are included, with a warning; none listed: the ones found', () => {
    const dir = matrixDir({ a: { status: 'pass' }, z: { status: 'pass' } })
    const m = readMatrix(dir, ['a'])
    expect(m.slices.map((s) => s.name)).toEqual(['a', 'z'])
    expect(m.warnings.join('\n')).toMatch(/not listed in 'slices': z/)
    const found = readMatrix(dir, [])
    expect(found.slices.map((s) => s.name)).toEqual(['a', 'z'])
    expect(found.status).toBe('pass')
    expect(found.headline).toBe('2 of 2 slices passed')
    expect(found.warnings.join('\n')).toMatch(/cannot be named as missing/)
  })

  it('is a matrix when slices are listed, or when results-dir has no verdict but subdirectories do', () => {
    const dir = matrixDir({ a: { status: 'pass' } })
    expect(isMatrix(dir, [])).toBe(true)
    expect(isMatrix(path.join(dir, 'a'), [])).toBe(false)
    expect(isMatrix(path.join(dir, 'a'), ['x'])).toBe(true)
  })

  it('the pull request comes from the slices when they agree, and from none when they do not', () => {
    const agree = readMatrix(
      matrixDir({ a: { status: 'pass', pull: 5 }, b: { status: 'pass', pull: 5 } }),
      []
    )
    expect(agree.context?.pull_request).toBe(5)
    const differ = readMatrix(
      matrixDir({ a: { status: 'pass', pull: 5 }, b: { status: 'pass', pull: 6 } }),
      []
    )
    expect(differ.context).toBeNull()
    expect(differ.warnings.join('\n')).toMatch(/different pull requests or commits/)
  })

  it('hostile text from an artifact cannot break the table', () => {
    const dir = matrixDir({
      a: { status: 'fail', headline: 'x | y <img src=z> \r\n| injected | row |' }
    })
    const m = readMatrix(dir, [])
    const row = m.report.split('\n').find((l) => l.startsWith('| a |')) ?? ''
    // one cell: its pipes escaped, no HTML, the line breaks shown as \xHH
    expect(row).toBe(
      '| a | ❌ fail | x \\| y &lt;img src=z&gt; \\x0d\\x0a\\| injected \\| row \\| |'
    )
  })

  it('fits in one comment however many slices and however long their reports', () => {
    const long = `${REPORT_MARKER}\n### afpbench: **fail** — long\n\n<details><summary>more</summary>\n\n\`\`\`\n${'row\n'.repeat(20000)}\`\`\`\n\n</details>\n`
    const slices: Record<string, SliceSpec> = {}
    for (let i = 0; i < 12; i++) slices[`s${i}`] = { status: 'fail', report: long }
    const m = readMatrix(matrixDir(slices), [])
    expect(m.report.length).toBeLessThan(64_000)
    expect(m.slices).toHaveLength(12)
    expect(m.fullReport.length).toBeGreaterThan(m.report.length)
    expect(m.fullReport.length).toBeLessThan(1_000_000)
  })
})

describe('fitted', () => {
  it('cuts at a line and closes an open code fence and the details it opened', () => {
    const text = `<details><summary>a</summary>\n\n\`\`\`\n${'line\n'.repeat(500)}\`\`\`\n</details>`
    const cut = fitted(text, 1000)
    expect(cut.length).toBeLessThanOrEqual(1000)
    expect((cut.match(/^```/gm) ?? []).length % 2).toBe(0)
    expect((cut.match(/<details/g) ?? []).length).toBe((cut.match(/<\/details>/g) ?? []).length)
    expect(cut).toMatch(/whole report is in its results artifact/)
    expect(fitted('short', 1000)).toBe('short')
  })
})

describe('parseSlices', () => {
  it('takes commas, spaces and new lines; refuses bad names, duplicates and other modes', () => {
    expect(parseSlices('a, b\nc  d', 'publish')).toEqual(['a', 'b', 'c', 'd'])
    expect(parseSlices('', 'gate')).toEqual([])
    expect(() => parseSlices('a', 'gate')).toThrow(
      /input 'slices': applies only to 'mode: publish'/
    )
    expect(() => parseSlices('..', 'publish')).toThrow(/'\.\.' is not a slice name/)
    expect(() => parseSlices('a/b', 'publish')).toThrow(/'a\/b' is not a slice name/)
    expect(() => parseSlices('a,a', 'publish')).toThrow(/'a' is listed twice/)
  })
})
