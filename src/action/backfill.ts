// mode: backfill (docs/backfill.md): fill the history branch with one run per
// commit of a range of netatalk's history. A job measures the range, or its
// slice of it in a matrix (scripts/backfill, into results-dir in the data
// branch's layout, uploaded as the job's artifact); the job that measured
// the whole range, or the fan-in after a matrix (the slices' artifacts
// downloaded into results-dir), writes every record to the branch in one
// commit, which retries as any writer of the branch does when another moved
// it first.

import { spawnSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { errorText, type GitHubApi } from './github-api.js'
import { MAX_RECORD_BYTES, parseRecord, RecordError, type HistoryRecord } from './history-record.js'
import { filesUnder, runPath } from './history-layout.js'
import { appendRecords, type WriteOptions } from './history-store.js'
import type { BackfillConfig } from './backfill-inputs.js'
import type { Config } from './inputs.js'
import type { Runner } from './runner.js'

export interface Logger {
  info(message: string): void
  warning(message: string): void
}

export interface BackfillContext {
  config: Config
  backfill: BackfillConfig
  api: GitHubApi | null
  run: Runner
  actionDir: string
  env: Record<string, string>
  isRoot: boolean
  work: string
  commitUrl: (sha: string) => string
  upload: () => Promise<unknown> // results-dir as the job's artifact
  write?: WriteOptions
}

export interface BackfillOutcome {
  failed: string // why the step fails ('' = it does not)
  message: string // one line: what was measured and written
  summary: string // the job summary (Markdown)
}

// Records and accounts found in a results directory: at most this many files.
const MAX_FILES = 20_000
const RUN_FILE = /(^|\/)runs\/[^/]+\/[0-9]{4}-[0-9]{2}\/[^/]+\.json$/
const ACCOUNT = /(^|\/)backfill(-[0-9]+-of-[0-9]+)?\.json$/

// Every record under dir (a slice's results, or a fan-in's downloaded
// artifacts), checked as a reader checks them; one per run file path.
export function recordsUnder(dir: string, log: Logger): HistoryRecord[] {
  const byPath = new Map<string, HistoryRecord>()
  for (const rel of filesUnder(dir, MAX_FILES).filter((f) => RUN_FILE.test(f))) {
    const file = path.join(dir, rel)
    try {
      if (statSync(file).size > MAX_RECORD_BYTES) throw new RecordError(`${rel} is too large`)
      const r = parseRecord(readFileSync(file, 'utf8'), rel)
      if (!byPath.has(runPath(r))) byPath.set(runPath(r), r)
    } catch (e) {
      if (!(e instanceof RecordError)) throw e
      log.warning(`backfill: ${e.message} (skipped)`)
    }
  }
  return [...byPath.values()]
}

// scripts/backfill on the range (or the slice): natively as root, or
// through passwordless sudo, as the bisect runs; on the engine as it is.
async function measureRange(ctx: BackfillContext): Promise<number> {
  const { config, backfill } = ctx
  const args = [
    path.join(ctx.actionDir, 'scripts', 'backfill'),
    '--repo',
    backfill.repo,
    '--from',
    backfill.from,
    '--to',
    backfill.to,
    '--out',
    config.resultsDir,
    '--key',
    config.commentKey,
    '--budget',
    String(backfill.budgetSeconds),
    '--work',
    ctx.work,
    ...(backfill.slice !== '' ? ['--slice', backfill.slice] : []),
    ...(config.gate.AFPBENCH_TESTS ? ['--tests', config.gate.AFPBENCH_TESTS] : []),
    // one iteration unless the input says otherwise: the counts are exact
    ...(backfill.iterations && config.gate.AFPBENCH_ITERATIONS
      ? ['--iterations', config.gate.AFPBENCH_ITERATIONS]
      : []),
    ...(backfill.engine
      ? ['--engine']
      : config.afpConf !== ''
        ? ['--afp-conf', config.afpConf]
        : [])
  ]
  // on the engine the server takes the afp-conf as compose does
  const env =
    backfill.engine && config.afpConfSettings !== null
      ? {
          ...ctx.env,
          AFP_EXTRA_GLOBAL: config.afpConfSettings.global.join('\n'),
          AFP_EXTRA_VOLUME: config.afpConfSettings.volume.join('\n')
        }
      : ctx.env
  return ctx.isRoot || backfill.engine
    ? ctx.run(args[0], args.slice(1), { env })
    : ctx.run('sudo', ['-n', '--preserve-env=PATH', ...args], { env })
}

// The accounts under dir as the job summary shows them
// (scripts/jq/backfill-report.jq, the one writer of them).
function report(ctx: BackfillContext): string {
  const dir = ctx.config.resultsDir
  const accounts = filesUnder(dir, MAX_FILES)
    .filter((f) => ACCOUNT.test(f))
    .map((f) => path.join(dir, f))
  if (accounts.length === 0) return ''
  const jqDir = path.join(ctx.actionDir, 'scripts', 'jq')
  const r = spawnSync(
    'jq',
    [
      '-r',
      '-s',
      '-L',
      jqDir,
      '-f',
      path.join(jqDir, 'backfill-report.jq'),
      '--arg',
      'commit_url',
      ctx.commitUrl('{sha}'),
      ...accounts
    ],
    { encoding: 'utf8', timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }
  )
  return r.status === 0 ? r.stdout : ''
}

export async function runBackfill(ctx: BackfillContext, log: Logger): Promise<BackfillOutcome> {
  const { config, backfill } = ctx
  let failed = ''
  let measured = ''
  if (backfill.from !== '') {
    const what = `${backfill.from}..${backfill.to}${backfill.slice !== '' ? ` (slice ${backfill.slice})` : ''}`
    log.info(`Backfilling ${what} of ${backfill.repo} into ${config.resultsDir}`)
    const status = await measureRange(ctx)
    if (status === 4)
      log.warning(
        `backfill: the budget of ${backfill.budgetSeconds / 60} min ran out; the records made are kept (run the same range again to go on)`
      )
    else if (status !== 0)
      failed = `scripts/backfill exited ${status} on ${what} (its log above says why); the records it made are kept`
    measured = `${recordsUnder(config.resultsDir, log).length} records in ${config.resultsDir}`
    await ctx.upload()
  }
  let written = ''
  if (backfill.slice === '') {
    const records = recordsUnder(config.resultsDir, log)
    if (ctx.api === null)
      failed ||= `there is no token to write branch '${config.historyBranch}' with`
    else if (records.length === 0)
      failed ||= `no records in ${config.resultsDir} to write (download the slices' artifacts there)`
    else {
      try {
        const w = await appendRecords(ctx.api, config.historyBranch, records, {
          message: `afpbench backfill: ${records.length} runs`,
          ...ctx.write
        })
        written = `${records.length} records written to branch '${config.historyBranch}' in one commit${w.attempts > 1 ? ` after ${w.attempts} attempts` : ''}${w.archived > 0 ? ` (${w.archived} folded into archives)` : ''}`
        log.info(`backfill: ${written}`)
      } catch (e) {
        failed ||= `could not write the records to branch '${config.historyBranch}': ${errorText(e)}`
      }
    }
  }
  const message = [measured, written].filter((x) => x !== '').join('; ') || failed
  return { failed, message, summary: report(ctx) }
}
