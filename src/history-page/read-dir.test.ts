import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { DirError, readDataDir } from './read-dir.js'
import { makeHistory, type Made } from './testing/make-history.js'

const work = mkdtempSync(path.join(os.tmpdir(), 'afpbench-page-dir-'))
let made: Made

beforeAll(() => {
  made = makeHistory(path.join(work, 'h'), 12, work)
}, 60_000)

describe('a directory in the data branch layout', () => {
  it("reads every run of every key, and an archive's runs", () => {
    const dir = path.join(work, 'h')
    // an archive of two older runs, as history-store folds them
    const old = made.records.slice(0, 2).map((r) => ({
      ...r,
      commit: r.commit.replace(/^./, 'f'),
      date: `2025-${r.date.slice(5)}`,
      tests: {}
    }))
    mkdirSync(path.join(dir, 'archive', 'default'), { recursive: true })
    writeFileSync(
      path.join(dir, 'archive', 'default', 'a_b.json'),
      JSON.stringify({ schema: 'afpbench-history-archive/1', records: old })
    )
    // a second key
    const other = path.join(dir, 'runs', 'sqlite', '2026-01')
    mkdirSync(other, { recursive: true })
    writeFileSync(path.join(other, 'x.json'), JSON.stringify({ ...made.records[0], key: 'sqlite' }))
    const h = readDataDir(dir)
    expect(h.problems).toEqual([])
    expect(h.keys.map((k) => [k.dir, k.key, k.records.length])).toEqual([
      ['default', '', 14],
      ['sqlite', 'sqlite', 1]
    ])
    const d = h.keys[0]
    expect(d.archives).toEqual(['a_b.json'])
    expect(d.records.filter((r) => r.run.archived)).toHaveLength(2)
    // a run file's name is its id
    expect(d.records[2].run.id).toMatch(/^\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{12}-\d+$/)
  })

  it('skips, naming each, a file that is not a record, and follows no symbolic link', () => {
    const dir = mkdtempSync(path.join(work, 'bad-'))
    const month = path.join(dir, 'runs', 'default', '2026-01')
    mkdirSync(month, { recursive: true })
    writeFileSync(path.join(month, 'good.json'), JSON.stringify(made.records[0]))
    writeFileSync(path.join(month, 'broken.json'), '{"schema":')
    writeFileSync(
      path.join(month, 'other.json'),
      JSON.stringify({ ...made.records[1], schema: 'x/1' })
    )
    writeFileSync(path.join(month, 'big.json'), ' '.repeat(300 * 1024))
    const secret = path.join(work, 'elsewhere.json')
    writeFileSync(secret, readFileSync(path.join(month, 'good.json')))
    symlinkSync(secret, path.join(month, 'link.json'))
    symlinkSync(work, path.join(dir, 'runs', 'linked-key'))
    const h = readDataDir(dir)
    expect(h.keys.map((k) => [k.dir, k.records.length])).toEqual([['default', 1]])
    expect(h.problems).toHaveLength(3)
    expect(h.problems.join('\n')).toMatch(/broken.json is not JSON/)
    expect(h.problems.join('\n')).toMatch(/other.json: schema is "x\/1"/)
    expect(h.problems.join('\n')).toMatch(/big.json is larger than/)
  })

  it('is refused when it is not one', () => {
    expect(() => readDataDir(path.join(work, 'missing'))).toThrow(DirError)
    const empty = mkdtempSync(path.join(work, 'empty-'))
    expect(() => readDataDir(empty)).toThrow(/has no runs\/ or archive\/ directory/)
  })
})
