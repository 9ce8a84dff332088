// Runs the built action the way GitHub's runner does: `node dist/index.js`
// with INPUT_* variables (names upper-cased, hyphens kept), GITHUB_EVENT_PATH,
// GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, the workspace as the working
// directory, and a clean environment (nothing from the test process leaks in).

import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { parse } from 'yaml'

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..')
export const FIXTURES = path.join(REPO_ROOT, 'src', 'action', 'fixtures', 'events')

export interface ActionRun {
  status: number
  log: string
  outputs: Record<string, string>
  summary: string
}

export interface RunSpec {
  entry?: 'index' | 'post'
  inputs: Record<string, string>
  eventName: string
  eventFile: string // a file in fixtures/events, or an absolute path
  workspace: string
  apiUrl: string
  env?: Record<string, string>
  // What the runner puts in for ${{ github.token }} (the github-token default).
  jobToken?: string
}

// The runner sets every input: the workflow's value, else action.yml's default
// with its expressions evaluated.
function inputsWithDefaults(
  given: Record<string, string>,
  jobToken: string
): Record<string, string> {
  const action = parse(readFileSync(path.join(REPO_ROOT, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { default?: string }>
  }
  const all: Record<string, string> = {}
  for (const [name, spec] of Object.entries(action.inputs)) {
    all[name] = (spec.default ?? '').replace('${{ github.token }}', jobToken)
  }
  return { ...all, ...given }
}

let runNumber = 0

// GITHUB_OUTPUT holds "name<<DELIM\nvalue\nDELIM" blocks.
export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i])
    if (!m) continue
    const value: string[] = []
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i])
    out[m[1]] = value.join('\n')
  }
  return out
}

