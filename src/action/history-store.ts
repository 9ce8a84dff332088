// The data branch: one small file per default-branch run, written through
// the REST API (no checkout, no git push), read back for the trend.
//
//   runs/<key>/<YYYY-MM>/<time>-<commit12>-<run>.json   one run (history-record.ts)
//   releases/<key>/<time>-<tag>.json                    a copy of each release's run, kept
//   archive/<key>/<first>_<last>.json                   older runs, aggregates only
//
// Why this shape (docs/history.md): a file is written once and never
// rewritten, so the branch grows by one run's few KB, never by a rewrite of a
// growing file (github-action-benchmark's data.js grew one project's gh-pages
// to 1.8 GB). Past KEEP_RUNS + COMPACT_BATCH runs of a key, the oldest are
// folded into one archive file and leave the tip's tree, which keeps the tree
// (rewritten on every commit) and the listing the reader fetches bounded.
// Writers race (matrix jobs, pushes close together): a commit moves the branch
// only as a fast-forward, and a writer that lost builds again on the new tip.

import type { GitHubApi, TreeEntry, TreeFile } from './github-api.js'
import { httpStatus } from './github-api.js'
import { parseRecord, RecordError, type HistoryRecord } from './history-record.js'

export const KEEP_RUNS = 100
export const COMPACT_BATCH = 50
export const MAX_TREND_RUNS = KEEP_RUNS
const ARCHIVE_SCHEMA = 'afpbench-history-archive/1'
const MAX_ATTEMPTS = 6

export interface WriteOptions {
  sleep?: (ms: number) => Promise<void>
  keep?: number // runs of a key kept whole in the tip
  batch?: number // runs folded into one archive file at a time
  message?: string
}

export interface Written {
  commit: string
  path: string
  attempts: number
  created: boolean // the first run: the branch was made
  archived: number // runs folded into an archive by this write
}

export interface History {
  missing: boolean // no data branch yet (before the first default-branch run)
  records: HistoryRecord[] // the newest runs of the key, oldest first
  release: HistoryRecord | null // the newest release's run of the key
  runs: number // runs of the key in the tip (archived ones not counted)
  problems: string[] // files that could not be read, skipped
}

// A key as a path component: comment-key, or "default".
export function keyDir(key: string): string {
  const k = key
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 60)
  return k === '' ? 'default' : k
}

// 20261101T000100.123Z: sorts as the runs were measured (to the millisecond)
function stamp(date: string): string {
  return new Date(date).toISOString().replace(/[-:]/g, '')
}

export function runPath(r: HistoryRecord): string {
  const month = r.date.slice(0, 7)
  const run = r.runId !== null ? `-${r.runId}` : ''
  return `runs/${keyDir(r.key)}/${month}/${stamp(r.date)}-${r.commit.slice(0, 12)}${run}.json`
}

function releasePath(r: HistoryRecord): string {
  const tag = r.release.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 60)
  return `releases/${keyDir(r.key)}/${stamp(r.date)}-${tag}.json`
}

const DATA_README = `# afpbench history

Written by afpbench-action on every run of the default branch: one file per run
under runs/, a copy of each release's run under releases/, older runs folded
into archive/. Do not edit by hand; see afpbench-action's docs/history.md.
`

function b64(text: string): string {
  return Buffer.from(text).toString('base64')
}

const byPath = (a: TreeEntry, b: TreeEntry): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0

function filesUnder(files: TreeEntry[], dir: string): TreeEntry[] {
  return files.filter((f) => f.path.startsWith(`${dir}/`) && f.path.endsWith('.json')).sort(byPath)
}

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

