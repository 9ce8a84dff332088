// The main step: read the inputs, measure (gate, baseline) or take another
// job's results (publish), publish the verdict, set the outputs, and fail the
// step as fail-on says.

import * as core from '@actions/core'
import { existsSync, readFileSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  artifactServiceAvailable,
  artifactUrl,
  uploadResults,
  type ArtifactUploader
} from './artifact.js'
import { bisectAfterRun, withBisect, type BisectOutcome } from './bisect.js'
import { listCharts } from './charts.js'
import { postCheckRun } from './check-run.js'
import { describeEvent, readEventPayload } from './event.js'
import { errorText, type GitHubApi } from './github-api.js'
import { DEFAULTS } from './action-inputs.js'
import { parseInputs, type BackfillConfig, type Config } from './inputs.js'
import { isMatrix, matrixOutputs, readMatrix, type Matrix } from './matrix.js'
import { makeBaseline, runGate, type MeasureContext } from './measure.js'
import type { HistoryFiles } from './gate-env.js'
import { runBackfill } from './backfill.js'
import { readTrend, recordRun, writesHistory } from './history.js'
import type { History } from './history-store.js'
import { Input, Output, REPORT_MARKER } from './names.js'
import { publishPage } from './pages.js'
import { failureMessage, shouldFail } from './outcome.js'
import { publish } from './publish.js'
import { writeReference } from './reference.js'
import { readResultsContext, writeResultsContext } from './results-context.js'
import { childEnv, type Runner } from './runner.js'
import type { EventInfo } from './event.js'
import {
  headingLine,
  readVerdict,
  statusFromExit,
  verdictOutputs,
  worse,
  type Status,
  type Verdict
} from './verdict.js'

export interface MainDeps {
  env: NodeJS.ProcessEnv
  actionDir: string
  run: Runner
  githubApi: (token: string, repository: string) => GitHubApi
  artifactClient: () => ArtifactUploader
}

// The job summary must stay under 1 MiB.
const MAX_SUMMARY_CHARS = 1_000_000
const MAX_REPORT_BYTES = 4 * 1024 * 1024

interface Measured {
  status: Status
  verdict: Verdict | null
  problem: string // why the status is error, when it is
}

export async function run(deps: MainDeps): Promise<void> {
  let config: Config
  try {
    hideSecrets()
    config = parseInputs((name) => rawInput(deps.env, name), {
      workspace: deps.env.GITHUB_WORKSPACE || process.cwd(),
      actionDir: deps.actionDir,
      commit: deps.env.GITHUB_SHA ?? ''
    })
  } catch (e) {
    core.setFailed(errorText(e))
    return
  }
  try {
    await runWithConfig(deps, config)
  } catch (e) {
    core.setFailed(`afpbench-action: ${errorText(e)}`)
  }
}

