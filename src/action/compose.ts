// server: compose — build and start the stack from the action's own
// compose.yaml, run the client (the gate pipeline) once, tear down in the post
// step. Cannot run on the project's machines (no Docker engine): the command
// lines and environment are built by pure functions that the unit tests check.

import { copyFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import type { Config } from './inputs.js'
import { gateEnv } from './gate-env.js'

// Where compose.yaml mounts things inside the client container.
const CONTAINER_RESULTS = '/results'
const CONTAINER_INPUTS = '/baselines'

export interface ComposeTarget {
  project: string
  file: string // <action dir>/compose.yaml
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
  return t.instr === true ? [...args, '--profile', 'instr'] : args
}

const serverService = (t: ComposeTarget): string => (t.instr === true ? 'server-instr' : 'server')
const clientService = (t: ComposeTarget): string => (t.instr === true ? 'client-instr' : 'client')

export const composeCommands = {
  build: (t: ComposeTarget): string[] =>
    t.instr === true
      ? [...base(t), 'build', serverService(t), clientService(t)]
      : [...base(t), 'build'],
  // Returns once the server's health check (afpbench status) passes.
  up: (t: ComposeTarget): string[] => [
    ...base(t),
    'up',
    '--detach',
    '--wait',
    '--no-build',
    serverService(t)
  ],
  // The client's entrypoint runs the gate; its exit status is the gate's.
  run: (t: ComposeTarget): string[] => [...base(t), 'run', '--rm', '-T', clientService(t)],
  logs: (t: ComposeTarget): string[] => [
    ...base(t),
    'logs',
    '--no-color',
    '--timestamps',
    serverService(t)
  ],
  down: (t: ComposeTarget): string[] => [
    ...base(t),
    'down',
    '--volumes',
    '--remove-orphans',
    '--timeout',
    '10'
  ]
}

// The files the gate reads, copied into one directory that compose mounts at
// /baselines (the container cannot see the runner's paths).
export function stageInputs(config: Config, dir: string): { baseline: string; thresholds: string } {
  mkdirSync(dir, { recursive: true })
  const staged = { baseline: '', thresholds: '' }
  if (config.baseline !== '') {
    copyFileSync(config.baseline, path.join(dir, 'baseline.json'))
    staged.baseline = `${CONTAINER_INPUTS}/baseline.json`
  }
  if (config.thresholds !== '') {
    const name = `thresholds${path.extname(config.thresholds)}`
    copyFileSync(config.thresholds, path.join(dir, name))
    staged.thresholds = `${CONTAINER_INPUTS}/${name}`
  }
  return staged
}

// The environment of the docker compose commands: compose.yaml passes these
// on to the services (see compose.yaml and docs/images.md). The client cannot
// see the runner's GITHUB_SHA, so the commit for the baseline's provenance is
// passed as AFPBENCH_COMMIT.
export function composeEnv(
  config: Config,
  inputsDir: string,
  actionDir: string,
  commit: string
): Record<string, string> {
  const staged = stageInputs(config, inputsDir)
  const env = gateEnv(config, { resultsDir: CONTAINER_RESULTS, ...staged })
  env.AFPBENCH_RESULTS_DIR = config.resultsDir
  if (staged.baseline !== '' || staged.thresholds !== '') env.AFPBENCH_BASELINES_DIR = inputsDir
  if (commit !== '') env.AFPBENCH_COMMIT = commit
  if (config.netatalkVersion !== '') env.NETATALK_VERSION = config.netatalkVersion
  if (config.netatalkSource !== '') {
    // The checkout is the build context; the Dockerfile stays the action's.
    env.NETATALK_SOURCE = config.netatalkSource
    env.SERVER_TARGET = 'server-source'
    env.SERVER_DOCKERFILE = path.join(actionDir, 'Dockerfile.server')
  }
  return env
}
