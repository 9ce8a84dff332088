// A valid Config for tests, as parseInputs gives it for a plain gate run.
import type { Config } from '../inputs.js'

export function testConfig(over: Partial<Config> = {}): Config {
  return {
    mode: 'gate',
    tests: '1-12',
    speedtest: '',
    load: '',
    iterations: 5,
    afpVersion: 7,
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
    baseline: '',
    baselineMissing: '',
    baselineName: '',
    baselineOut: '',
    thresholds: '',
    timeThreshold: null,
    ioThreshold: null,
    instructions: '',
    instrThreshold: null,
    sysThreshold: null,
    baselineTimings: 'show',
    comment: 'always',
    commentKey: '',
    slices: [],
    failOn: 'regression',
    githubToken: 'ghs_test',
    resultsDir: '/tmp/afpbench-results',
    artifactName: 'afpbench-results',
    assetsBranch: 'afpbench-assets',
    warnings: [],
    ...over
  }
}