// An input as the runner sets it (INPUT_<NAME>, as core.getInput reads it), or
// undefined when it is not set at all: '' for artifact-name or assets-branch
// means off, unset means the default.
function rawInput(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`]
}

// Mask the password and the token in everything the log shows. The default
// password is public (and is the tool's own name: masking it would blank every
// "afpbench" in the log), so it is left alone.
function hideSecrets(): void {
  const password = core.getInput(Input.AfpPassword)
  if (password !== '' && password !== DEFAULTS[Input.AfpPassword]) core.setSecret(password)
  const token = core.getInput(Input.GithubToken)
  if (token !== '') core.setSecret(token)
}

// Where the run is: its event, its links and the API (null without a token).
interface RunContext {
  event: EventInfo
  serverUrl: string
  repository: string
  serverRepo: string
  runId: number | null
  runUrl: string
  api: GitHubApi | null
}

function runContext(deps: MainDeps, config: Config): RunContext {
  const env = deps.env
  const repository = env.GITHUB_REPOSITORY ?? ''
  const event = describeEvent(
    env.GITHUB_EVENT_NAME ?? '',
    readEventPayload(env.GITHUB_EVENT_PATH),
    repository,
    env.GITHUB_SHA ?? ''
  )
  const serverUrl = env.GITHUB_SERVER_URL || 'https://github.com'
  const runId = Number(env.GITHUB_RUN_ID) > 0 ? Number(env.GITHUB_RUN_ID) : null
  return {
    event,
    serverUrl,
    repository,
    serverRepo: `${serverUrl}/${repository}`,
    runId,
    runUrl: runId
      ? `${serverUrl}/${repository}/actions/runs/${runId}`
      : `${serverUrl}/${repository}/actions`,
    api:
      config.githubToken !== '' && repository !== ''
        ? deps.githubApi(config.githubToken, repository)
        : null
  }
}

// What this run has to publish: its verdict, and what the steps around the
// measurement added.
interface Outcome {
  measured: Measured
  matrix: Matrix | null // publish: a matrix's fan-in
  historyLines: string // the job summary's lines about the history written ('' = none)
  artifactLink: string // the results artifact's page ('' = none)
  bisect: BisectOutcome | null // the opt-in bisect's answer, null when it did not run
}

async function runWithConfig(deps: MainDeps, config: Config): Promise<void> {
  for (const w of config.warnings) core.warning(w)
  if (config.baselineMissing !== '')
    core.notice(
      `input 'baseline': ${config.baselineMissing} does not exist yet, so this run measures without comparing (a first run); ` +
        `record it with this action's mode: baseline (baseline: ${config.baselineMissing}) on this runner type and commit it (examples/release-baseline.yml)`
    )
  const ctx = runContext(deps, config)
  if (config.backfill !== null) return backfillStep(deps, config, config.backfill, ctx)
  // What this run wrote: files older than its start in results-dir are an
  // earlier run's (the gate keeps them when it stops before measuring), and
  // must never be published as this run's. publish takes another job's files.
  const since = config.mode === 'publish' ? 0 : runStart()
  const outcome =
    config.mode === 'publish'
      ? takeResults(config)
      : await measureAndRecord(deps, config, ctx, since)
  const { measured, matrix, bisect } = outcome

  const reportFile = path.join(config.resultsDir, 'report.md')
  const chartsDir = path.join(config.resultsDir, 'charts')
  const written = matrix?.report ?? readReport(reportFile, since) ?? fallbackReport(measured)
  const writtenFull =
    matrix?.fullReport ??
    readReport(path.join(config.resultsDir, 'report-full.md'), since) ??
    written
  const report = withBisect(written, bisect?.comment ?? '')
  const published = await core.group('Publish the verdict', () =>
    publish(
      {
        config,
        event: ctx.event,
        status: measured.status,
        report,
        fullReport: withBisect(writtenFull, bisect?.comment ?? ''),
        charts: listCharts(chartsDir, since),
        plan: isFresh(path.join(config.resultsDir, 'plan.json'), since)
          ? path.join(config.resultsDir, 'plan.json')
          : '',
        runUrl: ctx.runUrl,
        artifactUrl: outcome.artifactLink,
        serverUrl: ctx.serverUrl,
        resultsContext:
          matrix !== null
            ? matrix.context
            : config.mode === 'publish'
              ? readResultsContext(config.resultsDir)
              : null
      },
      ctx.api,
      core
    )
  )
  await writeSummary(
    [published.summary, outcome.historyLines, bisect?.summary ?? '']
      .filter((x) => x !== '')
      .join('\n')
  )
  const checkRunUrl =
    config.checkRun && config.mode !== 'baseline'
      ? await postCheckRun(
          ctx.api,
          {
            event: ctx.event,
            commentKey: config.commentKey,
            mode: config.mode,
            // a publish job's results are of the run that triggered it
            commit: ctx.event.workflowRun?.headSha || ctx.event.headSha,
            status: measured.status,
            headline: matrix?.headline || headlineOf(measured),
            report
          },
          core
        )
      : ''
  const outs = setOutputs(config, outcome, {
    report: isFresh(reportFile, since) ? reportFile : '',
    charts: isFresh(chartsDir, since) ? chartsDir : '',
    commentUrl: published.commentUrl,
    checkRunUrl
  })
  core.info(`afpbench verdict: ${measured.status}${outs?.summary ? ` — ${outs.summary}` : ''}`)
  endStep(config, measured, outs?.summary ?? '')
}

