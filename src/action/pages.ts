// The history page, published (docs/history-page.md): after a run of the
// default branch is written to the history, the page of its key is made again
// and committed to the Pages branch through the REST API, as the data branch
// is written (history-store.ts): one commit, fast-forward only, built again on
// the new tip when another writer moved the branch first.
//
// What it reads: the page's own chunks on the Pages branch are its copy of the
// runs (page-data.ts), so a push reads the data branch's listing and only the
// runs the page does not have yet (normally the one just written), not every
// run again. What it writes: only the files that changed (the last chunk,
// key.json, index.json); a full chunk never changes, so the branch grows by
// about one chunk's worth per push, not by a file that grows with the history.

import { createHash } from 'node:crypto'
import type { EventInfo } from './event.js'
import {
  errorText,
  httpStatus,
  type GitHubApi,
  type TreeEntry,
  type TreeFile
} from './github-api.js'
import { RecordError } from './history-record.js'
import { backoff, keyDir } from './history-store.js'
import { writesHistory } from './history.js'
import type { Config } from './inputs.js'
import { pageUrl } from './page-url.js'
import type { Logger } from './publish.js'
import { pageAssets } from '../history-page/assets.js'
import {
  decodeChunk,
  PageDataError,
  readIndex,
  readKeyData,
  safeRepoUrl,
  type KeySummary
} from '../history-page/page-data.js'
import { readPageRecord, type PageRecord } from '../history-page/page-record.js'
import { readArchive } from '../history-page/read-dir.js'
import { indexFile, keyFiles, recordsOfChunks } from '../history-page/site.js'

const MAX_ATTEMPTS = 6
const MAX_READS = 400 // data-branch files read in one publish (the first reads them all)
const READERS = 8 // blobs read at once

export interface PublishedPage {
  commit: string
  url: string
  runs: number
  steps: number
  files: number // files written (changed)
  reads: number // data-branch files read
  attempts: number
}

// git's name for a file's content: what GitHub's tree listing gives
export function gitBlobSha(content: string): string {
  const body = Buffer.from(content)
  return createHash('sha1')
    .update(Buffer.concat([Buffer.from(`blob ${body.length}\0`), body]))
    .digest('hex')
}

