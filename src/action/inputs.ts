// Every input is read and validated here, once. A bad value throws an
// InputError whose message names the input and says what is allowed.

import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { readAfpConf, type AfpConfSettings } from './afp-conf.js'
import { MAX_TREND_RUNS } from './history-store.js'
import { parseBackfill, type BackfillConfig } from './backfill-inputs.js'
import type { BisectConfig } from './bisect.js'

export type { BackfillConfig }
import { InputError } from './input-error.js'
import { planSettings, type PlanInputs } from './gate-env.js'
import { inputSettings, makePlan, readSettingsTable, type Plan, type Setting } from './settings.js'
import { DEFAULTS } from './action-inputs.js'
import { Input, BASE_ADDRESS, type InputName } from './names.js'

export const MODES = ['gate', 'baseline', 'publish', 'backfill'] as const
export const COMMENT_POLICIES = ['always', 'on-change', 'never'] as const
export const FAIL_ON = ['regression', 'inconclusive', 'never'] as const
export type Mode = (typeof MODES)[number]
export type CommentPolicy = (typeof COMMENT_POLICIES)[number]
export type FailOn = (typeof FAIL_ON)[number]

// afp_lantest's version flags -3..-7; the names are what DSIGetStatus lists.
export const AFP_VERSIONS: Record<string, number> = {
  AFPX03: 3,
  'AFP3.0': 3,
  'AFP3.1': 4,
  'AFP3.2': 5,
  'AFP3.3': 6,
  'AFP3.4': 7
}

export type ServerSpec = { kind: 'compose' } | { kind: 'host'; host: string; port: number }
export interface HostPort {
  host: string
  port: number
}

// The base side of an A/B run (base and head measured together, the way to
// gate timings). null in Config.base: no A/B.
export interface BaseSide {
  server: HostPort | null // server: HOST:PORT — the running base server
  netatalkVersion: string // server: compose — how the action builds the base server
  netatalkSource: string // absolute path, or ''
  afpConf: string // absolute path of base-afp-conf, or ''
  afpConfSettings: AfpConfSettings | null // its settings, checked
  procIo: string // server: HOST:PORT — procfs showing the base server's processes, or ''
}

export interface Config {
  mode: Mode
  // The run's plan (scripts/plan, settings.ts), made once from these inputs:
  // the server, the suites, the settings and the files they name, checked.
  // null in publish mode, which runs no gate.
  plan: Plan | null
  // The gate's settings these inputs set as written (tests, speedtest, load,
  // iterations, afp-version, the thresholds, baseline-timings), by
  // environment name, as the plan holds them (normalised). {} in publish mode.
  gate: Record<string, string>
  server: ServerSpec
  netatalkVersion: string
  netatalkSource: string // absolute path, or ''
  afpConf: string // compose: absolute path of afp-conf, or ''
  afpConfSettings: AfpConfSettings | null // its settings, checked
  afpUser: string
  afpPassword: string
  volume: string
  procIo: string
  base: BaseSide | null // A/B: the base server; null = compare with a stored baseline
  // compose: where server images built from netatalk source are kept between
  // runs (absolute), '' = not kept
  imageCache: string
  baseline: string // gate: the file to compare with (absolute), '' = none
  // gate: the baseline input as written, when it names a file in the
  // workspace that does not exist yet (a first run): measure only, and say
  // how to make it (AFPBENCH_BASELINE_MISSING). '' otherwise.
  baselineMissing: string
  // gate: how the report names the baseline: the input as written (a path in
  // the repository), or the bundled one's name; '' = none
  baselineName: string
  baselineOut: string // baseline mode: the file to write (absolute); otherwise ''
  thresholds: string // absolute path, or ''
  // afpd instructions per AFP op: 'compose' (the compose stack's instrumented
  // profile), an absolute directory (a host:port server's INSTR_DIR), '' = off
  instructions: string
  comment: CommentPolicy
  commentKey: string
  // publish: the matrix slices expected in results-dir, one subdirectory each
  // ([] = results-dir holds one run's results, or the slices found there)
  slices: string[]
  failOn: FailOn
  githubToken: string
  resultsDir: string // absolute
  artifactName: string // '' = no artifact
  assetsBranch: string // '' = never commit charts
  // the default branch's history (docs/history.md): written on its pushes and
  // on releases, read for every run's trend; '' = no history
  historyBranch: string
  trendRuns: number // how many of the default branch's last runs the trend shows
  pagesBranch: string // the history page's branch (pages.ts); '' = no page
  pagesUrl: string // where the page is served (page-url.ts); '' = derived, or none
  sessions: number // baseline: sessions pooled, each on a fresh server (compose)
  bisect: BisectConfig | null // the opt-in bisect (bisect.ts); null = off
  backfill: BackfillConfig | null // mode: backfill (backfill.ts); null in the other modes
  checkRun: boolean // the verdict as a check run too (check-run.ts)
  warnings: string[] // accepted, but worth telling the user
}

