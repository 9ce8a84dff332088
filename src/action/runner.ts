// How the action starts programs: always an argv array, never a shell string,
// so no input can be interpreted by a shell.

import { exec } from '@actions/exec'

export interface RunOptions {
  env?: Record<string, string>
  cwd?: string
}

// Runs COMMAND ARGS, streaming its output into the log; resolves to the exit
// status (non-zero is not an exception: the caller decides what it means).
export type Runner = (command: string, args: string[], options?: RunOptions) => Promise<number>

export const execRunner: Runner = async (command, args, options = {}) =>
  exec(command, args, { env: options.env, cwd: options.cwd, ignoreReturnCode: true })

// The environment for child processes: ours without the action's inputs
// (INPUT_AFP-PASSWORD would otherwise reach every child), plus EXTRA.
export function childEnv(
  base: NodeJS.ProcessEnv,
  extra: Record<string, string>
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(base)) {
    if (v !== undefined && !k.startsWith('INPUT_')) env[k] = v
  }
  return { ...env, ...extra }
}