// mode: publish: another job's results, or a matrix's slices merged into one.
function takeResults(config: Config): Outcome {
  const none = { historyLines: '', artifactLink: '', bisect: null }
  if (isMatrix(config.resultsDir, config.slices)) {
    const matrix = readMatrix(config.resultsDir, config.slices)
    for (const w of matrix.warnings) core.warning(w)
    core.info(
      `Merged ${matrix.slices.length} slices: ${matrix.slices.map((x) => `${x.name} ${x.status}`).join(', ')}`
    )
    return {
      measured: { status: matrix.status, verdict: null, problem: matrix.headline },
      matrix,
      ...none
    }
  }
  if (!existsSync(path.join(config.resultsDir, 'verdict.json')))
    throw new Error(
      `mode: publish found no verdict.json in '${config.resultsDir}' (input 'results-dir'): download the results artifact there first`
    )
  const verdict = readVerdict(config.resultsDir)
  return {
    measured: { status: verdict?.status ?? 'error', verdict, problem: '' },
    matrix: null,
    ...none
  }
}

// mode: gate and baseline: read the history, measure, write the run to the
// history, bisect when asked, and upload the results.
async function measureAndRecord(
  deps: MainDeps,
  config: Config,
  ctx: RunContext,
  since: number
): Promise<Outcome> {
  const { api, event, serverRepo } = ctx
  const tmp = deps.env.RUNNER_TEMP || os.tmpdir()
  const trend = await core.group('Read the history of the default branch', async () => {
    const read = await readTrend(api, config, event, tmp, serverRepo, core)
    // a pull request against a stored baseline: main's run at its merge-base
    // judges the counts (an A/B run measures its own base)
    const reference =
      config.base === null
        ? await writeReference(api, event, read.history, event.defaultBranch || 'main', tmp, core)
        : ''
    return { ...read, files: { trend: read.file, reference } }
  })
  const measured = await measure(deps, config, since, trend.files)
  const judged = measured.verdict !== null && measured.status !== 'error'
  const historyLines = judged
    ? await core.group('Write this run to the history', () =>
        recordRun(
          api,
          {
            config,
            event,
            verdict: measured.verdict as Verdict,
            runId: ctx.runId,
            history: trend.history,
            serverRepo
          },
          core
        )
      )
    : ''
  // the history page, made again with this run (pages.ts; pages-branch)
  const pageLines =
    judged && config.pagesBranch !== ''
      ? await core.group('Publish the history page', () =>
          publishPage(api, { config, event, serverRepo }, core)
        )
      : ''
  const bisect =
    config.bisect !== null && judged
      ? await core.group('Bisect the commits behind a moved count', () =>
          bisectStep(
            deps,
            config,
            event,
            measured.verdict as Verdict,
            trend.history,
            api,
            serverRepo
          )
        )
      : null
  if (measured.verdict === null && existsSync(path.join(config.resultsDir, 'verdict.json')))
    core.warning(
      `${config.resultsDir} holds an earlier run's results: this run wrote none, so they are not published`
    )
  writeResultsContext(config.resultsDir, event, ctx.runId)
  const artifactLink = artifactUrl(
    ctx.serverUrl,
    ctx.repository,
    ctx.runId,
    measured.verdict === null ? undefined : await upload(deps, config)
  )
  return { measured, matrix: null, historyLines: historyLines + pageLines, artifactLink, bisect }
}

// The action's outputs; returns the verdict's (null without one).
function setOutputs(
  config: Config,
  { measured, matrix, bisect }: Outcome,
  files: { report: string; charts: string; commentUrl: string; checkRunUrl: string }
): ReturnType<typeof verdictOutputs> | null {
  const outs =
    matrix !== null
      ? matrixOutputs(matrix)
      : measured.verdict
        ? verdictOutputs(measured.verdict)
        : null
  core.setOutput(Output.Verdict, measured.status)
  core.setOutput(Output.Summary, outs?.summary || measured.problem)
  core.setOutput(Output.TimePerOpRatio, outs?.timePerOpRatio ?? '')
  core.setOutput(Output.ReadsPerOpRatio, outs?.readsPerOpRatio ?? '')
  core.setOutput(Output.WritesPerOpRatio, outs?.writesPerOpRatio ?? '')
  core.setOutput(Output.Regressions, outs?.regressions ?? '0')
  core.setOutput(Output.RegressedMetrics, outs?.regressedMetrics ?? '[]')
  core.setOutput(Output.ResultsDir, config.resultsDir)
  core.setOutput(Output.Report, files.report)
  core.setOutput(Output.Charts, files.charts)
  core.setOutput(Output.CommentUrl, files.commentUrl)
  core.setOutput(Output.BisectCommit, bisect?.firstBad ?? '')
  core.setOutput(Output.CheckRunUrl, files.checkRunUrl)
  core.setOutput(
    Output.Baseline,
    config.mode === 'baseline' && measured.status !== 'error' ? config.baselineOut : ''
  )
  return outs
}