export { InputError }

export interface InputContext {
  workspace: string // GITHUB_WORKSPACE: relative paths are taken from here
  actionDir: string // the action's own checkout (for its bundled baseline)
  commit?: string // GITHUB_SHA: the commit measured, for the plan's provenance
}

// An input's raw value; undefined when it is not set at all (dist/ run by hand).
// GitHub always sets every input, to its action.yml default when the workflow
// leaves it out.
type Getter = (name: string) => string | undefined

// Inputs whose documented empty value means "off" (action.yml: "Empty: ...").
// Given as '', they stay ''; only an input that is not set at all takes its
// default.
export const EMPTY_MEANS_OFF: ReadonlySet<string> = new Set([
  Input.ArtifactName,
  Input.AssetsBranch,
  Input.HistoryBranch,
  Input.GithubToken
])

// The cleartext UAM sends the password in a fixed 8-byte field: afpbench and
// the server entrypoint refuse a longer one, and so do the inputs.
export const MAX_PASSWORD_BYTES = 8

// Rejecting control characters is the point of this pattern.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/

export function parseInputs(rawGet: Getter, ctx: InputContext): Config {
  const get = (name: keyof typeof DEFAULTS): string => {
    const raw = rawGet(name)
    if (raw === undefined) return DEFAULTS[name]
    const value = raw.trim()
    return value === '' && !EMPTY_MEANS_OFF.has(name) ? DEFAULTS[name] : value
  }
  const warnings: string[] = []
  const table = readSettingsTable(ctx.actionDir)
  // a host:port without its port: the gate's default (AFP_PORT in the table)
  const afpPort = Number(table.find((s) => s.env === 'AFP_PORT')?.default)
  const mode = parseEnum(Input.Mode, get(Input.Mode), MODES)
  const { server, netatalkVersion, netatalkSource, afpConf, procIo } = parseHeadSide(
    get,
    ctx,
    mode,
    afpPort,
    warnings
  )
  const afpPassword = parseText(Input.AfpPassword, get(Input.AfpPassword), 255)
  if (mode !== 'publish' && Buffer.byteLength(afpPassword, 'utf8') > MAX_PASSWORD_BYTES)
    throw new InputError(
      Input.AfpPassword,
      `is longer than ${MAX_PASSWORD_BYTES} bytes: netatalk's cleartext UAM, the one afpbench logs in with, cannot send it (afpbench and the server image refuse it too)`
    )
  const instructions =
    mode === 'publish'
      ? ''
      : parseInstructions(get(Input.Instructions), server, netatalkSource, ctx)
  const resultsDir = parsePath(Input.ResultsDir, get(Input.ResultsDir), ctx)
  const base = mode === 'publish' ? null : parseBaseSide(get, ctx, mode, server, afpPort, warnings)
  if (base !== null) checkAbRun(get, server, base, instructions)
  const imageCache = parseImageCache(
    get(Input.ImageCache),
    ctx,
    mode,
    server,
    netatalkSource,
    base,
    warnings
  )
  const { assetsBranch, historyBranch, pagesBranch } = parseBranches(get)
  // A/B needs no baseline, and the bundled default must not reach the gate.
  const baselines =
    mode === 'gate' && base === null
      ? parseBaseline(get(Input.Baseline), ctx, netatalkSource === '' ? netatalkVersion : '')
      : { baseline: '', baselineMissing: '', baselineName: '' }
  const thresholds = parseOptionalFile(Input.Thresholds, get(Input.Thresholds), ctx)
  const plan =
    mode === 'publish'
      ? null
      : runPlan(get, ctx, table, {
          ...baselines,
          thresholds,
          // where the counts will be (compose.yaml's client-instr): it decides what else may run
          instructions: instructions === 'compose' ? '/instr' : instructions,
          baseInstructions: instructions === 'compose' && base !== null ? '/instr-base' : '',
          netatalkVersion,
          netatalkSource,
          afpConf: afpConf?.file ?? '',
          base
        })
  return {
    mode,
    plan,
    gate:
      plan === null
        ? {}
        : pick(
            plan.settings,
            inputSettings(table).map((s) => s.env)
          ),
    server,
    netatalkVersion,
    netatalkSource,
    afpConf: afpConf?.file ?? '',
    afpConfSettings: afpConf?.settings ?? null,
    afpUser: parseText(Input.AfpUser, get(Input.AfpUser), 255),
    afpPassword,
    volume: parseText(Input.Volume, get(Input.Volume), 255),
    procIo,
    base,
    imageCache,
    ...baselines,
    baselineOut: mode === 'baseline' ? parseBaselineOut(get(Input.Baseline), ctx, resultsDir) : '',
    thresholds,
    instructions,
    comment: parseEnum(Input.Comment, get(Input.Comment), COMMENT_POLICIES),
    commentKey: parseCommentKey(get(Input.CommentKey)),
    slices: parseSlices(get(Input.Slices), mode),
    failOn: parseEnum(Input.FailOn, get(Input.FailOn), FAIL_ON),
    // The default is an expression GitHub fills in; unfilled (a run by hand),
    // it means no token.
    githubToken: get(Input.GithubToken).startsWith('${{') ? '' : get(Input.GithubToken),
    resultsDir,
    artifactName: parseArtifactName(get(Input.ArtifactName)),
    assetsBranch,
    historyBranch,
    trendRuns: parseInteger(Input.TrendRuns, get(Input.TrendRuns), 2, MAX_TREND_RUNS),
    pagesBranch,
    pagesUrl: parsePagesUrl(get(Input.PagesUrl)),
    sessions: parseSessions(get(Input.Sessions), mode, server, warnings),
    bisect: parseBisect(get(Input.Bisect), get(Input.BisectBudget), mode, netatalkSource, ctx),
    backfill: parseBackfill(
      get,
      { parseBoolean, parseInteger },
      mode,
      netatalkSource,
      historyBranch,
      ctx.workspace
    ),
    checkRun: parseBoolean(Input.CheckRun, get(Input.CheckRun)),
    warnings
  }
}

