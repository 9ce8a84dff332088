// The default branch's history in one run of the action (docs/history.md):
// read before measuring, as the trend the report draws (trend.json for the
// gate); written after measuring, on a push to the default branch or a
// release. Pull requests, forks among them, only read: the history is the
// default branch's, so nothing unmerged enters it.

import { writeFileSync } from 'node:fs'
import path from 'node:path'
import type { EventInfo } from './event.js'
import { errorText, type GitHubApi } from './github-api.js'
import { makeRecord, type HistoryRecord } from './history-record.js'
import { appendRecord, readHistory, type History, type WriteOptions } from './history-store.js'
import type { Config } from './inputs.js'
import { pageUrl } from './page-url.js'
import type { Logger } from './publish.js'
import { buildTrend, driftMarkdown, driftOf } from './trend.js'
import type { Verdict } from './verdict.js'

// Whether this run may write the history, and if not, why.
export function writesHistory(config: Config, event: EventInfo): { write: boolean; why: string } {
  if (config.historyBranch === '') return { write: false, why: "'history-branch' is empty" }
  if (config.mode === 'publish')
    return { write: false, why: 'publish mode posts results measured elsewhere' }
  if (event.name === 'release')
    return event.releaseTag !== ''
      ? { write: true, why: '' }
      : { write: false, why: 'the release event names no tag' }
  if (event.name !== 'push')
    return {
      write: false,
      why: `a ${event.name || 'manual'} run reads the history, never writes it`
    }
  if (event.defaultBranch === '' || event.ref !== `refs/heads/${event.defaultBranch}`)
    return {
      write: false,
      why: `a push to ${event.ref || 'an unknown ref'}, not to the default branch${event.defaultBranch ? ` (${event.defaultBranch})` : ''}`
    }
  return { write: true, why: '' }
}

function branchName(event: EventInfo): string {
  return event.defaultBranch || 'the default branch'
}

export interface TrendRead {
  file: string // trend.json for the gate; '' when there is none
  history: History | null
}

// Read the history and write trend.json into dir. Never fails the run: a
// history that cannot be read is a warning and a report without a trend.
export async function readTrend(
  api: GitHubApi | null,
  config: Config,
  event: EventInfo,
  dir: string,
  serverRepo: string, // https://github.com/owner/name, for the steps' links
  log: Logger
): Promise<TrendRead> {
  if (config.historyBranch === '' || config.mode === 'publish') return { file: '', history: null }
  if (api === null) {
    log.info(`No trend: there is no token to read branch '${config.historyBranch}' with.`)
    return { file: '', history: null }
  }
  let history: History
  try {
    history = await readHistory(api, config.historyBranch, config.commentKey, config.trendRuns)
  } catch (e) {
    log.warning(
      `Could not read the history on branch '${config.historyBranch}' (${errorText(e)}); the report has no trend.`
    )
    return { file: '', history: null }
  }
  for (const p of history.problems) log.warning(`history: ${p} (skipped)`)
  log.info(
    history.missing
      ? `No history yet: branch '${config.historyBranch}' does not exist (the first run on ${branchName(event)} makes it).`
      : `History: ${history.records.length} of ${history.runs} run(s) of ${branchName(event)} read from branch '${config.historyBranch}'.`
  )
  const trend = buildTrend(history, {
    branch: branchName(event),
    dataBranch: config.historyBranch,
    key: config.commentKey,
    serverRepo,
    page: pageUrl(config, serverRepo)
  })
  const file = path.join(dir, 'afpbench-trend.json')
  writeFileSync(file, `${JSON.stringify(trend)}\n`)
  return { file, history }
}

export interface RecordInput {
  config: Config
  event: EventInfo
  verdict: Verdict
  runId: number | null
  history: History | null // what readTrend read, for the steps
  serverRepo: string // https://github.com/owner/name, for links
  date?: string
  write?: WriteOptions
}

// Write this run to the history and return the job summary's lines about it
// (where it went, and the steps found with it). Never fails the run.
export async function recordRun(
  api: GitHubApi | null,
  input: RecordInput,
  log: Logger
): Promise<string> {
  const { config, event } = input
  const role = writesHistory(config, event)
  if (!role.write) {
    if (config.historyBranch !== '') log.info(`History not written: ${role.why}.`)
    return ''
  }
  if (api === null) {
    log.warning(
      `History not written: there is no token to write branch '${config.historyBranch}' with.`
    )
    return ''
  }
  let record: HistoryRecord
  try {
    // scripts/jq/record.jq makes it, as it makes scripts/backfill's
    record = makeRecord(path.join(config.resultsDir, 'verdict.json'), {
      commit: event.headSha,
      date: input.date ?? new Date().toISOString(),
      runId: input.runId,
      key: config.commentKey,
      release: event.name === 'release' ? event.releaseTag : ''
    })
  } catch (e) {
    log.warning(`History not written: ${errorText(e)}`)
    return ''
  }
  if (!/^[0-9a-f]{40}$/.test(record.commit)) {
    log.warning(
      `History not written: the commit measured ('${record.commit}') is not a commit SHA.`
    )
    return ''
  }
  try {
    const w = await appendRecord(api, config.historyBranch, record, input.write)
    log.info(
      `History: this run written to branch '${config.historyBranch}' as ${w.path}` +
        `${w.created ? ' (the branch was made)' : ''}${w.attempts > 1 ? ` after ${w.attempts} attempts` : ''}` +
        `${w.archived > 0 ? `; ${w.archived} older runs folded into an archive file` : ''}.`
    )
  } catch (e) {
    log.warning(`Could not write the history to branch '${config.historyBranch}': ${errorText(e)}`)
    return ''
  }
  const records = [...(input.history?.records ?? []), record].slice(-config.trendRuns)
  return driftMarkdown(driftOf(records), branchName(event), input.serverRepo)
}
