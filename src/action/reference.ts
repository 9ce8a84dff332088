// The counts' reference from the default branch's history (docs/history.md,
// "The reference"): for a pull request, main's own run at its merge-base (or
// the nearest ancestor that has one); for a push to the default branch,
// main's previous run (the nearest ancestor of the commit pushed that has
// one), with the merged pull requests that brought the commit. The gate
// judges the count rows against it (scripts/jq/reference.jq): a step main
// took after the stored baseline was made is never a pull request's fault,
// and a push's own step is said once, at that push, as a step. The stored
// baseline stays the reference for timings, and for everything when the
// history has no such run.

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
  // merge-base: a pull request's; previous: a push's, main's run before it
  role: 'merge-base' | 'previous'
  commit: string // main's commit whose run this is
  merge_base: string
  behind: number // commits from the merge-base down to commit (0: the merge-base itself)
  date: string
  branch: string
  runner: string
  netatalk: string
  build: string
  afp_conf_settings: string // the settings under test main's run served ('' = none known)
  values: Record<string, number> // the run's count rows: aggregates and per-test
  steps: Array<{ metric: string; commit: string }> // main's steps up to that run
  // previous: the merged pull requests that brought the commit pushed ([] =
  // none: a direct push), null when that could not be read
  pull_requests: number[] | null
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
  const found = nearestRun(history, line)
  if (found === null) {
    log.info(
      `No run of ${branch} at the merge-base ${short(mergeBase)} or the ${line.length - 1} commits before it in the history read: the counts are judged against the stored baseline.`
    )
    return null
  }
  return referenceOf(history, found.at, {
    role: 'merge-base',
    merge_base: mergeBase,
    behind: found.behind,
    branch,
    pull_requests: null
  })
}

// A push to the default branch: main's previous run, the nearest ancestor of
// the commit pushed (not the commit itself: a run again of one commit is
// judged against the run before it) that has a run in the history.
export async function findPrevious(
  api: GitHubApi,
  event: EventInfo,
  history: History,
  branch: string,
  log: Logger
): Promise<Reference | null> {
  if (event.headSha === '' || history.records.length === 0) return null
  let line: string[]
  try {
    line = (await api.ancestors(event.headSha, MAX_ANCESTORS + 1)).filter(
      (sha) => sha !== event.headSha
    )
  } catch (e) {
    log.info(
      `No previous run of ${branch}: the commits before ${short(event.headSha)} could not be read (${errorText(e)}); the counts are judged against the stored baseline.`
    )
    return null
  }
  const found = nearestRun(history, line)
  if (found === null) {
    log.info(
      `No run of ${branch} in the ${line.length} commits before ${short(event.headSha)}: the counts are judged against the stored baseline.`
    )
    return null
  }
  let pulls: number[] | null
  try {
    pulls = await api.mergedPullsOf(event.headSha)
  } catch (e) {
    log.info(
      `The pull requests that brought ${short(event.headSha)} could not be read (${errorText(e)}): a step here is said, not failed.`
    )
    pulls = null
  }
  return referenceOf(history, found.at, {
    role: 'previous',
    merge_base: event.headSha,
    behind: found.behind,
    branch,
    pull_requests: pulls
  })
}

// The first commit of line (newest first) that has a run in the history,
// and how far down the line it is; null for none.
function nearestRun(history: History, line: string[]): { at: number; behind: number } | null {
  // the newest run of each commit (a commit measured twice: its last run)
  const byCommit = new Map(history.records.map((r, i) => [r.commit, i]))
  const behind = line.findIndex((sha) => byCommit.has(sha))
  return behind < 0 ? null : { at: byCommit.get(line[behind]) as number, behind }
}

function referenceOf(
  history: History,
  at: number,
  where: Pick<Reference, 'role' | 'merge_base' | 'behind' | 'branch' | 'pull_requests'>
): Reference {
  const record = history.records[at]
  const values: Record<string, number> = { ...record.tests }
  for (const [metric, agg] of Object.entries(record.aggregates))
    if (isCountKind(agg.kind)) values[metric] = agg.v
  return {
    schema: REFERENCE_SCHEMA,
    role: where.role,
    commit: record.commit,
    merge_base: where.merge_base,
    behind: where.behind,
    date: record.date,
    branch: where.branch,
    runner: record.provenance.runner,
    netatalk: record.provenance.netatalk,
    build: record.provenance.build,
    afp_conf_settings: record.provenance.afpConfSettings ?? '',
    values,
    // the steps main took up to that run, so that a row can say since when
    steps: driftOf(history.records.slice(0, at + 1)).map((s) => ({
      metric: s.metric,
      commit: s.commit
    })),
    pull_requests: where.pull_requests
  }
}

// Find the counts' reference of a pull request (its merge-base's run) or of
// a push to the default branch (main's previous run) and write it into dir
// for the gate (AFPBENCH_REFERENCE); '' when there is none. Never fails the
// run.
export async function writeReference(
  api: GitHubApi | null,
  event: EventInfo,
  history: History | null,
  branch: string,
  dir: string,
  log: Logger
): Promise<string> {
  const pr = event.name === 'pull_request' || event.name === 'pull_request_target'
  const push = event.name === 'push' && event.ref === `refs/heads/${branch}`
  if ((!pr && !push) || api === null || history === null) return ''
  const ref = pr
    ? await findReference(api, event, history, branch, log)
    : await findPrevious(api, event, history, branch, log)
  if (ref === null) return ''
  const file = path.join(dir, 'afpbench-reference.json')
  writeFileSync(file, `${JSON.stringify(ref)}\n`)
  log.info(
    (ref.role === 'previous'
      ? `Counts reference: the previous run of ${branch}, at ${short(ref.commit)}` +
        (ref.behind === 0
          ? ' (the parent)'
          : ` (${ref.behind + 1} commits before ${short(ref.merge_base)})`) +
        (ref.pull_requests === null
          ? ''
          : ref.pull_requests.length > 0
            ? `; ${short(ref.merge_base)} came with pull request #${ref.pull_requests.join(', #')}`
            : `; ${short(ref.merge_base)} came with no pull request`)
      : `Counts reference: the run of ${branch} at ${short(ref.commit)}` +
        (ref.behind === 0
          ? ' (the merge-base)'
          : ` (${ref.behind} commit${ref.behind === 1 ? '' : 's'} before the merge-base ${short(ref.merge_base)})`)) +
      `, measured ${ref.date.slice(0, 10)}; timings against the stored baseline.`
  )
  return file
}
