// Running the gate pipeline: in the compose stack or natively against
// host:port, then (mode: baseline) scripts/baseline. Returns the gate's exit
// status; throws when the pipeline could not be started at all.

import * as core from '@actions/core'
import { getExecOutput } from '@actions/exec'
import { mkdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  composeCommands,
  composeEnv,
  composeImage,
  composeProject,
  sourceServices,
  type ComposeTarget
} from './compose.js'
import { restoreImages, saveImages, sourceImages } from './image-cache.js'
import { baseEnv, loginEnv, NO_HISTORY, type HistoryFiles } from './gate-env.js'
import type { Config } from './inputs.js'
import { buildAfpbench, ensureTools, findOnPath } from './native.js'
import { State } from './names.js'
import { childEnv, type Runner } from './runner.js'
import { writePlan } from './settings.js'

export interface MeasureContext {
  config: Config
  actionDir: string
  env: NodeJS.ProcessEnv
  run: Runner
  history?: HistoryFiles // what the action read of the history (history.ts); none when unset
}

// session: a baseline's 1st, 2nd, … session; after the first, compose starts
// the servers afresh and builds nothing.
export async function runGate(m: MeasureContext, session = 1): Promise<number> {
  mkdirSync(m.config.resultsDir, { recursive: true })
  return m.config.server.kind === 'compose' ? runInCompose(m, session) : runNatively(m)
}

async function runNatively(m: MeasureContext): Promise<number> {
  const { config } = m
  if (config.server.kind !== 'host') throw new Error('internal: runNatively needs host:port')
  const base = childEnv(m.env, {})
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  const bin = await core.group('Build afpbench', async () => {
    await ensureTools(m.run, base, isRoot)
    return buildAfpbench(m.run, m.actionDir, base)
  })
  const baseServer = config.base?.server ?? null
  // the run's plan (made once, with what the action read of the history),
  // and the place: the servers, the login, the procfs, the binary and where
  // the results go
  const plan = path.join(m.env.RUNNER_TEMP || os.tmpdir(), `afpbench-plan-${process.pid}.json`)
  writePlan(config.plan, m.history ?? NO_HISTORY, plan)
  const env = childEnv(m.env, {
    ...loginEnv(config),
    AFP_HOST: config.server.host,
    AFP_PORT: String(config.server.port),
    AFPBENCH_RESULTS: config.resultsDir,
    AFPBENCH_BIN: bin,
    AFPBENCH_INSTR_DIR: config.instructions,
    BASE_AFPBENCH_INSTR_DIR: '',
    // A/B is off unless the base side is named
    BASE_AFP_HOST: '',
    BASE_AFP_PORT: '',
    ...(config.procIo !== '' ? { PROC_IO: config.procIo } : {}),
    ...(baseServer ? baseEnv(config, baseServer.host, String(baseServer.port)) : {}),
    ...(config.base && config.base.procIo !== '' ? { BASE_PROC_IO: config.base.procIo } : {})
  })
  const gate = path.join(m.actionDir, 'scripts', 'gate')
  const against = baseServer
    ? `head ${config.server.host}:${config.server.port} and base ${baseServer.host}:${baseServer.port}, measured together (A/B)`
    : `${config.server.host}:${config.server.port}`
  core.info(`Running ${gate} against ${against}; results in ${config.resultsDir}`)
  return m.run(gate, ['--plan', plan], { env })
}

