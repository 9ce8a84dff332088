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
import { keyDir, releasePath, runPath } from './history-layout.js'

export { keyDir, runPath }

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

const DATA_README = `# afpbench history

Written by afpbench-action on every run of the default branch: one file per run
under runs/, a copy of each release's run under releases/, older runs folded
into archive/. Do not edit by hand; see afpbench-action's docs/history.md.
`

function b64(text: string): string {
  return Buffer.from(text).toString('base64')
}

const byPath = (a: { path: string }, b: { path: string }): number =>
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
  const w = await appendRecords(api, branch, [record], {
    ...opts,
    message:
      opts.message ??
      `afpbench: ${record.release || record.commit.slice(0, 12)} (${keyDir(record.key)})`
  })
  return { ...w, path: w.paths[0] }
}

export interface WrittenMany extends Omit<Written, 'path'> {
  paths: string[] // each record's run file (one folded at once into an archive: its run file's name)
}

// Add many runs' records to the branch in one commit (a backfill's fan-in):
// one file each, as appendRecord writes one; the oldest runs of a key folded
// into an archive file when the key passes keep + batch, new ones among them.
// Retries as appendRecord does: a writer that lost builds on the new tip.
export async function appendRecords(
  api: GitHubApi,
  branch: string,
  records: HistoryRecord[],
  opts: WriteOptions = {}
): Promise<WrittenMany> {
  const sleep = opts.sleep ?? realSleep
  const keep = opts.keep ?? KEEP_RUNS
  const batch = opts.batch ?? COMPACT_BATCH
  const message = opts.message ?? `afpbench: ${records.length} runs`
  const fresh: Fresh[] = []
  for (const record of records) {
    const blob = await api.createBlob(b64(`${JSON.stringify(record)}\n`))
    fresh.push({ path: runPath(record), sha: blob, record })
  }
  const paths = fresh.map((f) => f.path)
  for (let attempt = 1; ; attempt++) {
    const tip = await api.branchSha(branch)
    const written = new Set(paths)
    let entries: TreeFile[] = []
    let baseTree: string | undefined
    let archived = 0
    if (tip === null) {
      entries.push({ path: 'README.md', blobSha: await api.createBlob(b64(DATA_README)) })
    } else {
      baseTree = await api.commitTree(tip)
      const listing = await api.listFiles(baseTree)
      // a cut listing cannot be compacted safely: write, fold another time
      if (!listing.truncated) {
        for (const key of new Set(records.map((r) => r.key))) {
          const mine = fresh.filter((f) => f.record.key === key)
          const runs: RunFile[] = [
            ...filesUnder(listing.files, `runs/${keyDir(key)}`)
              .filter((f) => !written.has(f.path))
              .map((f) => ({ path: f.path, sha: f.sha, record: null })),
            ...mine
          ].sort(byPath)
          if (runs.length > keep + batch) {
            const fold = runs.slice(0, runs.length - keep)
            entries.push(...(await archiveEntries(api, key, fold)))
            for (const f of fold) written.delete(f.path)
            archived += fold.length
          }
        }
      }
    }
    entries = [
      ...fresh
        .filter((f) => written.has(f.path))
        .flatMap((f) => [
          { path: f.path, blobSha: f.sha },
          ...(f.record.release !== '' ? [{ path: releasePath(f.record), blobSha: f.sha }] : [])
        ]),
      ...entries
    ]
    const tree = await api.createTree(entries, baseTree)
    const commit = await api.createCommit(message, tree, tip === null ? [] : [tip])
    try {
      if (tip === null) await api.createBranch(branch, commit)
      else await api.moveBranch(branch, commit)
      return { commit, paths, attempts: attempt, created: tip === null, archived }
    } catch (e) {
      // 422: another writer moved (or made) the branch first: build on its tip
      if (httpStatus(e) !== 422 || attempt >= MAX_ATTEMPTS) throw e
      await sleep(backoff(attempt))
    }
  }
}

// A run file: one on the branch (record null: read it to fold it), or one
// being written (Fresh: its blob made, its record at hand).
interface RunFile {
  path: string
  sha: string
  record: HistoryRecord | null
}
interface Fresh extends RunFile {
  record: HistoryRecord
}

// 0.5, 1, 2, 4, 8 s, each with up to half as much again at random, so that
// two writers that collided do not collide again.
export function backoff(attempt: number): number {
  const base = 500 * 2 ** (attempt - 1)
  return base + Math.floor(Math.random() * base * 0.5)
}

// The archive file for the oldest runs, and the removal from the tree of
// those the branch has (a run being written is folded without its file).
async function archiveEntries(api: GitHubApi, key: string, fold: RunFile[]): Promise<TreeFile[]> {
  const records: HistoryRecord[] = []
  for (const f of fold) {
    try {
      // the archive keeps what the trend draws: the aggregates
      const r = f.record ?? parseRecord(await api.readBlob(f.sha), f.path)
      records.push({ ...r, tests: {} })
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
  return [
    { path: archive, blobSha: blob },
    ...fold.filter((f) => f.record === null).map((f) => ({ path: f.path, blobSha: null }))
  ]
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