// The step's end: failed as fail-on says (a baseline: when none was written).
function endStep(config: Config, measured: Measured, summary: string): void {
  if (config.mode === 'baseline') {
    if (measured.status === 'error') core.setFailed(`afpbench baseline: ${measured.problem}`)
    else core.info(`Baseline written to ${config.baselineOut}`)
    return
  }
  if (shouldFail(measured.status, config.failOn))
    core.setFailed(failureMessage(measured.status, summary || measured.problem))
  else if (measured.status !== 'pass')
    core.warning(
      `${failureMessage(measured.status, summary)}; not failing the step (fail-on: ${config.failOn})`
    )
}

// mode: backfill (backfill.ts): no verdict; the records, the job summary and
// the summary output say what was measured and written.
async function backfillStep(
  deps: MainDeps,
  config: Config,
  backfill: BackfillConfig,
  ctx: RunContext
): Promise<void> {
  const out = await runBackfill(
    {
      config,
      backfill,
      api: ctx.api,
      run: deps.run,
      actionDir: deps.actionDir,
      env: childEnv(deps.env, {}),
      isRoot: process.getuid?.() === 0,
      work: path.join(deps.env.RUNNER_TEMP || os.tmpdir(), 'afpbench-backfill'),
      commitUrl: (sha) => `${ctx.serverRepo}/commit/${sha}`,
      upload: () => upload(deps, config)
    },
    core
  )
  await writeSummary(out.summary)
  core.setOutput(Output.Summary, out.message)
  core.setOutput(Output.ResultsDir, config.resultsDir)
  if (out.failed !== '') core.setFailed(`afpbench backfill: ${out.failed}`)
}

// The opt-in bisect after a measured run (bisect.ts): scripts/bisect run
// as root, its results beside the run's.
async function bisectStep(
  deps: MainDeps,
  config: Config,
  event: EventInfo,
  verdict: Verdict,
  history: History | null,
  api: GitHubApi | null,
  serverRepo: string
): Promise<BisectOutcome> {
  const bisect = config.bisect
  if (bisect === null) throw new Error('bisectStep without the bisect input')
  const engine = config.server.kind === 'compose'
  return bisectAfterRun(
    {
      config: bisect,
      event,
      verdict,
      records: history?.records ?? [],
      pushWritesHistory: writesHistory(config, event).write,
      run: deps.run,
      actionDir: deps.actionDir,
      // on the engine the probes' server takes the run's afp-conf as compose does
      env: childEnv(
        deps.env,
        engine && config.afpConfSettings !== null
          ? {
              AFP_EXTRA_GLOBAL: config.afpConfSettings.global.join('\n'),
              AFP_EXTRA_VOLUME: config.afpConfSettings.volume.join('\n')
            }
          : {}
      ),
      isRoot: process.getuid?.() === 0,
      resultsDir: config.resultsDir,
      work: path.join(deps.env.RUNNER_TEMP || os.tmpdir(), 'afpbench-bisect'),
      afpConf: config.afpConf,
      engine,
      commitUrl: (sha) => `${serverRepo}/commit/${sha}`,
      commentOnCommit: api === null ? null : (sha, body) => api.createCommitComment(sha, body)
    },
    core
  )
}

async function measure(
  deps: MainDeps,
  config: Config,
  since: number,
  history: HistoryFiles
): Promise<Measured> {
  // mode: baseline pools sessions, each into a directory of its own; the
  // last one's results are results-dir's own (its verdict and report are
  // this run's). parseSessions gives 1 outside mode: baseline.
  const sessions = config.sessions
  const dirs: string[] = []
  let last: Measured = { status: 'error', verdict: null, problem: 'no session ran' }
  for (let i = 1; i <= sessions; i++) {
    const dir = i === sessions ? config.resultsDir : path.join(config.resultsDir, `session-${i}`)
    if (sessions > 1) core.info(`Session ${i} of ${sessions}: results in ${dir}`)
    const m = {
      config: { ...config, resultsDir: dir },
      actionDir: deps.actionDir,
      env: deps.env,
      run: deps.run,
      history
    }
    last = await measureSession(m, i, since)
    if (last.status === 'error') {
      if (sessions > 1) last.problem = `session ${i} of ${sessions}: ${last.problem}`
      return last
    }
    dirs.push(dir)
  }
  if (config.mode !== 'baseline') return last
  // A baseline needs measurements, not a pass: only an error stops it.
  try {
    await makeBaseline(
      { config, actionDir: deps.actionDir, env: deps.env, run: deps.run, history },
      dirs
    )
  } catch (e) {
    return { status: 'error', verdict: last.verdict, problem: errorText(e) }
  }
  return last
}