// The server measured (the head): compose or host:port, and what only one of
// them takes.
function parseHeadSide(
  get: (name: InputName) => string,
  ctx: InputContext,
  mode: Mode,
  afpPort: number,
  warnings: string[]
): {
  server: ServerSpec
  netatalkVersion: string
  netatalkSource: string
  afpConf: ReturnType<typeof parseAfpConfInput>
  procIo: string
} {
  const server = parseServer(get(Input.Server), afpPort)
  const netatalkVersion = parseNetatalkVersion(Input.NetatalkVersion, get(Input.NetatalkVersion))
  const netatalkSource = parseOptionalDir(Input.NetatalkSource, get(Input.NetatalkSource), ctx)
  const afpConf =
    mode === 'publish' ? null : parseAfpConfInput(Input.AfpConf, get(Input.AfpConf), ctx, warnings)
  // With a host:port server, afp-conf and netatalk-version describe the
  // server you started (scripts/local-server start --afp-conf FILE
  // --netatalk-version V): the plan holds them, so that the comment's
  // reproduce command serves the same; the gate warns when the server's own
  // afp.conf does not carry the settings.
  if (mode !== 'publish' && server.kind === 'host') {
    if (netatalkSource !== '')
      throw new InputError(
        Input.NetatalkSource,
        "applies only to 'server: compose' (a host:port server is already running)"
      )
  }
  const procIo = parseOptionalDir(Input.ProcIo, get(Input.ProcIo), ctx)
  if (mode !== 'publish' && server.kind === 'compose' && procIo !== '')
    throw new InputError(
      Input.ProcIo,
      "applies only to 'server: HOST:PORT' (the compose client mounts its own procfs)"
    )
  if (netatalkVersion !== '' && netatalkSource !== '')
    throw new InputError(
      Input.NetatalkSource,
      "set either 'netatalk-version' or 'netatalk-source', not both"
    )
  return { server, netatalkVersion, netatalkSource, afpConf, procIo }
}