export async function runAction(spec: RunSpec): Promise<ActionRun> {
  runNumber++
  const dir = path.join(spec.workspace, '.runner', String(runNumber))
  mkdirSync(dir, { recursive: true })
  const outputFile = path.join(dir, 'output')
  const summaryFile = path.join(dir, 'summary.md')
  writeFileSync(outputFile, '')
  writeFileSync(summaryFile, '')
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: spec.workspace,
    GITHUB_REPOSITORY: 'octo-org/afp-server',
    GITHUB_REPOSITORY_OWNER: 'octo-org',
    GITHUB_EVENT_NAME: spec.eventName,
    GITHUB_EVENT_PATH: path.isAbsolute(spec.eventFile)
      ? spec.eventFile
      : path.join(FIXTURES, spec.eventFile),
    GITHUB_SHA: '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b',
    GITHUB_RUN_ID: String(9000 + runNumber),
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_JOB: 'afpbench',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: spec.apiUrl,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: dir,
    ...spec.env
  }
  for (const [name, value] of Object.entries(inputsWithDefaults(spec.inputs, spec.jobToken ?? '')))
    env[`INPUT_${name.toUpperCase()}`] = value
  const entry = path.join(REPO_ROOT, 'dist', `${spec.entry ?? 'index'}.js`)
  const child = spawn(process.execPath, [entry], {
    cwd: spec.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let log = ''
  child.stdout.on('data', (d: Buffer) => (log += d.toString()))
  child.stderr.on('data', (d: Buffer) => (log += d.toString()))
  const status = await new Promise<number>((resolve) =>
    child.on('close', (code) => resolve(code ?? -1))
  )
  writeFileSync(path.join(dir, 'log'), log)
  return {
    status,
    log,
    outputs: parseOutputs(readFileSync(outputFile, 'utf8')),
    summary: readFileSync(summaryFile, 'utf8')
  }
}

// A value the main step saved for the post step (core.saveState), from its log.
export function savedState(main: ActionRun, name: string): string {
  return new RegExp(`::save-state name=${name}::(.*)`).exec(main.log)?.[1] ?? ''
}

// The post step after `main`, as the runner starts it: no inputs given, every
// state the main step saved as STATE_<name>.
export async function runPostStep(
  main: ActionRun,
  spec: Omit<RunSpec, 'entry' | 'inputs'>
): Promise<ActionRun> {
  const states: Record<string, string> = {}
  for (const m of main.log.matchAll(/::save-state name=([^:]+)::(.*)/g))
    states[`STATE_${m[1]}`] = m[2]
  return runAction({ ...spec, entry: 'post', inputs: {}, env: { ...spec.env, ...states } })
}

// The docker CLI of the engine the job's environment names (DOCKER_HOST).
export function docker(args: string[]): { status: number; out: string } {
  const r = spawnSync('docker', args, { encoding: 'utf8' })
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` }
}

export interface ServerSettings {
  host: string
  port: string
  user: string
  password: string
  share: string
  procIo: string
}

// scripts/local-server prints shell assignments; let bash read them.
// ARGS: more `local-server start` options, e.g. ['--afp-conf', FILE].
export function startLocalServer(
  port: number,
  password: string,
  args: string[] = [],
  env: Record<string, string> = {}
): ServerSettings {
  const script = path.join(REPO_ROOT, 'scripts', 'local-server')
  const start = spawnSync(script, ['start', '--port', String(port), ...args], {
    env: { ...process.env, ...env, AFP_PASS: password },
    encoding: 'utf8'
  })
  if (start.status !== 0)
    throw new Error(`local-server start failed (${start.status}):\n${start.stderr}`)
  const read = spawnSync(
    'bash',
    [
      '-c',
      'eval "$(cat)"; printf "%s\\n" "$AFP_HOST" "$AFP_PORT" "$AFP_USER" "$AFP_PASS" "$SHARE_NAME" "$PROC_IO"'
    ],
    { input: start.stdout, encoding: 'utf8' }
  )
  const [host, p, user, pass, share, procIo] = read.stdout.split('\n')
  return { host, port: p, user, password: pass, share, procIo }
}

// The first of the ports the end-to-end tests use: AFPBENCH_E2E_PORT, so that
// engineers sharing a machine can each take their own range; 10590 by default.
// action.e2e uses it + 1 (and + 9, where nothing listens), ab.e2e + 2 and + 3,
// first-run + 4, history + 5, bisect + 6 (and + 8, its probes), backfill + 7.
// The netatalk 4.4 tree the stories build (scripts/tests/lib/netatalk-44.sh
// unpacks it once), or why there is none: its exit 77 says what is missing, and
// the story is then not run and says so.
export function netatalk44Tree(story: string): { tree: string; noTree: string } {
  const r = spawnSync(path.join(REPO_ROOT, 'scripts', 'tests', 'lib', 'netatalk-44.sh'), {
    encoding: 'utf8'
  })
  const noTree =
    r.status === 77
      ? `not run: ${r.stderr.trim().split('\n').pop() ?? ''}`
      : r.status !== 0
        ? `netatalk-44.sh failed (${r.status}): ${r.stderr}`
        : ''
  if (noTree !== '') console.log(`${story}: ${noTree}`)
  return { tree: r.status === 0 ? r.stdout.trim() : '', noTree }
}

export function e2ePort(offset: number): number {
  const first = Number(process.env.AFPBENCH_E2E_PORT || '10590')
  if (!Number.isInteger(first) || first < 1024 || first > 65000)
    throw new Error(
      `AFPBENCH_E2E_PORT='${process.env.AFPBENCH_E2E_PORT}' is not a port of 1024-65000`
    )
  return first + offset
}

export function stopLocalServer(port: number): void {
  spawnSync(path.join(REPO_ROOT, 'scripts', 'local-server'), ['stop', '--port', String(port)], {
    stdio: 'inherit'
  })
}

// The test-only injector (scripts/tests/lib/inject-slowdown.c, never in an
// image), built into dir: preloaded into a server (local-server start
// --preload), it adds one lstat per reply when AFPBENCH_INJECT_LSTAT=1.
export function buildInjector(dir: string): string {
  const out = path.join(dir, 'inject.so')
  const cc = spawnSync(
    'gcc',
    [
      '-shared',
      '-fPIC',
      '-O2',
      '-o',
      out,
      path.join(REPO_ROOT, 'scripts/tests/lib/inject-slowdown.c'),
      '-ldl'
    ],
    { encoding: 'utf8' }
  )
  if (cc.status !== 0) throw new Error(`building the injector failed:\n${cc.stderr}`)
  return out
}

// jq FILTER IN > OUT: how the tests derive a baseline that a run must fail or
// be inconclusive against.
export function jqTransform(filter: string, input: string, output: string): void {
  const r = spawnSync('jq', [filter, input], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`jq failed: ${r.stderr}`)
  writeFileSync(output, r.stdout)
}

export function requireE2ePrerequisites(): void {
  const missing: string[] = []
  if (typeof process.getuid === 'function' && process.getuid() !== 0)
    missing.push('root (chroot, mount)')
  if (!existsSync(path.join(REPO_ROOT, 'dist', 'index.js')))
    missing.push('dist/index.js (npm run bundle)')
  if (spawnSync('jq', ['--version']).status !== 0) missing.push('jq')
  if (missing.length > 0) throw new Error(`end-to-end tests need: ${missing.join(', ')}`)
}
