// The environment scripts/gate is configured by, from the inputs. The same
// variables in the client container (compose) and natively (host:port). Every
// setting of the gate's table (scripts/settings.json) that an input sets is
// set here, empty meaning "none" or "the gate's default"; the job's own
// settings never reach the gate or compose (runner.ts, childEnv), so nothing
// left in the job's environment changes the run.

import type { Config } from './inputs.js'

// What the action read of the default branch's history for this run
// (history.ts, docs/history.md): files, '' = none.
export interface HistoryFiles {
  trend: string // trend.json: the report's Trend section
  reference: string // reference.json: main's run as the counts' reference (a pull request)
}

export const NO_HISTORY: HistoryFiles = { trend: '', reference: '' }

export interface GateFiles extends HistoryFiles {
  resultsDir: string // where the gate writes, as the gate sees it
  baseline: string // '' = none
  thresholds: string // '' = none
}

export function gateEnv(config: Config, files: GateFiles): Record<string, string> {
  return {
    AFP_USER: config.afpUser,
    AFP_PASS: config.afpPassword,
    SHARE_NAME: config.volume,
    // what to run and how to judge it, as the gate checked them (settings.ts)
    ...config.gate,
    AFPBENCH_RESULTS: files.resultsDir,
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
    // A/B is off unless the base side is named: the caller sets these then.
    BASE_AFP_HOST: '',
    BASE_AFP_PORT: '',
    // compose: the instrumented client has its own (the shared volume, /instr)
    AFPBENCH_INSTR_DIR: config.instructions === 'compose' ? '/instr' : config.instructions,
    // A/B with instructions sets the base's (compose: the base's count volume)
    BASE_AFPBENCH_INSTR_DIR: ''
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
