// A pull request's reference for the counts (docs/history.md, "The
// reference"): main's own run at the pull request's merge-base, from the
// default branch's history, or the run of the nearest ancestor that has one.
// The gate judges the count rows against it (scripts/jq/reference.jq), so a
// step main took after the stored baseline was made is never the pull
// request's fault. The stored baseline stays the reference for timings, and
// for everything when the history has no such run.

import { writeFileSync } from 'node:fs'
import path from 'node:path'
import type { EventInfo } from './event.js'
import { errorText, type GitHubApi } from './github-api.js'
import { isCountKind } from './history-record.js'
import type { History } from './history-store.js'
import type { Logger } from './publish.js'
import { driftOf } from './trend.js'

export const REFERENCE_SCHEMA = 'afpbench-reference/1'
// how far below the merge-base a run of main is looked for
export const MAX_ANCESTORS = 100

export interface Reference {
  schema: typeof REFERENCE_SCHEMA
  commit: string // main's commit whose run this is
  merge_base: string
  behind: number // commits from the merge-base down to commit (0: the merge-base itself)
  date: string
  branch: string
  runner: string
  netatalk: string
  build: string
  values: Record<string, number> // the run's count rows: aggregates and per-test
  steps: Array<{ metric: string; commit: string }> // main's steps up to that run
}

function short(sha: string): string {
  return sha.slice(0, 7)
}

// main's run for a pull request, or null (said in the log why not).
export async function findReference(
  api: GitHubApi,
  event: EventInfo,
  history: History,
  branch: string,
  log: Logger
): Promise<Reference | null> {
  if (event.baseSha === '' || event.headSha === '') {
    log.info('No reference run of main: the event names no base and head commit.')
    return null
  }
  if (history.records.length === 0) return null
  let mergeBase: string
  let line: string[]
  try {
    mergeBase = await api.mergeBase(event.baseSha, event.headSha)
    line = await api.ancestors(mergeBase, MAX_ANCESTORS)
  } catch (e) {
    log.info(
      `No reference run of ${branch}: the merge-base could not be read (${errorText(e)}); the counts are judged against the stored baseline.`
    )
    return null
  }
  // the newest run of each commit (a commit measured twice: its last run)
  const byCommit = new Map(history.records.map((r, i) => [r.commit, i]))
  const behind = line.findIndex((sha) => byCommit.has(sha))
  if (behind < 0) {
    log.info(
      `No run of ${branch} at the merge-base ${short(mergeBase)} or the ${line.length - 1} commits before it in the history read: the counts are judged against the stored baseline.`
    )
    return null
  }
  const at = byCommit.get(line[behind]) as number
  const record = history.records[at]
  const values: Record<string, number> = { ...record.tests }
  for (const [metric, agg] of Object.entries(record.aggregates))
    if (isCountKind(agg.kind)) values[metric] = agg.v
  return {
    schema: REFERENCE_SCHEMA,
    commit: record.commit,
    merge_base: mergeBase,
    behind,
    date: record.date,
    branch,
    runner: record.provenance.runner,
    netatalk: record.provenance.netatalk,
    build: record.provenance.build,
    values,
    // the steps main took up to that run, so that a row can say since when
    steps: driftOf(history.records.slice(0, at + 1)).map((s) => ({
      metric: s.metric,
      commit: s.commit
    }))
  }
}

// Find the reference of a pull request and write it into dir for the gate
// (AFPBENCH_REFERENCE); '' when there is none. Never fails the run.
export async function writeReference(
  api: GitHubApi | null,
  event: EventInfo,
  history: History | null,
  branch: string,
  dir: string,
  log: Logger
): Promise<string> {
  const pr = event.name === 'pull_request' || event.name === 'pull_request_target'
  if (!pr || api === null || history === null) return ''
  const ref = await findReference(api, event, history, branch, log)
  if (ref === null) return ''
  const file = path.join(dir, 'afpbench-reference.json')
  writeFileSync(file, `${JSON.stringify(ref)}\n`)
  log.info(
    `Counts reference: the run of ${branch} at ${short(ref.commit)}` +
      (ref.behind === 0
        ? ' (the merge-base)'
        : ` (${ref.behind} commit${ref.behind === 1 ? '' : 's'} before the merge-base ${short(ref.merge_base)})`) +
      `, measured ${ref.date.slice(0, 10)}; timings against the stored baseline.`
  )
  return file
}
