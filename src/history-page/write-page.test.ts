import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { readIndex } from './page-data.js'
import { readDataDir, type DirHistory } from './read-dir.js'
import { makeHistory } from './testing/make-history.js'
import { OutError, writePage } from './write-page.js'

const work = mkdtempSync(path.join(os.tmpdir(), 'afpbench-page-write-'))
let history: DirHistory

beforeAll(() => {
  makeHistory(path.join(work, 'h'), 8, work)
  history = readDataDir(path.join(work, 'h'))
}, 60_000)

describe('writing the page', () => {
  it('writes the page and every key, and counts its bytes', () => {
    const out = path.join(work, 'out')
    const w = writePage(history, out, { repoUrl: 'https://github.com/o/r' })
    expect(w).toMatchObject({ files: 7, runs: 8, keys: 1 })
    expect(w.bytes).toBeGreaterThan(w.dataBytes)
    expect(readIndex(readFileSync(path.join(out, 'data', 'index.json'), 'utf8')).keys).toEqual([
      {
        key: '',
        dir: 'default',
        runs: 8,
        first: history.keys[0].records[0].run.date,
        last: expect.any(String) as string
      }
    ])
    const csp = readFileSync(path.join(out, 'index.html'), 'utf8')
    expect(csp).toContain("script-src 'self'")
  })

  it('over a page made before, drops the keys that are gone', () => {
    const out = path.join(work, 'again')
    writePage(history, out, { repoUrl: '' })
    mkdirSync(path.join(out, 'data', 'gone'))
    writeFileSync(path.join(out, 'data', 'gone', 'key.json'), '{}')
    writePage(history, out, { repoUrl: '' })
    expect(existsSync(path.join(out, 'data', 'gone'))).toBe(false)
    expect(existsSync(path.join(out, 'data', 'default', 'key.json'))).toBe(true)
  })

  it('never writes into a directory that holds something else, or over a file', () => {
    const other = path.join(work, 'other')
    mkdirSync(other)
    writeFileSync(path.join(other, 'mine.txt'), 'x')
    expect(() => writePage(history, other, { repoUrl: '' })).toThrow(OutError)
    const file = path.join(work, 'a-file')
    writeFileSync(file, 'x')
    expect(() => writePage(history, file, { repoUrl: '' })).toThrow(/is not a directory/)
  })
})