// A/B: what cannot go with a named base side.
function checkAbRun(
  get: (name: InputName) => string,
  server: ServerSpec,
  base: BaseSide,
  instructions: string
): void {
  // A/B with instructions: compose starts an instrumented base beside the
  // instrumented head; a host:port base has no input for its counts' directory
  if (instructions !== '' && server.kind === 'host')
    throw new InputError(
      Input.Instructions,
      `with a host:port server cannot be set when the base side is named (${baseInputsGiven(get).join(', ')}): run scripts/gate with AFPBENCH_INSTR_DIR and BASE_AFPBENCH_INSTR_DIR (each side's instrumented server) instead`
    )
  if (instructions !== '' && base.netatalkSource !== '')
    throw new InputError(
      Input.Instructions,
      "the instrumented base is Debian's netatalk package; it cannot be combined with 'base-netatalk-source' yet"
    )
  if (get(Input.Baseline) !== '')
    throw new InputError(
      Input.Baseline,
      `must be empty when the base side is named (${baseInputsGiven(get).join(', ')}): an A/B run measures its own base next to the head; a stored baseline is for IO and release tracking`
    )
}

// The run's plan (scripts/plan, settings.ts): the plan's settings the inputs
// set as written (the table's), and what the action worked out from the
// others (the files, the servers), checked and normalised by scripts/plan,
// once. A refusal is an InputError naming the input.
function runPlan(
  get: (name: InputName) => string,
  ctx: InputContext,
  table: Setting[],
  given: Omit<PlanInputs, 'asWritten' | 'commit' | 'basePort' | 'base'> & { base: BaseSide | null }
): Plan {
  const asWritten = inputSettings(table)
  const base = given.base
  return makePlan(
    ctx.actionDir,
    planSettings({
      ...given,
      asWritten: Object.fromEntries(
        asWritten.map((s) => [s.env, asSetting(s.input, get(s.input))])
      ),
      commit: ctx.commit ?? '',
      // A/B: the gate's defaults differ (10 pairs, not 5 iterations)
      basePort: base === null ? '' : base.server ? String(base.server.port) : BASE_ADDRESS.port
    }),
    table
  )
}

// The history's, the charts' and the page's branches: each its own, or none.
function parseBranches(get: (name: InputName) => string): {
  assetsBranch: string
  historyBranch: string
  pagesBranch: string
} {
  const assetsBranch = parseBranch(Input.AssetsBranch, get(Input.AssetsBranch))
  const historyBranch = parseBranch(Input.HistoryBranch, get(Input.HistoryBranch))
  const pagesBranch = parseBranch(Input.PagesBranch, get(Input.PagesBranch))
  // a chart commit's tree holds its charts only: on one branch it would
  // drop the history from the tip
  if (historyBranch !== '' && historyBranch === assetsBranch)
    throw new InputError(
      Input.HistoryBranch,
      `'${historyBranch}' is also 'assets-branch': the history needs a branch of its own`
    )
  // (with no history, pages-branch publishes nothing: pages.ts says why)
  for (const [other, name] of [
    [historyBranch, Input.HistoryBranch],
    [assetsBranch, Input.AssetsBranch]
  ])
    if (pagesBranch !== '' && pagesBranch === other)
      throw new InputError(
        Input.PagesBranch,
        `'${pagesBranch}' is also '${name}': the page needs a branch of its own`
      )
  return { assetsBranch, historyBranch, pagesBranch }
}

// pages-url: an https address, of plain characters (it goes into links).
function parsePagesUrl(value: string): string {
  if (value === '') return ''
  if (
    !/^https:\/\/[A-Za-z0-9.-]+(:\d{1,5})?(\/[A-Za-z0-9._~%/-]*)?$/.test(value) ||
    value.length > 300
  )
    throw new InputError(
      Input.PagesUrl,
      `'${value.slice(0, 300)}' is not an https address of the page (https://OWNER.github.io/NAME/)`
    )
  return value
}

export function parseBoolean(name: string, value: string): boolean {
  if (value !== 'true' && value !== 'false')
    throw new InputError(name, `'${value}' is not true or false`)
  return value === 'true'
}

// bisect: 'true' bisects after the run (bisect.ts): the commits of a push
// that moved a count, or of a pull request that fails on one. The
// repository is the netatalk checkout: netatalk-source, else the workspace.
export function parseBisect(
  value: string,
  budget: string,
  mode: Mode,
  netatalkSource: string,
  ctx: InputContext
): BisectConfig | null {
  const on = parseBoolean(Input.Bisect, value)
  const minutes = parseInteger(Input.BisectBudget, budget, 1, 360)
  if (!on) return null
  if (mode !== 'gate')
    throw new InputError(Input.Bisect, `applies to 'mode: gate' only (mode is '${mode}')`)
  return {
    repo: netatalkSource !== '' ? netatalkSource : ctx.workspace,
    budgetSeconds: minutes * 60
  }
}

