// A directory in the data branch's layout (a checkout of it, or a backfill's
// output), read for the history page:
//
//   runs/<key>/<YYYY-MM>/<time>-<commit12>-<run>.json   one run each
//   archive/<key>/<first>_<last>.json                   older runs, aggregates only
//
// (releases/ holds copies of runs already under runs/.) Every file is
// untrusted: regular files only (no symbolic link leads out), each bounded,
// each checked; a file that fails is skipped and named.

import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { MAX_RECORD_BYTES, RecordError } from '../action/history-record.js'
import { isDir, MAX_FILE_BYTES, MAX_KEYS, MAX_RUNS, PageDataError, parseJson } from './page-data.js'
import { readPageRecord, type PageRecord } from './page-record.js'

const ARCHIVE_SCHEMA = 'afpbench-history-archive/1'
const MAX_FILES = 2 * MAX_RUNS

export class DirError extends Error {}

export interface DirKey {
  dir: string
  key: string // the comment-key its newest record names
  records: PageRecord[]
  archives: string[]
}

export interface DirHistory {
  keys: DirKey[]
  problems: string[] // files skipped, and why
}

function isDirectory(p: string): boolean {
  try {
    return lstatSync(p).isDirectory()
  } catch {
    return false
  }
}

// The .json files under dir, depth first, in name order: regular files only.
function jsonFiles(dir: string, depth: number, out: string[]): void {
  let names: string[]
  try {
    names = readdirSync(dir).sort()
  } catch {
    return
  }
  for (const name of names) {
    if (out.length >= MAX_FILES) return
    const p = path.join(dir, name)
    const st = lstatSync(p)
    if (st.isDirectory() && depth > 0) jsonFiles(p, depth - 1, out)
    else if (st.isFile() && name.endsWith('.json')) out.push(p)
  }
}

function readBounded(file: string, max: number): string {
  const size = lstatSync(file).size
  if (size > max) throw new PageDataError(`${file} is larger than ${max} bytes`)
  return readFileSync(file, 'utf8')
}

function skip(problems: string[], e: unknown): void {
  if (!(e instanceof RecordError) && !(e instanceof PageDataError)) throw e
  if (problems.length < 100) problems.push(e.message)
}

export function readDataDir(root: string): DirHistory {
  if (!isDirectory(root)) throw new DirError(`${root} is not a directory`)
  const runsDir = path.join(root, 'runs')
  const archiveDir = path.join(root, 'archive')
  if (!isDirectory(runsDir) && !isDirectory(archiveDir))
    throw new DirError(
      `${root} has no runs/ or archive/ directory: it is not in the data branch's layout (docs/history.md)`
    )
  const problems: string[] = []
  const dirs = new Set<string>()
  for (const d of [runsDir, archiveDir])
    if (isDirectory(d))
      for (const name of readdirSync(d)) if (isDirectory(path.join(d, name))) dirs.add(name)
  const keys: DirKey[] = []
  for (const dir of [...dirs].sort()) {
    if (!isDir(dir)) {
      problems.push(`runs/${dir.slice(0, 60)}: not a key's directory name, skipped`)
      continue
    }
    if (keys.length >= MAX_KEYS) {
      problems.push(`more than ${MAX_KEYS} keys: ${dir} and after skipped`)
      break
    }
    const records: PageRecord[] = []
    const runFiles: string[] = []
    jsonFiles(path.join(runsDir, dir), 2, runFiles)
    for (const file of runFiles) {
      try {
        const id = path.basename(file, '.json')
        records.push(readPageRecord(readBounded(file, MAX_RECORD_BYTES), file, { id }))
      } catch (e) {
        skip(problems, e)
      }
    }
    const archives: string[] = []
    const archiveFiles: string[] = []
    jsonFiles(path.join(archiveDir, dir), 0, archiveFiles)
    for (const file of archiveFiles) {
      try {
        records.push(...readArchive(readBounded(file, MAX_FILE_BYTES), file))
        archives.push(path.basename(file))
      } catch (e) {
        skip(problems, e)
      }
    }
    if (records.length === 0) continue
    const newest = records.reduce((a, b) => (b.run.date > a.run.date ? b : a))
    keys.push({ dir, key: newest.record.key, records, archives })
  }
  return { keys, problems }
}

// An archive file's runs (history-store.ts folds the oldest runs into one).
export function readArchive(raw: string, where: string): PageRecord[] {
  const j = parseJson(raw, where)
  if (j.schema !== ARCHIVE_SCHEMA)
    throw new PageDataError(
      `${where}: schema is ${JSON.stringify(j.schema)}, not ${ARCHIVE_SCHEMA}`
    )
  const list = Array.isArray(j.records) ? j.records.slice(0, MAX_RUNS) : []
  const out: PageRecord[] = []
  list.forEach((r, i) => {
    try {
      out.push(readPageRecord(JSON.stringify(r), `${where} [${i}]`, { archived: true }))
    } catch (e) {
      if (!(e instanceof RecordError) && !(e instanceof PageDataError)) throw e
    }
  })
  return out
}
