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

// What of the job's environment never reaches a child: the action's inputs
// (INPUT_AFP-PASSWORD would otherwise reach every child), and every setting
// of the gate (scripts/settings.json), the server image or compose.yaml
// (AFPBENCH_*, AFP_*, BASE_AFP*, NETATALK_*, SERVER_*, BASE_NETATALK_*,
// BASE_SERVER_*, [BASE_]PROC_IO, [BASE_]SHARE_NAME): the inputs set those, and one left in the job's
// environment must not change the run behind them. BASE_IMAGE, DOCKER_*, PATH,
// HOME, RUNNER_* and the rest pass.
const NOT_FROM_THE_JOB =
  /^(INPUT_|AFPBENCH_|AFP_|BASE_AFP|NETATALK_|SERVER_|BASE_NETATALK_|BASE_SERVER_|(BASE_)?(PROC_IO|SHARE_NAME)$)/

// Whether NAME is kept from children (settings.test.ts holds every setting
// of the table to it).
export function keptFromChildren(name: string): boolean {
  return NOT_FROM_THE_JOB.test(name)
}

// The environment for child processes: the job's without its inputs and
// settings (above), plus EXTRA.
export function childEnv(
  base: NodeJS.ProcessEnv,
  extra: Record<string, string>
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(base)) {
    if (v !== undefined && !NOT_FROM_THE_JOB.test(k)) env[k] = v
  }
  return { ...env, ...extra }
}