// A baseline's sessions (1-10), each on a fresh server in compose; other modes
// measure one session and take only the default.
export function parseSessions(
  value: string,
  mode: Mode,
  server: ServerSpec,
  warnings: string[]
): number {
  const n = parseInteger(Input.Sessions, value, 1, 10)
  if (mode !== 'baseline') {
    if (value !== DEFAULTS[Input.Sessions])
      throw new InputError(
        Input.Sessions,
        `applies only to 'mode: baseline' (a gate run is one session; mode is '${mode}')`
      )
    return 1
  }
  if (n > 1 && server.kind === 'host')
    warnings.push(
      `input 'sessions': ${n} sessions against ${server.host}:${server.port}, a server this action does not start: it is not restarted between them (with 'server: compose' each session gets a fresh one)`
    )
  return n
}

export function parseEnum<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T
  throw new InputError(name, `'${value}' is not one of ${allowed.join(', ')}`)
}

export function parseInteger(name: string, value: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(value))
    throw new InputError(name, `'${value}' is not a whole number (${min}-${max})`)
  const n = Number(value)
  if (n < min || n > max) throw new InputError(name, `${value} is out of range (${min}-${max})`)
  return n
}

// afp-version as the gate's flag: a name (AFP3.4) becomes its number; anything
// else goes to the gate as written, which checks it.
export function afpVersionFlag(value: string): string {
  const byName = AFP_VERSIONS[value.toUpperCase()]
  return byName !== undefined ? String(byName) : value
}

// An input's value as the gate's setting: as written, but for afp-version's names.
function asSetting(input: InputName, value: string): string {
  return input === Input.AfpVersion ? afpVersionFlag(value) : value
}

function pick(from: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => n in from).map((n) => [n, from[n]]))
}

// "compose", or the host[:port] of a server that is already running
// (the gate's default port when left out; IPv6 in brackets: [::1]:548).
export function parseServer(value: string, defaultPort: number): ServerSpec {
  if (value === 'compose') return { kind: 'compose' }
  return {
    kind: 'host',
    ...parseHostPort(Input.Server, value, "'compose' or HOST:PORT", defaultPort)
  }
}

// HOST[:PORT] (DEFAULT_PORT when left out; IPv6 in brackets).
export function parseHostPort(
  name: string,
  value: string,
  expected: string,
  defaultPort: number
): HostPort {
  const bad = (why: string): InputError =>
    new InputError(name, `'${value}' ${why} (use ${expected}, e.g. 127.0.0.1:548)`)
  let host: string
  let portText: string | undefined
  const v6 = /^\[([0-9A-Fa-f:.]+)\](?::(.*))?$/.exec(value)
  if (v6) {
    host = v6[1]
    portText = v6[2]
    if (!host.includes(':')) throw bad('is not an IPv6 address in brackets')
  } else {
    const parts = value.split(':')
    if (parts.length > 2) throw bad('has more than one ":" (put IPv6 addresses in brackets)')
    host = parts[0]
    portText = parts[1]
    if (!/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(host) || host.includes('..'))
      throw bad('does not start with a host name or address')
  }
  let port = defaultPort
  if (portText !== undefined) {
    if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535)
      throw bad(`has port '${portText}', not 1-65535`)
    port = Number(portText)
  }
  return { host, port }
}

// A Debian package version, e.g. 4.2.3-1 or 1:4.2.3-1+deb13u1.
export function parseNetatalkVersion(name: string, value: string): string {
  if (value === '') return ''
  if (!/^[0-9][A-Za-z0-9.+~:-]{0,63}$/.test(value))
    throw new InputError(name, `'${value}' is not a Debian package version (e.g. 4.2.3-1)`)
  return value
}

const BASE_INPUTS = [
  Input.BaseServer,
  Input.BaseNetatalkVersion,
  Input.BaseNetatalkSource,
  Input.BaseAfpConf,
  Input.BaseProcIo
] as const

function baseInputsGiven(get: (name: (typeof BASE_INPUTS)[number]) => string): string[] {
  return BASE_INPUTS.filter((name) => get(name) !== '')
}

