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
  if (files.baseline !== '') env.AFPBENCH_BASELINE = files.baseline
  if (files.thresholds !== '') env.AFPBENCH_THRESHOLDS = files.thresholds
  if (config.timeThreshold !== null) env.AFPBENCH_TIME_THRESHOLD = String(config.timeThreshold)
  if (config.ioThreshold !== null) env.AFPBENCH_IO_THRESHOLD = String(config.ioThreshold)
  return env
}
