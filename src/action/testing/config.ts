// A valid Config for tests, as parseInputs gives it for a plain gate run:
// its plan made by this checkout's scripts/plan from the config's own fields.
import path from 'node:path'
import { planSettings } from '../gate-env.js'
import type { Config } from '../inputs.js'
import { BASE_ADDRESS } from '../names.js'
import { makePlan, readSettingsTable } from '../settings.js'

const REPO = path.resolve(import.meta.dirname, '..', '..', '..')

export function testConfig(over: Partial<Config> = {}): Config {
  const config: Config = {
    mode: 'gate',
    plan: null,
    gate: {
      AFPBENCH_TESTS: '1-12',
      AFPBENCH_SPEEDTEST: '',
      AFPBENCH_LOAD: '',
      AFPBENCH_SPOTLIGHT: '',
      AFPBENCH_BIGDIR: '',
      AFPBENCH_ITERATIONS: '5',
      AFPBENCH_AB_BUDGET: '300',
      AFPBENCH_AFP_VERSION: '7',
      AFPBENCH_TIME_THRESHOLD: '',
      AFPBENCH_IO_THRESHOLD: '',
      AFPBENCH_INSTR_THRESHOLD: '',
      AFPBENCH_SYS_THRESHOLD: '',
      AFPBENCH_BASELINE_TIMINGS: 'show'
    },
    server: { kind: 'compose' },
    netatalkVersion: '',
    netatalkSource: '',
    afpConf: '',
    afpConfSettings: null,
    afpUser: 'afpbench',
    afpPassword: 'hunter22',
    volume: 'File Sharing',
    procIo: '',
    base: null,
    imageCache: '',
    baseline: '',
    baselineMissing: '',
    baselineName: '',
    baselineOut: '',
    thresholds: '',
    instructions: '',
    comment: 'always',
    commentKey: '',
    slices: [],
    bisect: null,
    backfill: null,
    checkRun: false,
    failOn: 'regression',
    githubToken: 'ghs_test',
    resultsDir: '/tmp/afpbench-results',
    artifactName: 'afpbench-results',
    assetsBranch: 'afpbench-assets',
    historyBranch: 'afpbench-data',
    trendRuns: 30,
    pagesBranch: '',
    pagesUrl: '',
    sessions: 1,
    warnings: [],
    ...over
  }
  if (over.plan !== undefined || config.mode === 'publish') return config
  const base = config.base
  config.plan = makePlan(
    REPO,
    planSettings({
      asWritten: config.gate,
      baseline: config.baseline,
      baselineMissing: config.baselineMissing,
      baselineName: config.baselineName,
      thresholds: config.thresholds,
      instructions: config.instructions === 'compose' ? '/instr' : config.instructions,
      baseInstructions: config.instructions === 'compose' && base !== null ? '/instr-base' : '',
      netatalkVersion: config.netatalkVersion,
      netatalkSource: config.netatalkSource,
      afpConf: config.afpConf,
      base,
      basePort: base === null ? '' : base.server ? String(base.server.port) : BASE_ADDRESS.port,
      commit: ''
    }),
    readSettingsTable(REPO)
  )
  return config
}