// The base side of an A/B run; null when no base input is set. With
// server: HOST:PORT the base is a running server (base-server); with
// server: compose the action builds and starts it (base-netatalk-version,
// base-netatalk-source, base-afp-conf; any one of them is enough: the others
// default to the head's image and settings).
export function parseBaseSide(
  get: (name: (typeof BASE_INPUTS)[number]) => string,
  ctx: InputContext,
  mode: Mode,
  server: ServerSpec,
  defaultPort: number, // a base-server without its port
  warnings: string[]
): BaseSide | null {
  const given = baseInputsGiven(get)
  if (given.length === 0) return null
  if (mode !== 'gate')
    throw new InputError(
      given[0],
      `applies only to 'mode: gate' (an A/B run compares head with base; a baseline is measured from one server)`
    )
  const native = server.kind === 'host'
  for (const name of [Input.BaseNetatalkVersion, Input.BaseNetatalkSource, Input.BaseAfpConf])
    if (native && get(name) !== '')
      throw new InputError(
        name,
        "applies only to 'server: compose' (with server: HOST:PORT the base server is already running: name it in 'base-server')"
      )
  for (const name of [Input.BaseServer, Input.BaseProcIo])
    if (!native && get(name) !== '')
      throw new InputError(
        name,
        name === Input.BaseServer
          ? "applies only to 'server: HOST:PORT' (with server: compose the action starts the base server itself, from 'base-netatalk-version', 'base-netatalk-source' or 'base-afp-conf')"
          : "applies only to 'server: HOST:PORT' (the compose client sees the base server's processes in its own /proc_io)"
      )
  if (native && get(Input.BaseServer) === '')
    throw new InputError(
      Input.BaseProcIo,
      "needs 'base-server': the HOST:PORT of the running base server"
    )
  if (get(Input.BaseServer) === 'compose')
    throw new InputError(
      Input.BaseServer,
      "is HOST:PORT, not 'compose' (for a base server that the action starts, use server: compose with 'base-netatalk-version', 'base-netatalk-source' or 'base-afp-conf')"
    )
  const baseServer =
    get(Input.BaseServer) === ''
      ? null
      : parseHostPort(Input.BaseServer, get(Input.BaseServer), 'HOST:PORT', defaultPort)
  if (baseServer && server.kind === 'host') {
    if (baseServer.host === server.host && baseServer.port === server.port)
      warnings.push(
        `input '${Input.BaseServer}' is the head server itself (${server.host}:${server.port}): an A/A run, which measures only the noise`
      )
  }
  const netatalkVersion = parseNetatalkVersion(
    Input.BaseNetatalkVersion,
    get(Input.BaseNetatalkVersion)
  )
  const netatalkSource = parseOptionalDir(
    Input.BaseNetatalkSource,
    get(Input.BaseNetatalkSource),
    ctx
  )
  if (netatalkVersion !== '' && netatalkSource !== '')
    throw new InputError(
      Input.BaseNetatalkSource,
      "set either 'base-netatalk-version' or 'base-netatalk-source', not both"
    )
  const afpConf = parseAfpConfInput(Input.BaseAfpConf, get(Input.BaseAfpConf), ctx, warnings)
  return {
    server: baseServer,
    netatalkVersion,
    netatalkSource,
    afpConf: afpConf?.file ?? '',
    afpConfSettings: afpConf?.settings ?? null,
    procIo: parseOptionalDir(Input.BaseProcIo, get(Input.BaseProcIo), ctx)
  }
}

// afp-conf, base-afp-conf: an afp.conf whose settings a compose server serves,
// checked by scripts/afp-conf (afp-conf.ts).
function parseAfpConfInput(
  name: string,
  value: string,
  ctx: InputContext,
  warnings: string[]
): { file: string; settings: AfpConfSettings } | null {
  const file = parseOptionalFile(name, value, ctx)
  if (file === '') return null
  let settings: AfpConfSettings
  try {
    settings = readAfpConf(ctx.actionDir, file)
  } catch (e) {
    throw new InputError(name, `${value} ${e instanceof Error ? e.message : String(e)}`)
  }
  for (const why of settings.ignored) warnings.push(`input '${name}': ${value} ${why}`)
  return { file, settings }
}

// Free text (user name, password, volume name): non-empty, bounded, no
// control characters (they would corrupt the environment or the AFP request).
export function parseText(name: string, value: string, max: number): string {
  if (value === '') throw new InputError(name, 'must not be empty')
  if (value.length > max) throw new InputError(name, `is longer than ${max} characters`)
  if (CONTROL_CHARS.test(value)) throw new InputError(name, 'contains a control character')
  return value
}

