// Publishing a verdict: the sticky PR comment (with charts) and the job
// summary text. API failures are reported as warnings, never crashes: the
// verdict and the step's exit status do not depend on the comment.

import type { ChartLink, ChartSet } from './charts.js'
import {
  chartsElsewhereMarkdown,
  commitCharts,
  imagesMarkdown,
  placePlan,
  isTrendChart,
  trendMarkdown
} from './charts.js'
import { commentBody, findComment, markerFor, upsertComment } from './comment.js'
import type { EventInfo } from './event.js'
import type { GitHubApi } from './github-api.js'
import { errorText, httpStatus } from './github-api.js'
import type { Config } from './inputs.js'
import { CHARTS_MARKER, CHARTS_MARKER_FOLDED, TREND_MARKER, TREND_MARKER_FOLDED } from './names.js'
import type { ResultsContext } from './results-context.js'
import type { Status } from './verdict.js'

export interface Logger {
  info(message: string): void
  warning(message: string): void
  notice(message: string): void
}

export interface PublishInput {
  config: Config
  event: EventInfo
  status: Status
  report: string // report.md, or a fallback text when there is none
  fullReport: string // report-full.md (every row) for the job summary, else the report
  charts: ChartSet
  plan: string // the run's plan.json, committed with the charts ('' = none)
  runUrl: string
  artifactUrl: string // the results artifact's page, '' when none was uploaded
  serverUrl: string
  resultsContext: ResultsContext | null // publish mode: from the artifact
}

export interface PublishResult {
  commentUrl: string
  summary: string // markdown for the job summary
}

type Target = { pull: number } | { pull: null; why: string }

// The report with its charts: at the report's charts marker line (above the
// folded details), or after the report when it has none. charts(folded)
// gives the charts' Markdown; folded when the report's marker asks for it.
export function placeCharts(report: string, charts: (folded: boolean) => string): string {
  return placeAt(report, CHARTS_MARKER, CHARTS_MARKER_FOLDED, charts, true)
}

// The trend chart at the report's trend marker (its Trend section); nowhere
// when the report has no such section.
export function placeTrend(report: string, trend: (folded: boolean) => string): string {
  return placeAt(report, TREND_MARKER, TREND_MARKER_FOLDED, trend, false)
}

function placeAt(
  report: string,
  open: string,
  folded: string,
  md: (folded: boolean) => string,
  appendWithout: boolean
): string {
  const lines = report.trimEnd().split('\n')
  const at = lines.findIndex((l) => l.trim() === open || l.trim() === folded)
  if (at < 0) {
    const text = appendWithout ? md(false) : ''
    return text === '' ? report.trimEnd() : `${report.trimEnd()}\n\n${text.trimEnd()}`
  }
  const text = md(lines[at].trim() === folded)
  lines.splice(at, 1, ...(text === '' ? [] : [text.trimEnd()]))
  return lines.join('\n')
}

// How a fork PR gets its comment: said in the log and in the job summary.
export function forkAdvice(event: EventInfo, artifactName: string): string {
  const where = event.headRepository ? ` from the fork ${event.headRepository}` : ' from a fork'
  const artifact = artifactName
    ? `the artifact '${artifactName}'`
    : 'the results directory (set artifact-name to upload it)'
  return (
    `This pull request comes${where}: its workflow token is read-only, so no comment was posted. ` +
    `The results are in ${artifact}. To comment on fork pull requests, add a second workflow ` +
    `triggered by workflow_run that downloads that artifact and runs this action with 'mode: publish' ` +
    `(examples/fork-publish.yml in afpbench-action).`
  )
}

// Which pull request a comment goes to, if any, and why not.
export async function resolveTarget(
  config: Config,
  event: EventInfo,
  api: GitHubApi | null,
  ctx: ResultsContext | null
): Promise<Target> {
  if (config.mode === 'baseline') return { pull: null, why: 'baseline mode does not comment' }
  if (config.comment === 'never') return { pull: null, why: "'comment' is never" }
  if (api === null) return { pull: null, why: "no 'github-token'" }
  if (event.name === 'workflow_run') {
    if (config.mode !== 'publish')
      return { pull: null, why: "a workflow_run job posts results with 'mode: publish'" }
    const run = event.workflowRun
    const pull = event.pullRequest ?? ctx?.pull_request ?? null
    if (run === null || pull === null)
      return {
        pull: null,
        why: 'neither the workflow_run event nor the results name a pull request'
      }
    // The artifact may come from a fork and could name any PR: comment only if
    // that PR's head is the commit the run measured.
    let head: string
    try {
      head = await api.pullHeadSha(pull)
    } catch (e) {
      return { pull: null, why: `could not read pull request #${pull} (${describeApiError(e)})` }
    }
    if (head !== run.headSha)
      return {
        pull: null,
        why: `pull request #${pull} is at ${head.slice(0, 12)}, not at the measured commit ${run.headSha.slice(0, 12)} (pushed since, or the results name another PR)`
      }
    return { pull }
  }
  if (event.pullRequest === null)
    return { pull: null, why: `a ${event.name || 'manual'} event has no pull request` }
  if (event.fork) return { pull: null, why: 'the pull request comes from a fork (read-only token)' }
  return { pull: event.pullRequest }
}