async function measureSession(
  m: MeasureContext,
  session: number,
  since: number
): Promise<Measured> {
  const { config } = m
  let exitCode: number
  try {
    exitCode = await runGate(m, session)
  } catch (e) {
    return {
      status: 'error',
      verdict: safeReadVerdict(config.resultsDir, since),
      problem: errorText(e)
    }
  }
  const verdict = safeReadVerdict(config.resultsDir, since)
  if (verdict === null)
    return {
      status: 'error',
      verdict: null,
      problem: `scripts/gate exited ${exitCode} and wrote no readable verdict.json in ${config.resultsDir}`
    }
  const fromExit = statusFromExit(exitCode)
  if (fromExit !== verdict.status)
    core.warning(
      `scripts/gate exited ${exitCode} (${fromExit}) but verdict.json says ${verdict.status}; taking the worse`
    )
  const status = worse(verdict.status, fromExit)
  const problem =
    status === 'error'
      ? verdict.errors.join('; ') || verdict.summary || `scripts/gate exited ${exitCode}`
      : ''
  return { status, verdict, problem }
}

// The verdict this run wrote; null for none, or for an earlier run's.
function safeReadVerdict(resultsDir: string, since: number): Verdict | null {
  if (!isFresh(path.join(resultsDir, 'verdict.json'), since)) return null
  try {
    return readVerdict(resultsDir)
  } catch (e) {
    core.warning(errorText(e))
    return null
  }
}

// Returns the uploaded artifact's id, undefined when there is none.
async function upload(deps: MainDeps, config: Config): Promise<number | undefined> {
  const client = artifactServiceAvailable(deps.env) ? deps.artifactClient() : null
  try {
    const res = await uploadResults(client, config.artifactName, config.resultsDir)
    if (res.uploaded) {
      core.info(`Uploaded ${res.files} files as artifact '${config.artifactName}'`)
      core.setOutput(Output.ArtifactId, res.id !== undefined ? String(res.id) : '')
      return res.id
    } else if (config.artifactName !== '')
      core.warning(`Results not uploaded as an artifact: ${res.reason}`)
  } catch (e) {
    core.warning(`Uploading artifact '${config.artifactName}' failed: ${errorText(e)}`)
  }
  return undefined
}

// The start of this run, to the whole second: some filesystems keep
// modification times in whole seconds.
function runStart(): number {
  return Math.floor(Date.now() / 1000) * 1000
}

function isFresh(file: string, since: number): boolean {
  return existsSync(file) && statSync(file).mtimeMs >= since
}

function readReport(file: string, since: number): string | null {
  if (!isFresh(file, since)) return null
  if (statSync(file).size > MAX_REPORT_BYTES) return null
  return readFileSync(file, 'utf8')
}

// The report when the pipeline wrote none: the verdict's own headline where
// there is one, else the problem, in the report's headline style.
// A run's headline: the verdict's, else why there is none.
function headlineOf(m: Measured): string {
  return m.verdict?.headline || m.problem || m.verdict?.summary || ''
}

function fallbackReport(m: Measured): string {
  const headline = headlineOf(m)
  const lines = [REPORT_MARKER, headingLine(m.status, headline), '']
  if (m.problem && m.problem !== headline) lines.push(m.problem, '')
  const errors = m.verdict?.errors ?? []
  for (const e of errors) lines.push(`- ${e}`)
  if (errors.length > 0) lines.push('')
  lines.push('No report.md was written; the log of this step says more.')
  return lines.join('\n')
}

async function writeSummary(text: string): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) return
  const body =
    text.length > MAX_SUMMARY_CHARS ? `${text.slice(0, MAX_SUMMARY_CHARS)}\n\n… (cut)\n` : text
  try {
    await core.summary.addRaw(body).write()
  } catch (e) {
    core.warning(`Could not write the job summary: ${errorText(e)}`)
  }
}