// instructions: "false" (off), "true" (compose: the instrumented profile), or
// with a host:port server the directory its instrumented afpd sessions leave
// their counts in (scripts/local-server start --instrument prints it).
export function parseInstructions(
  value: string,
  server: ServerSpec,
  netatalkSource: string,
  ctx: InputContext
): string {
  if (value === 'false') return ''
  if (value === 'true') {
    if (server.kind === 'host')
      throw new InputError(
        Input.Instructions,
        "with a host:port server, give the instrumented server's count directory (its INSTR_DIR) instead of true"
      )
    if (netatalkSource !== '')
      throw new InputError(
        Input.Instructions,
        "the instrumented server is Debian's netatalk package; it cannot be combined with 'netatalk-source' yet"
      )
    return 'compose'
  }
  if (server.kind === 'compose')
    throw new InputError(
      Input.Instructions,
      `'${value}' is not true or false (a directory applies only to a host:port server)`
    )
  return parseOptionalDir(Input.Instructions, value, ctx)
}

function resolveIn(ctx: InputContext, value: string): string {
  return path.resolve(ctx.workspace, value)
}

export function parsePath(name: string, value: string, ctx: InputContext): string {
  if (CONTROL_CHARS.test(value)) throw new InputError(name, 'contains a control character')
  return resolveIn(ctx, value)
}

export function parseOptionalFile(name: string, value: string, ctx: InputContext): string {
  if (value === '') return ''
  const file = parsePath(name, value, ctx)
  if (!existsSync(file)) throw new InputError(name, `file '${value}' does not exist`)
  if (!statSync(file).isFile()) throw new InputError(name, `'${value}' is not a file`)
  return file
}

// image-cache: a directory in the workspace (made when missing) that keeps the
// server images built from netatalk-source / base-netatalk-source.
function parseImageCache(
  value: string,
  ctx: InputContext,
  mode: Mode,
  server: ServerSpec,
  netatalkSource: string,
  base: BaseSide | null,
  warnings: string[]
): string {
  if (value === '' || mode === 'publish') return ''
  if (server.kind === 'host')
    throw new InputError(
      Input.ImageCache,
      "applies only to 'server: compose' (a host:port server is already running)"
    )
  const dir = parsePath(Input.ImageCache, value, ctx)
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new InputError(Input.ImageCache, `'${value}' is not a directory`)
  if (netatalkSource === '' && (base?.netatalkSource ?? '') === '') {
    warnings.push(
      `${Input.ImageCache} keeps servers built from '${Input.NetatalkSource}' or '${Input.BaseNetatalkSource}', and neither is set: nothing is kept`
    )
    return ''
  }
  // inside a tree, the saved images would join its build context and its key
  for (const source of [netatalkSource, base?.netatalkSource ?? ''])
    if (source !== '' && !path.relative(source, dir).startsWith('..'))
      throw new InputError(
        Input.ImageCache,
        `'${value}' is inside the source tree ${source}: the images would become part of the server's build; name a directory outside it`
      )
  return dir
}

export function parseOptionalDir(name: string, value: string, ctx: InputContext): string {
  if (value === '') return ''
  const dir = parsePath(name, value, ctx)
  if (!existsSync(dir)) throw new InputError(name, `directory '${value}' does not exist`)
  if (!statSync(dir).isDirectory()) throw new InputError(name, `'${value}' is not a directory`)
  return dir
}

// gate: the file to compare with (empty: the action's bundled baseline of
// the netatalk-version asked for, baselines/netatalk-4.5.1.json for 4.5.1 or
// 4.5.1~ds-1, when there is one, else its baselines/default.json when there
// is one, else none: measure and report).
// A file inside the workspace that does not exist yet is a repository's first
// run, before anyone made its baseline: no file to compare with (measure
// only), and baselineMissing keeps the path as written so the report can say
// how to make it. Anything else that is not a file (outside the workspace, a
// directory) stays an input error; a file that is there but empty or
// malformed is an error verdict from scripts/gate.
export function parseBaseline(
  value: string,
  ctx: InputContext,
  netatalkVersion = ''
): { baseline: string; baselineMissing: string; baselineName: string } {
  if (value === '') {
    const upstream = upstreamVersion(netatalkVersion)
    if (upstream !== '') {
      const own = path.join(ctx.actionDir, 'baselines', `netatalk-${upstream}.json`)
      if (existsSync(own))
        return {
          baseline: own,
          baselineMissing: '',
          baselineName: `afpbench-action's baselines/netatalk-${upstream}.json`
        }
    }
    const bundled = path.join(ctx.actionDir, 'baselines', 'default.json')
    return existsSync(bundled)
      ? { baseline: bundled, baselineMissing: '', baselineName: BUNDLED_BASELINE_NAME }
      : { baseline: '', baselineMissing: '', baselineName: '' }
  }
  const file = parsePath(Input.Baseline, value, ctx)
  if (!existsSync(file) && insideDir(path.resolve(ctx.workspace), file))
    return { baseline: '', baselineMissing: value, baselineName: '' }
  return {
    baseline: parseOptionalFile(Input.Baseline, value, ctx),
    baselineMissing: '',
    baselineName: value
  }
}