// Add one run's record to the branch (made when missing). Retries, with
// backoff, when another writer moved the branch first.
export async function appendRecord(
  api: GitHubApi,
  branch: string,
  record: HistoryRecord,
  opts: WriteOptions = {}
): Promise<Written> {
  const sleep = opts.sleep ?? realSleep
  const keep = opts.keep ?? KEEP_RUNS
  const batch = opts.batch ?? COMPACT_BATCH
  const path = runPath(record)
  const text = `${JSON.stringify(record)}\n`
  const blob = await api.createBlob(b64(text))
  const message =
    opts.message ??
    `afpbench: ${record.release || record.commit.slice(0, 12)} (${keyDir(record.key)})`
  for (let attempt = 1; ; attempt++) {
    const tip = await api.branchSha(branch)
    const entries: TreeFile[] = [{ path, blobSha: blob }]
    if (record.release !== '') entries.push({ path: releasePath(record), blobSha: blob })
    let baseTree: string | undefined
    let archived = 0
    if (tip === null) {
      entries.push({ path: 'README.md', blobSha: await api.createBlob(b64(DATA_README)) })
    } else {
      baseTree = await api.commitTree(tip)
      const listing = await api.listFiles(baseTree)
      // a cut listing cannot be compacted safely: write, fold another time
      if (!listing.truncated) {
        const runs = filesUnder(listing.files, `runs/${keyDir(record.key)}`).filter(
          (f) => f.path !== path
        )
        if (runs.length + 1 > keep + batch) {
          const fold = runs.slice(0, runs.length + 1 - keep)
          entries.push(...(await archiveEntries(api, record.key, fold)))
          archived = fold.length
        }
      }
    }
    const tree = await api.createTree(entries, baseTree)
    const commit = await api.createCommit(message, tree, tip === null ? [] : [tip])
    try {
      if (tip === null) await api.createBranch(branch, commit)
      else await api.moveBranch(branch, commit)
      return { commit, path, attempts: attempt, created: tip === null, archived }
    } catch (e) {
      // 422: another writer moved (or made) the branch first: build on its tip
      if (httpStatus(e) !== 422 || attempt >= MAX_ATTEMPTS) throw e
      await sleep(backoff(attempt))
    }
  }
}

// 0.5, 1, 2, 4, 8 s, each with up to half as much again at random, so that
// two writers that collided do not collide again.
export function backoff(attempt: number): number {
  const base = 500 * 2 ** (attempt - 1)
  return base + Math.floor(Math.random() * base * 0.5)
}

// The archive file for the oldest runs, and their removal from the tree.
async function archiveEntries(api: GitHubApi, key: string, fold: TreeEntry[]): Promise<TreeFile[]> {
  const records: HistoryRecord[] = []
  for (const f of fold) {
    try {
      // the archive keeps what the trend draws: the aggregates
      records.push({ ...parseRecord(await api.readBlob(f.sha), f.path), tests: {} })
    } catch (e) {
      if (!(e instanceof RecordError)) throw e
    }
  }
  const name = (p: string): string =>
    p
      .split('/')
      .pop()
      ?.replace(/\.json$/, '') ?? ''
  const archive = `archive/${keyDir(key)}/${name(fold[0].path)}_${name(fold[fold.length - 1].path)}.json`
  const blob = await api.createBlob(b64(`${JSON.stringify({ schema: ARCHIVE_SCHEMA, records })}\n`))
  return [{ path: archive, blobSha: blob }, ...fold.map((f) => ({ path: f.path, blobSha: null }))]
}

// The newest `limit` runs of a key, and its newest release. Read-only: a fork's
// pull request can read a public repository's branch with its token.
export async function readHistory(
  api: GitHubApi,
  branch: string,
  key: string,
  limit: number
): Promise<History> {
  const history: History = { missing: false, records: [], release: null, runs: 0, problems: [] }
  const tip = await api.branchSha(branch)
  if (tip === null) return { ...history, missing: true }
  const listing = await api.listFiles(await api.commitTree(tip))
  if (listing.truncated) history.problems.push(`the listing of branch '${branch}' was cut short`)
  const runs = filesUnder(listing.files, `runs/${keyDir(key)}`)
  history.runs = runs.length
  const read = async (f: TreeEntry): Promise<HistoryRecord | null> => {
    try {
      return parseRecord(await api.readBlob(f.sha), f.path)
    } catch (e) {
      if (!(e instanceof RecordError)) throw e
      history.problems.push(e.message)
      return null
    }
  }
  for (const f of runs.slice(-limit)) {
    const r = await read(f)
    if (r !== null) history.records.push(r)
  }
  const releases = filesUnder(listing.files, `releases/${keyDir(key)}`)
  const newest = releases[releases.length - 1]
  if (newest !== undefined) history.release = await read(newest)
  return history
}