async function mapLimit<T, R>(items: T[], limit: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++
      out[i] = await f(items[i])
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

function stem(p: string): string {
  return (p.split('/').pop() ?? '').replace(/\.json$/, '')
}

interface Cached {
  records: PageRecord[]
  archives: string[]
  index: KeySummary[] // the other keys' entries of index.json
  read: Map<string, string> // path -> content of the files read
}

// What the Pages branch holds of this key: its runs (from the chunks), the
// archives already in them, and the other keys. A page that cannot be read is
// made again from the data branch.
async function readCached(
  api: GitHubApi,
  files: TreeEntry[],
  dir: string,
  log: Logger
): Promise<Cached> {
  const byPath = new Map(files.map((f) => [f.path, f]))
  const read = new Map<string, string>()
  const get = async (p: string): Promise<string | null> => {
    const f = byPath.get(p)
    if (f === undefined) return null
    const text = await api.readBlob(f.sha)
    read.set(p, text)
    return text
  }
  const cached: Cached = { records: [], archives: [], index: [], read }
  try {
    const index = await get('data/index.json')
    if (index !== null) cached.index = readIndex(index).keys.filter((k) => k.dir !== dir)
    const keyJson = await get(`data/${dir}/key.json`)
    if (keyJson === null) return cached
    const data = readKeyData(
      keyJson,
      (await get(`data/${dir}/rows.json`)) ?? '',
      `data/${dir}/key.json`
    )
    const chunks = await mapLimit(data.chunks, READERS, async (c) => {
      const p = `data/${dir}/${c.file}`
      return decodeChunk((await get(p)) ?? '', p, c.runs)
    })
    cached.records = recordsOfChunks(data, chunks)
    cached.archives = data.archives
  } catch (e) {
    if (!(e instanceof PageDataError)) throw e
    log.info(
      `History page: the page on the branch cannot be read (${e.message}); made again from the history.`
    )
    return { records: [], archives: [], index: cached.index, read }
  }
  return cached
}

// The runs of the key that the page does not have yet, from the data branch.
async function readNew(
  api: GitHubApi,
  branch: string,
  dir: string,
  cached: Cached,
  log: Logger
): Promise<{ records: PageRecord[]; archives: string[]; reads: number }> {
  const tip = await api.branchSha(branch)
  if (tip === null) return { records: [], archives: [], reads: 0 }
  const listing = await api.listFiles(await api.commitTree(tip))
  const known = new Set(cached.records.map((r) => r.run.id))
  const runs = listing.files.filter(
    (f) => f.path.startsWith(`runs/${dir}/`) && f.path.endsWith('.json') && !known.has(stem(f.path))
  )
  const archives = listing.files.filter(
    (f) =>
      f.path.startsWith(`archive/${dir}/`) &&
      f.path.endsWith('.json') &&
      !cached.archives.includes(f.path.slice(`archive/${dir}/`.length))
  )
  const todo = [...archives, ...runs]
  if (todo.length > MAX_READS)
    log.warning(
      `History page: ${todo.length} files of branch '${branch}' are new to the page; ${MAX_READS} read now, the rest on the next runs.`
    )
  const records: PageRecord[] = []
  const done: string[] = []
  const read = await mapLimit(todo.slice(0, MAX_READS), READERS, async (f) => {
    try {
      const text = await api.readBlob(f.sha)
      return f.path.startsWith('archive/')
        ? readArchive(text, f.path)
        : [readPageRecord(text, f.path, { id: stem(f.path) })]
    } catch (e) {
      if (!(e instanceof RecordError) && !(e instanceof PageDataError)) throw e
      log.warning(`History page: ${e.message} (skipped)`)
      return []
    }
  })
  todo.slice(0, MAX_READS).forEach((f, i) => {
    records.push(...read[i])
    if (f.path.startsWith('archive/')) done.push(f.path.slice(`archive/${dir}/`.length))
  })
  return { records, archives: done, reads: Math.min(todo.length, MAX_READS) }
}

// The page of this run's key, committed to the Pages branch. Retries when
// another writer moved the branch first; throws on anything else.
export async function writePage(
  api: GitHubApi,
  opts: {
    pagesBranch: string
    historyBranch: string
    key: string
    repoUrl: string
    url: string
    sleep?: (ms: number) => Promise<void>
  },
  log: Logger
): Promise<PublishedPage | null> {
  const dir = keyDir(opts.key)
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
  for (let attempt = 1; ; attempt++) {
    const tip = await api.branchSha(opts.pagesBranch)
    const baseTree = tip === null ? undefined : await api.commitTree(tip)
    const listing = baseTree === undefined ? [] : (await api.listFiles(baseTree)).files
    const cached = await readCached(api, listing, dir, log)
    const fresh = await readNew(api, opts.historyBranch, dir, cached, log)
    const made = keyFiles(
      dir,
      opts.key,
      [...cached.records, ...fresh.records],
      [...cached.archives, ...fresh.archives]
    )
    if (made.data.runs === 0) return null
    const files = pageAssets()
    for (const [name, content] of made.files) files.set(`data/${dir}/${name}`, content)
    files.set(
      'data/index.json',
      indexFile([...cached.index, made.summary], safeRepoUrl(opts.repoUrl))
    )
    // only what changed: the listing names each file by its content's sha
    const old = new Map(listing.map((f) => [f.path, f.sha]))
    const changed = [...files].filter(
      ([p, content]) => old.get(p) !== gitBlobSha(content) && cached.read.get(p) !== content
    )
    const gone = listing
      .filter((f) => f.path.startsWith(`data/${dir}/`) && !files.has(f.path))
      .map((f): TreeFile => ({ path: f.path, blobSha: null }))
    const entries: TreeFile[] = [...gone]
    const result = {
      url: opts.url,
      runs: made.data.runs,
      steps: made.data.steps.length,
      files: changed.length,
      reads: fresh.reads,
      attempts: attempt
    }
    // nothing new (a run made again): no commit
    if (changed.length === 0 && gone.length === 0 && tip !== null) return { ...result, commit: tip }
    for (const [p, content] of changed)
      entries.push({
        path: p,
        blobSha: await api.createBlob(Buffer.from(content).toString('base64'))
      })
    const tree = await api.createTree(entries, baseTree)
    const commit = await api.createCommit(
      `afpbench: the history page (${dir}, ${made.data.runs} runs)`,
      tree,
      tip === null ? [] : [tip]
    )
    try {
      if (tip === null) await api.createBranch(opts.pagesBranch, commit)
      else await api.moveBranch(opts.pagesBranch, commit)
      return { ...result, commit }
    } catch (e) {
      // 422: another writer moved (or made) the branch first: again on its tip
      if (httpStatus(e) !== 422 || attempt >= MAX_ATTEMPTS) throw e
      await sleep(backoff(attempt))
    }
  }
}

// After this run was written to the history: publish the page, and return
// the job summary's line about it. Never fails the run.
export async function publishPage(
  api: GitHubApi | null,
  input: {
    config: Config
    event: EventInfo
    serverRepo: string
    sleep?: (ms: number) => Promise<void>
  },
  log: Logger
): Promise<string> {
  const { config, event } = input
  if (config.pagesBranch === '') return ''
  const role = writesHistory(config, event)
  if (!role.write) {
    log.info(`History page not published: ${role.why}.`)
    return ''
  }
  if (api === null) {
    log.warning(
      `History page not published: there is no token to write branch '${config.pagesBranch}' with.`
    )
    return ''
  }
  const url = pageUrl(config, input.serverRepo)
  try {
    const p = await writePage(
      api,
      {
        pagesBranch: config.pagesBranch,
        historyBranch: config.historyBranch,
        key: config.commentKey,
        repoUrl: input.serverRepo,
        url,
        sleep: input.sleep
      },
      log
    )
    if (p === null) return ''
    log.info(
      `History page: ${p.runs} runs, ${p.steps} steps; ${p.files} files written to branch '${config.pagesBranch}'` +
        `${p.attempts > 1 ? ` after ${p.attempts} attempts` : ''} (${p.reads} read from '${config.historyBranch}')${url ? `: ${url}` : ''}.`
    )
    const where =
      url !== ''
        ? `[the history page](${url})`
        : `the history page (branch \`${config.pagesBranch}\`)`
    return `**History**: every count row of ${event.defaultBranch || 'the default branch'} across its ${p.runs} runs, and its ${p.steps} steps, on ${where}.\n`
  } catch (e) {
    log.warning(
      `Could not publish the history page to branch '${config.pagesBranch}': ${errorText(e)}`
    )
    return ''
  }
}