// The upstream version in a Debian package version: 4.5.1 of 4.5.1~ds-1,
// 1:4.5.1-2 or 4.5.1 (scripts/run-gate names the bundled baselines alike).
export function upstreamVersion(debian: string): string {
  return debian.replace(/^[0-9]+:/, '').replace(/[~-].*$/, '')
}

// How the report names the baseline the action brings along.
export const BUNDLED_BASELINE_NAME = "afpbench-action's baselines/default.json"

// FILE is below DIR (both absolute), not DIR itself.
function insideDir(dir: string, file: string): boolean {
  const rel = path.relative(dir, file)
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel)
}

// baseline mode: the file to write (empty: baseline.json in the results
// directory). Its directory may be missing inside the workspace (a fresh
// repository's .github/afpbench/, as the first-run comment suggests): it is
// made when the baseline is written. Outside the workspace it must exist.
export function parseBaselineOut(value: string, ctx: InputContext, resultsDir: string): string {
  if (value === '') return path.join(resultsDir, 'baseline.json')
  const file = parsePath(Input.Baseline, value, ctx)
  const dir = path.dirname(file)
  if (!existsSync(dir) && !insideDir(path.resolve(ctx.workspace), file))
    throw new InputError(Input.Baseline, `directory of '${value}' does not exist`)
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new InputError(Input.Baseline, `the directory of '${value}' is not a directory`)
  if (existsSync(file) && !statSync(file).isFile())
    throw new InputError(Input.Baseline, `'${value}' is not a file`)
  return file
}

export function parseCommentKey(value: string): string {
  if (value === '') return ''
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(value))
    throw new InputError(
      Input.CommentKey,
      `'${value}' may only hold letters, digits, '.', '_' and '-' (at most 64)`
    )
  return value
}

// publish mode's matrix slices: names of the subdirectories of results-dir
// (the artifacts' names as download-artifact writes them), separated by
// commas, spaces or new lines.
export function parseSlices(value: string, mode: Mode): string[] {
  if (value === '') return []
  if (mode !== 'publish')
    throw new InputError(
      Input.Slices,
      "applies only to 'mode: publish' (the job that merges a matrix's results)"
    )
  const names = value.split(/[\s,]+/).filter((n) => n !== '')
  for (const n of names)
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(n) || /^\.+$/.test(n))
      throw new InputError(
        Input.Slices,
        `'${n}' is not a slice name: letters, digits, '.', '_' and '-' (at most 100), not only dots`
      )
  const twice = names.find((n, i) => names.indexOf(n) !== i)
  if (twice !== undefined) throw new InputError(Input.Slices, `'${twice}' is listed twice`)
  if (names.length > 256)
    throw new InputError(Input.Slices, `lists ${names.length} slices; at most 256`)
  return names
}

// What upload-artifact refuses in a name.
export function parseArtifactName(value: string): string {
  if (value === '') return ''
  if (/["':<>|*?\\/\r\n]/.test(value) || value.length > 200)
    throw new InputError(
      Input.ArtifactName,
      `'${value}' holds a character artifact names may not have`
    )
  return value
}

export function parseBranch(name: string, value: string): string {
  if (value === '') return ''
  const bad =
    !/^[A-Za-z0-9._/-]{1,200}$/.test(value) ||
    value.startsWith('-') ||
    value.startsWith('/') ||
    value.endsWith('/') ||
    value.endsWith('.lock') ||
    value.endsWith('.') ||
    value.includes('..') ||
    value.includes('//')
  if (bad) throw new InputError(name, `'${value}' is not a valid branch name`)
  return value
}