async function runInCompose(m: MeasureContext, session: number): Promise<number> {
  const docker = findOnPath('docker', m.env.PATH)
  if (docker === null)
    throw new Error(
      "server: compose needs Docker with the compose plugin (GitHub's ubuntu runners have both); " +
        'without Docker, start a server yourself and set server: HOST:PORT'
    )
  await checkEngine(m.actionDir, childEnv(m.env, {}))
  const ab = m.config.base !== null
  const target: ComposeTarget = {
    project: composeProject(m.env),
    file: path.join(m.actionDir, 'compose.yaml'),
    ab,
    instr: m.config.instructions === 'compose'
  }
  const inputsDir = path.join(m.env.RUNNER_TEMP || os.tmpdir(), `${target.project}-inputs`)
  const env = childEnv(m.env, composeEnv(m.config, inputsDir, m.actionDir, m.history))
  // Saved before anything starts, so the post step tears down whatever did.
  core.saveState(State.ComposeProject, target.project)
  core.saveState(State.ComposeFile, target.file)
  core.saveState(State.ComposeInstr, target.instr === true ? 'true' : '')
  const dockerRun = (args: string[]): Promise<number> => m.run('docker', args, { env })
  const step = async (title: string, args: string[]): Promise<void> => {
    const start = Date.now()
    const status = await core.group(title, () => dockerRun(args))
    if (status !== 0) throw new Error(`${title} failed: docker ${args.join(' ')} exited ${status}`)
    // a source build takes minutes cold and seconds warm: say which this was
    core.info(`${title}: done in ${Math.round((Date.now() - start) / 1000)} s`)
  }
  // image-cache: the servers built from source in an earlier run, loaded
  // instead of built, and this run's builds kept for the next. A later
  // session of a baseline builds nothing: its images are there.
  if (session === 1) {
    const named = (service: string): string => composeImage(target, service)
    const cached =
      m.config.imageCache === ''
        ? []
        : sourceImages(
            sourceServices(target, m.config),
            m.actionDir,
            env.BASE_IMAGE ?? '',
            m.config.imageCache
          )
    const restored =
      cached.length === 0
        ? []
        : await core.group('Load the server images from the image cache', () =>
            restoreImages(cached, named, dockerRun)
          )
    await step(
      ab
        ? 'Build the head and base server images and the client'
        : 'Build the server and client images',
      composeCommands.build(target, restored)
    )
    if (cached.length > 0)
      await core.group('Save the server images to the image cache', () =>
        saveImages(cached, m.config.imageCache, named, dockerRun)
      )
  }
  try {
    await step(
      `${ab ? 'Start the netatalk servers (head and base)' : 'Start the netatalk server'}${session > 1 ? `, afresh for session ${session}` : ''}`,
      composeCommands.up(target, session > 1)
    )
  } catch (e) {
    await core.group('Server log', () => m.run('docker', composeCommands.logs(target), { env }))
    throw e
  }
  const status = await core.group('Run the benchmark gate (client container)', () =>
    m.run('docker', composeCommands.run(target), { env })
  )
  if (status === 3 || status > 3)
    await core.group('Server log', () => m.run('docker', composeCommands.logs(target), { env }))
  return status
}

// checkEngine: a Docker engine answers, and it and Compose are recent enough
// for compose.yaml (scripts/check-engine, run-gate's check too); otherwise an
// error that says what is needed.
async function checkEngine(actionDir: string, env: Record<string, string>): Promise<void> {
  const r = await getExecOutput(path.join(actionDir, 'scripts', 'check-engine'), [], {
    env,
    silent: true,
    ignoreReturnCode: true
  })
  const said = (r.stdout.trim() || r.stderr.trim()).split('\n')[0]
  if (r.exitCode !== 0)
    throw new Error(`server: compose: ${said || `scripts/check-engine exited ${r.exitCode}`}`)
  core.info(said)
}

// mode: baseline — pool the sessions' results (their directories) into a
// baseline file.
export async function makeBaseline(m: MeasureContext, sessionDirs: string[]): Promise<void> {
  const script = path.join(m.actionDir, 'scripts', 'baseline')
  const out = m.config.baselineOut
  // a fresh repository has no .github/afpbench/ yet (inputs.ts allows it
  // inside the workspace)
  mkdirSync(path.dirname(out), { recursive: true })
  const status = await core.group('Write the baseline', () =>
    m.run(script, [out, ...sessionDirs], { env: childEnv(m.env, {}) })
  )
  if (status !== 0)
    throw new Error(`scripts/baseline exited ${status}: no baseline was written to ${out}`)
}
