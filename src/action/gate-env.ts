// The environment scripts/gate is configured by, from the inputs. The same
// variables in the client container (compose) and natively (host:port).

import type { Config } from './inputs.js'

export interface GateFiles {
  resultsDir: string // where the gate writes, as the gate sees it
  baseline: string // '' = none
  thresholds: string // '' = none
}

export function gateEnv(config: Config, files: GateFiles): Record<string, string> {
  const env: Record<string, string> = {
    AFP_USER: config.afpUser,
    AFP_PASS: config.afpPassword,
    SHARE_NAME: config.volume,
    AFPBENCH_TESTS: config.tests,
    AFPBENCH_SPEEDTEST: config.speedtest,
    AFPBENCH_ITERATIONS: String(config.iterations),
    AFPBENCH_AFP_VERSION: String(config.afpVersion),
    AFPBENCH_RESULTS: files.resultsDir
  }
  // Always set, empty meaning "none" or "the gate's default", so that a
  // variable left in the job's environment cannot change the run.
  env.AFPBENCH_BASELINE = files.baseline
  env.AFPBENCH_THRESHOLDS = files.thresholds
  env.AFPBENCH_TIME_THRESHOLD = config.timeThreshold === null ? '' : String(config.timeThreshold)
  env.AFPBENCH_IO_THRESHOLD = config.ioThreshold === null ? '' : String(config.ioThreshold)
  // compose: the instrumented client has its own (the shared volume, /instr)
  env.AFPBENCH_INSTR_DIR = config.instructions === 'compose' ? '/instr' : config.instructions
  env.AFPBENCH_INSTR_THRESHOLD = config.instrThreshold === null ? '' : String(config.instrThreshold)
  return env
}