export function describeApiError(e: unknown): string {
  const status = httpStatus(e)
  const hint =
    status === 403
      ? ": the token may not write here; give the job 'permissions: pull-requests: write' " +
        "(and 'contents: write' for chart images), or use the fork workflow with 'mode: publish'"
      : status === 404
        ? ': not found, or hidden from this token'
        : ''
  return `${status !== undefined ? `HTTP ${status}` : 'request failed'}: ${errorText(e)}${hint}`
}

// @name in text that a fork controlled would notify people: break the mention.
export function defuseMentions(text: string): string {
  return text.replace(/@(?=[A-Za-z0-9])/g, '@\u200b')
}

export function footer(runUrl: string, artifactUrl: string): string {
  const artifact = artifactUrl !== '' ? ` · [results artifact](${artifactUrl})` : ''
  return `\n<sub>afpbench-action · [workflow run](${runUrl})${artifact}</sub>\n`
}

export async function publish(
  input: PublishInput,
  api: GitHubApi | null,
  log: Logger
): Promise<PublishResult> {
  const { config, event } = input
  const defuse = (text: string): string => (config.mode === 'publish' ? defuseMentions(text) : text)
  const report = defuse(input.report)
  let commentUrl = ''
  let imageLinks: ChartLink[] = []
  let planUrl = ''
  // Why the images are not in the comment, when they are not.
  let notCommitted =
    api === null
      ? event.fork
        ? "a fork's pull request runs without a token that could commit them"
        : 'there is no token to commit them with'
      : 'no comment was written'
  const chartsMarkdown = (folded: boolean): string =>
    imageLinks.length > 0
      ? imagesMarkdown(
          imageLinks.filter((l) => !isTrendChart(l.name)),
          folded
        )
      : chartsElsewhereMarkdown(input.charts, input.artifactUrl, notCommitted)
  const trendChart = (folded: boolean): string =>
    trendMarkdown(
      imageLinks.filter((l) => isTrendChart(l.name)),
      folded
    )
  const withCharts = (text: string): string =>
    placePlan(placeTrend(placeCharts(text, chartsMarkdown), trendChart), planUrl)

  const target = await resolveTarget(config, event, api, input.resultsContext)
  if (target.pull === null) {
    log.info(`No pull request comment: ${target.why}.`)
  } else if (api !== null) {
    const marker = markerFor(config.commentKey)
    try {
      // on-change with a pass and no earlier comment: nothing to write, so
      // nothing to commit either.
      const write =
        config.comment === 'always' ||
        input.status !== 'pass' ||
        (await findComment(api, target.pull, marker)) !== null
      if (!write) {
        log.info("No pull request comment: the verdict is pass and 'comment' is on-change.")
      } else {
        const images = await chartImages(input, api, target.pull, log)
        imageLinks = images.links
        planUrl = images.planUrl
        notCommitted = images.why
        const body = commentBody(
          marker,
          [withCharts(report), footer(input.runUrl, input.artifactUrl)].join('\n'),
          input.runUrl
        )
        const res = await upsertComment(api, target.pull, marker, body, 'always', input.status)
        if (res.action === 'skipped') log.info(`No pull request comment: ${res.reason}.`)
        else {
          commentUrl = res.url
          log.info(`Pull request comment ${res.action}: ${res.url}`)
        }
      }
    } catch (e) {
      log.warning(
        `Could not post the pull request comment on #${target.pull}: ${describeApiError(e)}`
      )
    }
  }

  const parts = [withCharts(defuse(input.fullReport))]
  if (event.fork && config.mode !== 'publish') {
    const advice = forkAdvice(event, config.artifactName)
    log.notice(advice)
    parts.push('', `> [!NOTE]\n> ${advice}`)
  }
  return { commentUrl, summary: `${parts.join('\n').trimEnd()}\n` }
}

// The committed images' links and the plan's address, or why there are none.
async function chartImages(
  input: PublishInput,
  api: GitHubApi,
  pull: number,
  log: Logger
): Promise<{ links: ChartLink[]; planUrl: string; why: string }> {
  const branch = input.config.assetsBranch
  if (input.charts.images.length === 0 && input.plan === '')
    return { links: [], planUrl: '', why: '' }
  if (branch === '')
    return { links: [], planUrl: '', why: 'assets-branch is empty, so they are not committed' }
  try {
    const committed = await commitCharts(
      api,
      input.charts.images,
      {
        branch,
        serverUrl: input.serverUrl,
        repository: input.event.repository,
        message: `afpbench charts for #${pull} at ${input.event.headSha.slice(0, 12) || 'unknown commit'}`
      },
      input.plan
    )
    log.info(`Charts and the run's plan committed to branch '${branch}' and linked by commit.`)
    return { ...committed, why: '' }
  } catch (e) {
    log.warning(
      `Could not commit the chart images to branch '${branch}' (${describeApiError(e)}); ` +
        'the comment says where they are instead.'
    )
    return {
      links: [],
      planUrl: '',
      why: `they could not be committed to branch '${branch}' (${httpStatus(e) !== undefined ? `HTTP ${httpStatus(e)}` : 'see the log'})`
    }
  }
}
