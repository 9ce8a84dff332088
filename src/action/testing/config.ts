// A valid Config for tests, as parseInputs gives it for a plain gate run.
import type { Config } from '../inputs.js'

export function testConfig(over: Partial<Config> = {}): Config {
  return {
    mode: 'gate',
    gate: {
      AFPBENCH_TESTS: '1-12',
      AFPBENCH_SPEEDTEST: '',
      AFPBENCH_LOAD: '',
      AFPBENCH_SPOTLIGHT: '',
      AFPBENCH_BIGDIR: '',
      AFPBENCH_ITERATIONS: '5',
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
    checkRun: false,
    failOn: 'regression',
    githubToken: 'ghs_test',
    resultsDir: '/tmp/afpbench-results',
    artifactName: 'afpbench-results',
    assetsBranch: 'afpbench-assets',
    historyBranch: 'afpbench-data',
    trendRuns: 30,
    sessions: 1,
    warnings: [],
    ...over
  }
}
