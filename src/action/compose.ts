// server: compose — build and start the stack from the action's own
// compose.yaml, run the client (the gate pipeline) once, tear down in the post
// step. The command lines and environment are built by pure functions that the
// unit tests check; the compose-mode end-to-end test runs them on a real
// Docker Engine (scripts/docker-engine).

import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type { Config } from './inputs.js'
import { BASE_ADDRESS } from './names.js'
import { baseEnv, loginEnv, NO_HISTORY, type HistoryFiles } from './gate-env.js'
import { composeServerEnv, writePlan } from './settings.js'

// Where compose.yaml mounts things inside the client container.
const CONTAINER_INPUTS = '/baselines'
// The run's plan, staged among the inputs
const PLAN_FILE = 'plan.json'

// A/B: compose.yaml's base server service, off unless its profile is on.
export const AB_PROFILE = 'ab'
export const BASE_SERVICE = 'base-server'
// A/B with instruction counts: the base under valgrind too (compose.yaml)
export const AB_INSTR_PROFILE = 'ab-instr'
export const BASE_INSTR_SERVICE = 'base-server-instr'
// Where the instrumented client reads the base's counts
export const BASE_INSTR_DIR = '/instr-base'

export interface ComposeTarget {
  project: string
  file: string // <action dir>/compose.yaml
  ab?: boolean // A/B: the base server too (profile ab)
  instr?: boolean // the instrumented profile: services server-instr and client-instr
}

// A project name unique to this job run (compose allows [a-z0-9_-]).
export function composeProject(env: NodeJS.ProcessEnv): string {
  const parts = [
    'afpbench',
    env.GITHUB_RUN_ID ?? String(process.pid),
    env.GITHUB_RUN_ATTEMPT ?? '1',
    env.GITHUB_JOB ?? ''
  ]
  return parts
    .filter((p) => p !== '')
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '-')
    .slice(0, 63)
}

function base(t: ComposeTarget): string[] {
  const args = ['compose', '--project-name', t.project, '--file', t.file]
  const profiles = [
    ...(t.ab === true ? ['--profile', t.instr === true ? AB_INSTR_PROFILE : AB_PROFILE] : []),
    ...(t.instr === true ? ['--profile', 'instr'] : [])
  ]
  return [...args, ...profiles]
}

function servers(t: ComposeTarget): string[] {
  return t.ab === true ? [serverService(t), baseService(t)] : [serverService(t)]
}

const serverService = (t: ComposeTarget): string => (t.instr === true ? 'server-instr' : 'server')
const baseService = (t: ComposeTarget): string =>
  t.instr === true ? BASE_INSTR_SERVICE : BASE_SERVICE
const clientService = (t: ComposeTarget): string => (t.instr === true ? 'client-instr' : 'client')

// The name compose gives the image it builds for a service.
export const composeImage = (t: ComposeTarget, service: string): string => `${t.project}-${service}`

// The services of this run that are built from a netatalk source tree.
export function sourceServices(
  t: ComposeTarget,
  config: Config
): Array<{ service: string; source: string }> {
  const sides = [{ service: serverService(t), source: config.netatalkSource }]
  if (t.ab === true)
    sides.push({ service: baseService(t), source: config.base?.netatalkSource ?? '' })
  return sides.filter((s) => s.source !== '')
}

export const composeCommands = {
  // skip: services whose image is there already (loaded from the image cache)
  build: (t: ComposeTarget, skip: string[] = []): string[] =>
    t.instr === true || skip.length > 0
      ? [...base(t), 'build', ...[...servers(t), clientService(t)].filter((s) => !skip.includes(s))]
      : [...base(t), 'build'],
  // Returns once the server's health check (afpbench status) passes. fresh:
  // new server containers even when some are running (a baseline's next
  // session measures a server that has not served the one before).
  up: (t: ComposeTarget, fresh = false): string[] => [
    ...base(t),
    'up',
    '--detach',
    '--wait',
    '--no-build',
    ...(fresh ? ['--force-recreate'] : []),
    ...servers(t)
  ],
  // The client's entrypoint runs the gate; its exit status is the gate's.
  run: (t: ComposeTarget): string[] => [...base(t), 'run', '--rm', '-T', clientService(t)],
  logs: (t: ComposeTarget): string[] => [
    ...base(t),
    'logs',
    '--no-color',
    '--timestamps',
    ...servers(t)
  ],
  // With every profile on whatever the run was, so that no base or
  // instrumented server is left behind (the post step does not know which ran).
  down: (t: ComposeTarget): string[] => [
    ...base(t).slice(0, 5),
    ...[AB_PROFILE, AB_INSTR_PROFILE, 'instr'].flatMap((p) => ['--profile', p]),
    'down',
    '--volumes',
    '--remove-orphans',
    '--timeout',
    '10'
  ]
}

// The environment of the docker compose commands: compose.yaml passes the
// login and the plan's path on to the client, and builds and configures the
// servers from the plan (scripts/plan --compose-env; see compose.yaml and
// docs/images.md). The run's plan, with what the action read of the history,
// is staged in the directory compose mounts at /baselines.
export function composeEnv(
  config: Config,
  inputsDir: string,
  actionDir: string,
  history: HistoryFiles = NO_HISTORY
): Record<string, string> {
  mkdirSync(inputsDir, { recursive: true })
  const planFile = path.join(inputsDir, PLAN_FILE)
  writePlan(config.plan, history, planFile)
  const env: Record<string, string> = {
    ...loginEnv(config),
    AFPBENCH_PLAN: `${CONTAINER_INPUTS}/${PLAN_FILE}`,
    AFPBENCH_RESULTS_DIR: config.resultsDir,
    AFPBENCH_BASELINES_DIR: inputsDir,
    // the servers as the plan has them, A/B's base too (its port, profile ab)
    ...composeServerEnv(actionDir, planFile),
    BASE_AFPBENCH_INSTR_DIR: ''
  }
  // The client runs as root; the results must stay the runner user's.
  if (typeof process.getuid === 'function' && typeof process.getgid === 'function')
    env.AFPBENCH_RESULTS_OWNER = `${process.getuid()}:${process.getgid()}`
  if (config.base !== null) Object.assign(env, composeBaseEnv(config))
  return env
}

// A/B: where the client finds the base (logged into as the head) and, with
// instructions, the base's instrumented server's counts.
function composeBaseEnv(config: Config): Record<string, string> {
  const instr = config.instructions === 'compose'
  return {
    ...baseEnv(config, BASE_ADDRESS.host, BASE_ADDRESS.port),
    // both sides counted: the base's instrumented server leaves its own counts
    BASE_AFPBENCH_INSTR_DIR: instr ? BASE_INSTR_DIR : ''
  }
}
