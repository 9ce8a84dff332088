// The environment scripts/gate is configured by, from the inputs. The same
// variables in the client container (compose) and natively (host:port).

import type { Config } from './inputs.js'

export interface GateFiles {
  resultsDir: string // where the gate writes, as the gate sees it
  baseline: string // '' = none
  thresholds: string // '' = none
  trend: string // trend.json (docs/history.md), '' = none
}

export function gateEnv(config: Config, files: GateFiles): Record<string, string> {
  const env: Record<string, string> = {
    AFP_USER: config.afpUser,
    AFP_PASS: config.afpPassword,
    SHARE_NAME: config.volume,
    AFPBENCH_TESTS: config.tests,
    AFPBENCH_SPEEDTEST: config.speedtest,
    AFPBENCH_LOAD: config.load,
    // empty: the gate's default, 5 iterations, or 10 pairs in A/B
    AFPBENCH_ITERATIONS: config.iterations === null ? '' : String(config.iterations),
    AFPBENCH_AFP_VERSION: String(config.afpVersion),
    AFPBENCH_RESULTS: files.resultsDir
  }
  // Always set, empty meaning "none" or "the gate's default", so that a
  // variable left in the job's environment cannot change the run.
  env.AFPBENCH_BASELINE = files.baseline
  // A first run: the baseline input names a file not made yet; the report
  // says how to make it (scripts/run-gate --make-baseline).
  env.AFPBENCH_BASELINE_MISSING = config.baselineMissing
  // the report names the baseline as the workflow does, not by the path the
  // gate reads it from (a temporary copy in compose)
  env.AFPBENCH_BASELINE_NAME = config.baselineName
  // The server under test, for the report's reproduction commands (the same
  // variables pick it in compose.yaml and scripts/run-gate; unset when empty,
  // which compose's build reads as "the default package").
  if (config.netatalkVersion !== '') env.NETATALK_VERSION = config.netatalkVersion
  if (config.netatalkSource !== '') env.NETATALK_SOURCE = config.netatalkSource
  env.AFPBENCH_THRESHOLDS = files.thresholds
  env.AFPBENCH_TIME_THRESHOLD = config.timeThreshold === null ? '' : String(config.timeThreshold)
  env.AFPBENCH_IO_THRESHOLD = config.ioThreshold === null ? '' : String(config.ioThreshold)
  // A/B is off unless the base side is named: the caller sets these then.
  env.BASE_AFP_HOST = ''
  env.BASE_AFP_PORT = ''
  // compose: the instrumented client has its own (the shared volume, /instr)
  env.AFPBENCH_INSTR_DIR = config.instructions === 'compose' ? '/instr' : config.instructions
  // A/B with instructions sets the base's (compose: the base's count volume)
  env.BASE_AFPBENCH_INSTR_DIR = ''
  env.AFPBENCH_INSTR_THRESHOLD = config.instrThreshold === null ? '' : String(config.instrThreshold)
  env.AFPBENCH_SYS_THRESHOLD = config.sysThreshold === null ? '' : String(config.sysThreshold)
  env.AFPBENCH_BASELINE_TIMINGS = config.baselineTimings
  env.AFPBENCH_TREND = files.trend
  return env
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
