// scripts/history-page as a person runs it (the committed dist/ bundle).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { makeHistory, REPO_ROOT } from './testing/make-history.js'

const work = mkdtempSync(path.join(os.tmpdir(), 'afpbench-page-cli-'))
const history = path.join(work, 'h')

function page(...args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(path.join(REPO_ROOT, 'scripts', 'history-page'), args, {
    encoding: 'utf8',
    cwd: work
  })
  return { status: r.status, out: r.stdout, err: r.stderr }
}

beforeAll(() => {
  makeHistory(history, 30, work)
}, 60_000)

describe('scripts/history-page', () => {
  it('writes the page, and says what it wrote', () => {
    const r = page(history, 'out', '--repo-url', 'https://github.com/Netatalk/netatalk')
    expect(r.err).toBe('')
    expect(r.status).toBe(0)
    expect(r.out).toMatch(
      /^history-page: out: 30 runs of 1 key\(s\), 4 steps; 7 files, \d+ bytes \(data \d+\)\n$/
    )
    for (const f of [
      'index.html',
      'app.js',
      'app.css',
      'data/index.json',
      'data/default/key.json',
      'data/default/c0000.json'
    ])
      expect(existsSync(path.join(work, 'out', f))).toBe(true)
    expect(
      JSON.parse(readFileSync(path.join(work, 'out', 'data', 'index.json'), 'utf8'))
    ).toMatchObject({ repoUrl: 'https://github.com/Netatalk/netatalk' })
    // again over the page made before: rewritten
    expect(page(history, 'out').status).toBe(0)
  })

  it('writes ./history-page by default', () => {
    expect(page(history).status).toBe(0)
    expect(existsSync(path.join(work, 'history-page', 'index.html'))).toBe(true)
  })

  it('ends with 3 and names the cause on bad input, writing nothing', () => {
    const cases: [string[], RegExp][] = [
      [[], /^history-page: usage: scripts\/history-page DIR/],
      [[path.join(work, 'missing')], /missing is not a directory/],
      [[work], /has no runs\/ or archive\/ directory/],
      [
        [history, 'x', '--repo-url', 'javascript:alert(1)'],
        /--repo-url 'javascript:alert\(1\)' is not an https address/
      ],
      [[history, 'x', '--nope'], /unknown option --nope/]
    ]
    for (const [args, why] of cases) {
      const r = page(...args)
      expect(r.status, args.join(' ')).toBe(3)
      expect(r.err).toMatch(why)
    }
    // a directory that holds something else is left alone
    const other = path.join(work, 'mine')
    mkdirSync(other)
    writeFileSync(path.join(other, 'notes.txt'), 'keep me')
    const r = page(history, other)
    expect(r.status).toBe(3)
    expect(r.err).toMatch(/is not empty and holds no history page/)
    expect(readFileSync(path.join(other, 'notes.txt'), 'utf8')).toBe('keep me')
    expect(existsSync(path.join(other, 'index.html'))).toBe(false)
  })

  it('prints its usage and ends with 0 when asked', () => {
    const r = page('--help')
    expect(r.status).toBe(0)
    expect(r.out).toMatch(/^usage: scripts\/history-page DIR \[OUT\]/)
  })
})
