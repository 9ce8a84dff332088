// The opt-in check run (input check-run): the verdict in the pull request's
// checks list, titled with the headline, its summary the comment's text, so
// that a reader sees why without opening the job. Needs 'checks: write'.

import type { EventInfo } from './event.js'
import { describeApiError, type Logger } from './publish.js'
import type { GitHubApi } from './github-api.js'
import type { Status } from './verdict.js'

// GitHub's limits on a check run's output (title at most 255 is what its
// checks list shows whole; summary at most 65,535 characters).
const MAX_TITLE = 255
const MAX_SUMMARY = 60_000

export const CONCLUSIONS: Record<Status, 'success' | 'failure' | 'neutral'> = {
  pass: 'success',
  fail: 'failure',
  inconclusive: 'neutral',
  error: 'failure'
}

export interface CheckRunInput {
  event: EventInfo
  commentKey: string
  mode: string // the action's mode: a publish job posts for the commit its results name
  commit: string // the commit measured
  status: Status
  headline: string
  report: string
}

export function checkRunName(commentKey: string): string {
  return commentKey === '' ? 'afpbench' : `afpbench (${commentKey})`
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

// Create the check run; its URL, or '' (with the reason logged) when none
// was made. Never fails the run.
export async function postCheckRun(
  api: GitHubApi | null,
  input: CheckRunInput,
  log: Logger
): Promise<string> {
  if (api === null) {
    log.info('No check run: there is no token.')
    return ''
  }
  if (input.event.fork && input.mode !== 'publish') {
    log.info("No check run: a fork's pull request runs with a read-only token.")
    return ''
  }
  if (!/^[0-9a-f]{40}$/.test(input.commit)) {
    log.info(`No check run: the commit measured ('${input.commit}') is not a commit SHA.`)
    return ''
  }
  const title = cut(
    `${input.status}${input.headline !== '' ? `: ${input.headline}` : ''}`.replace(/\s+/g, ' '),
    MAX_TITLE
  )
  try {
    const url = await api.createCheckRun({
      name: checkRunName(input.commentKey),
      headSha: input.commit,
      conclusion: CONCLUSIONS[input.status],
      title,
      summary: cut(input.report, MAX_SUMMARY)
    })
    log.info(`Check run created: ${url}`)
    return url
  } catch (e) {
    log.warning(
      `Could not create the check run (${describeApiError(e)}); the token needs 'checks: write'`
    )
    return ''
  }
}
