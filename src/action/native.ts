// server: host:port — the same gate pipeline, run natively on the runner
// against a server that is already up: build afpbench, make sure jq and gnuplot
// are there, run scripts/gate.

import { accessSync, constants } from 'node:fs'
import path from 'node:path'
import type { Runner } from './runner.js'

// Programs that building afpbench and running scripts/gate need, and the
// Debian package of each.
export const GATE_TOOLS: Record<string, string> = {
  make: 'make',
  cc: 'gcc',
  jq: 'jq',
  gnuplot: 'gnuplot-nox'
}

export function findOnPath(program: string, pathVar: string | undefined): string | null {
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (dir === '') continue
    const candidate = path.join(dir, program)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not here; next directory
    }
  }
  return null
}

export function missingTools(pathVar: string | undefined): string[] {
  return Object.keys(GATE_TOOLS).filter((tool) => findOnPath(tool, pathVar) === null)
}

// apt-get as root, or through passwordless sudo (GitHub's runners have it).
export function installCommands(packages: string[], isRoot: boolean): [string, string[]][] {
  const sudo = (argv: string[]): [string, string[]] =>
    isRoot ? [argv[0], argv.slice(1)] : ['sudo', ['-n', ...argv]]
  return [
    sudo(['apt-get', 'update', '-qq']),
    sudo(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages])
  ]
}

export async function ensureTools(
  run: Runner,
  env: Record<string, string>,
  isRoot: boolean
): Promise<void> {
  const missing = missingTools(env.PATH)
  if (missing.length === 0) return
  const packages = missing.map((t) => GATE_TOOLS[t])
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const [cmd, args] of installCommands(packages, isRoot)) {
    const status = await run(cmd, args, { env: aptEnv })
    if (status !== 0)
      throw new Error(
        `installing ${packages.join(', ')} failed (${cmd} exited ${status}); install them before this step`
      )
  }
  const still = missingTools(env.PATH)
  if (still.length > 0)
    throw new Error(`${still.join(', ')} still not found on PATH after installing`)
}

export function afpbenchBinary(actionDir: string): string {
  return path.join(actionDir, 'src', 'afpbench', 'afpbench')
}

export async function buildAfpbench(
  run: Runner,
  actionDir: string,
  env: Record<string, string>
): Promise<string> {
  const status = await run('make', ['-C', path.join(actionDir, 'src', 'afpbench'), '-s'], { env })
  if (status !== 0)
    throw new Error(`building afpbench failed (make exited ${status}); see the log above`)
  return afpbenchBinary(actionDir)
}
