// What scripts/gate is given, from the inputs: the run's plan (made by the
// gate itself from the plan's settings: writePlan in settings.ts) and the
// place it runs in (the login here; the server, procfs and directories where
// it runs: measure.ts natively, compose.yaml in the client). Every setting of
// the gate's table (scripts/settings.json) that an input sets is set here,
// empty meaning "none" or "the gate's default"; the job's own settings never
// reach the gate or compose (runner.ts, childEnv), so nothing left in the
// job's environment changes the run.

import type { Config } from './inputs.js'

// What the action read of the default branch's history for this run
// (history.ts, docs/history.md): files, '' = none.
export interface HistoryFiles {
  trend: string // trend.json: the report's Trend section
  reference: string // reference.json: main's run as the counts' reference (a pull request)
}

export const NO_HISTORY: HistoryFiles = { trend: '', reference: '' }

// The files the plan names, as the gate will see them.
export interface PlanFiles extends HistoryFiles {
  baseline: string // '' = none
  thresholds: string // '' = none
}

// The plan's settings: what to run and how to judge it. base: A/B, the base
// server's port (the gate's defaults differ: 10 pairs, not 5 iterations).
export function planEnv(
  config: Config,
  files: PlanFiles,
  commit: string,
  basePort: string
): Record<string, string> {
  return {
    // what to run and how to judge it, as the gate checked them (settings.ts)
    ...config.gate,
    AFPBENCH_BASELINE: files.baseline,
    // A first run: the baseline input names a file not made yet; the report
    // says how to make it (scripts/run-gate --make-baseline).
    AFPBENCH_BASELINE_MISSING: config.baselineMissing,
    // the report names the baseline as the workflow does, not by the path the
    // gate reads it from (a temporary copy in compose)
    AFPBENCH_BASELINE_NAME: config.baselineName,
    AFPBENCH_THRESHOLDS: files.thresholds,
    AFPBENCH_TREND: files.trend,
    AFPBENCH_REFERENCE: files.reference,
    // The server under test, for the report's reproduction commands (the same
    // variables pick it in compose.yaml and scripts/run-gate).
    NETATALK_VERSION: config.netatalkVersion,
    NETATALK_SOURCE: config.netatalkSource,
    // the commit measured (the client container cannot see GITHUB_SHA)
    AFPBENCH_COMMIT: commit,
    // not a plan's setting: it makes the plan an A/B run's
    BASE_AFP_PORT: basePort
  }
}

// The login, the same on both sides of an A/B run.
export function loginEnv(config: Config): Record<string, string> {
  return {
    AFP_USER: config.afpUser,
    AFP_PASS: config.afpPassword,
    SHARE_NAME: config.volume
  }
}

// The base server of an A/B run, logged into with the head's login: the
// variables scripts/gate reads for it.
export function baseEnv(config: Config, host: string, port: string): Record<string, string> {
  return {
    BASE_AFP_HOST: host,
    BASE_AFP_PORT: port,
    BASE_AFP_USER: config.afpUser,
    BASE_AFP_PASS: config.afpPassword,
    BASE_SHARE_NAME: config.volume
  }
}
