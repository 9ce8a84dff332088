import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULTS } from './action-inputs.js'
import { MAX_PASSWORD_BYTES, parseInputs, type Config } from './inputs.js'

// A workspace with a file and directories the path inputs can name; built at
// load time because the tables below use its path.
const workspace = mkdtempSync(path.join(os.tmpdir(), 'afpbench-inputs-'))
// The action's directory: the real scripts (the gate checks what to run), no
// bundled baseline.
const REPO = path.resolve(import.meta.dirname, '..', '..')
const actionDir = mkdtempSync(path.join(os.tmpdir(), 'afpbench-actiondir-'))
symlinkSync(path.join(REPO, 'scripts'), path.join(actionDir, 'scripts'))
// a real baseline: the plan carries it whole and checks it as the verdict reads it
const BASELINE = readFileSync(
  path.join(REPO, 'scripts', 'tests', 'fixtures', 'lantest-a.json'),
  'utf8'
)
writeFileSync(path.join(workspace, 'base.json'), BASELINE)
writeFileSync(path.join(workspace, 'limits.json'), '{}')
mkdirSync(path.join(workspace, 'netatalk'))
mkdirSync(path.join(workspace, 'proc_io'))
mkdirSync(path.join(workspace, 'netatalk-base'))
writeFileSync(
  path.join(workspace, 'base.conf'),
  '; the settings an admin wants to compare\n[Global]\nserver quantum = 262144\n[Homes]\nbasedir regex = /home\n[File Sharing]\nea = ad\n'
)
writeFileSync(path.join(workspace, 'listen.conf'), '[Global]\nafp listen = 0.0.0.0\n')
writeFileSync(path.join(workspace, 'big.conf'), `[Global]\n${'; padding\n'.repeat(8000)}`)

// An input missing from the record is not set at all (undefined), as when
// dist/ runs by hand; GitHub sets every input, '' included.
function parse(inputs: Record<string, string>): Config {
  return parseInputs((name) => inputs[name], { workspace, actionDir })
}

describe('defaults', () => {
  it('gives a complete config when every input is empty', () => {
    const c = parse({})
    expect(c).toMatchObject({
      mode: 'gate',
      // as the gate checked them: its defaults (5 iterations) filled in
      gate: {
        AFPBENCH_TESTS: '1-12',
        AFPBENCH_SPEEDTEST: '',
        AFPBENCH_LOAD: '',
        AFPBENCH_ITERATIONS: '5',
        AFPBENCH_AFP_VERSION: '7',
        AFPBENCH_TIME_THRESHOLD: '',
        AFPBENCH_IO_THRESHOLD: '',
        AFPBENCH_INSTR_THRESHOLD: '',
        AFPBENCH_SYS_THRESHOLD: '',
        AFPBENCH_BASELINE_TIMINGS: 'show'
      },
      server: { kind: 'compose' },
      afpUser: 'afpbench',
      afpPassword: 'afpbench',
      volume: 'File Sharing',
      baseline: '', // no bundled baselines/default.json in this action dir
      comment: 'always',
      failOn: 'regression',
      githubToken: '',
      resultsDir: path.join(workspace, 'afpbench-results'),
      artifactName: 'afpbench-results',
      assetsBranch: 'afpbench-assets',
      warnings: []
    })
  })

  it('uses the bundled baseline when the action has one', () => {
    const withBaseline = mkdtempSync(path.join(os.tmpdir(), 'afpbench-actiondir-'))
    symlinkSync(path.join(REPO, 'scripts'), path.join(withBaseline, 'scripts'))
    mkdirSync(path.join(withBaseline, 'baselines'))
    writeFileSync(path.join(withBaseline, 'baselines', 'default.json'), BASELINE)
    const c = parseInputs(() => '', { workspace, actionDir: withBaseline })
    expect(c.baseline).toBe(path.join(withBaseline, 'baselines', 'default.json'))
    // the report names it as the action's, not by its path on the runner
    expect(c.baselineName).toBe("afpbench-action's baselines/default.json")
  })

  it('uses the bundled baseline of the netatalk-version asked for, else the default', () => {
    const actionDir = mkdtempSync(path.join(os.tmpdir(), 'afpbench-actiondir-'))
    symlinkSync(path.join(REPO, 'scripts'), path.join(actionDir, 'scripts'))
    mkdirSync(path.join(actionDir, 'baselines'))
    writeFileSync(path.join(actionDir, 'baselines', 'default.json'), BASELINE)
    writeFileSync(path.join(actionDir, 'baselines', 'netatalk-4.5.1.json'), BASELINE)
    const inputs = (v: Record<string, string>) => (name: string) => v[name] ?? ''
    for (const version of ['4.5.1', '4.5.1~ds-1', '1:4.5.1-2']) {
      const c = parseInputs(inputs({ 'netatalk-version': version }), { workspace, actionDir })
      expect(c.baseline).toBe(path.join(actionDir, 'baselines', 'netatalk-4.5.1.json'))
      expect(c.baselineName).toBe("afpbench-action's baselines/netatalk-4.5.1.json")
    }
    // no bundled baseline of 4.2.3 here: the default; never 4.5.10's for 4.5.1
    for (const version of ['4.2.3', '4.5.10']) {
      const c = parseInputs(inputs({ 'netatalk-version': version }), { workspace, actionDir })
      expect(c.baseline).toBe(path.join(actionDir, 'baselines', 'default.json'))
    }
    // a baseline given wins
    mkdirSync(path.join(workspace, '.github', 'afpbench'), { recursive: true })
    writeFileSync(path.join(workspace, '.github', 'afpbench', 'mine.json'), BASELINE)
    const mine = parseInputs(
      inputs({ 'netatalk-version': '4.5.1', baseline: '.github/afpbench/mine.json' }),
      { workspace, actionDir }
    )
    expect(mine.baseline).toBe(path.join(workspace, '.github', 'afpbench', 'mine.json'))
  })

  it('names a baseline of the repository as the workflow writes it', () => {
    mkdirSync(path.join(workspace, '.github', 'afpbench'), { recursive: true })
    writeFileSync(path.join(workspace, '.github', 'afpbench', 'named.json'), BASELINE)
    const c = parse({ baseline: '.github/afpbench/named.json' })
    expect(c.baseline).toBe(path.join(workspace, '.github', 'afpbench', 'named.json'))
    expect(c.baselineName).toBe('.github/afpbench/named.json')
  })

  it('trims whitespace around values', () => {
    expect(parse({ iterations: '  3 \n' }).gate.AFPBENCH_ITERATIONS).toBe('3')
  })
})

// Every input: values it accepts, and what they become.
const good: Array<[string, string, Partial<Config>]> = [
  [
    'mode',
    'baseline',
    {
      mode: 'baseline',
      baseline: '',
      baselineOut: path.join(workspace, 'afpbench-results', 'baseline.json')
    }
  ],
  ['mode', 'publish', { mode: 'publish' }],
  ['tests', '1,3,10', { gate: { AFPBENCH_TESTS: '1,3,10' } }],
  ['tests', '2-5, 9', { gate: { AFPBENCH_TESTS: '2-5,9' } }],
  ['tests', '12', { gate: { AFPBENCH_TESTS: '12' } }],
  ['tests', '3,1,2,2', { gate: { AFPBENCH_TESTS: '1-3' } }],
  ['tests', 'cache', { gate: { AFPBENCH_TESTS: '9-12' } }],
  ['tests', 'ALL', { gate: { AFPBENCH_TESTS: '1-12' } }],
  ['speedtest', 'read,Write', { gate: { AFPBENCH_SPEEDTEST: 'Read,Write' } }],
  [
    'speedtest',
    'Read,Write,Copy,ServerCopy:1,64',
    { gate: { AFPBENCH_SPEEDTEST: 'Read,Write,Copy,ServerCopy:1,64' } }
  ],
  ['speedtest', 'Read:0.00390625', { gate: { AFPBENCH_SPEEDTEST: 'Read:0.00390625' } }],
  ['speedtest', 'none', { gate: { AFPBENCH_SPEEDTEST: '' } }],
  ['iterations', '1', { gate: { AFPBENCH_ITERATIONS: '1' } }],
  ['load', '1,8,32', { gate: { AFPBENCH_LOAD: '1,8,32:5' } }],
  ['spotlight', '10000:3', { gate: { AFPBENCH_SPOTLIGHT: '10000:3' } }],
  ['bigdir', '10000, 50000', { gate: { AFPBENCH_BIGDIR: '10000,50000' } }],
  ['load', ' 1, 8 :07 ', { gate: { AFPBENCH_LOAD: '1,8:7' } }],
  ['load', 'none', { gate: { AFPBENCH_LOAD: '' } }],
  ['iterations', '255', { gate: { AFPBENCH_ITERATIONS: '255' } }],
  ['ab-budget', '0', { gate: { AFPBENCH_AB_BUDGET: '0' } }],
  ['ab-budget', '900', { gate: { AFPBENCH_AB_BUDGET: '900' } }],
  ['afp-version', '3', { gate: { AFPBENCH_AFP_VERSION: '3' } }],
  ['afp-version', 'AFP3.2', { gate: { AFPBENCH_AFP_VERSION: '5' } }],
  ['afp-version', 'afpx03', { gate: { AFPBENCH_AFP_VERSION: '3' } }],
  ['server', '127.0.0.1:10590', { server: { kind: 'host', host: '127.0.0.1', port: 10590 } }],
  ['server', 'nas.example.com', { server: { kind: 'host', host: 'nas.example.com', port: 548 } }],
  ['server', '[::1]:548', { server: { kind: 'host', host: '::1', port: 548 } }],
  ['netatalk-version', '4.2.3-1+deb13u1', { netatalkVersion: '4.2.3-1+deb13u1' }],
  [
    'afp-conf',
    'base.conf',
    {
      afpConf: path.join(workspace, 'base.conf'),
      afpConfSettings: {
        global: ['server quantum = 262144'],
        volume: ['ea = ad'],
        ignored: ['line 5: [Homes] is not served; ignored']
      },
      warnings: ["input 'afp-conf': base.conf line 5: [Homes] is not served; ignored"]
    }
  ],
  ['afp-user', 'bench user', { afpUser: 'bench user' }],
  ['afp-password', 's3cr3t!', { afpPassword: 's3cr3t!' }],
  ['volume', 'Time Machine', { volume: 'Time Machine' }],
  ['thresholds', 'limits.json', { thresholds: path.join(workspace, 'limits.json') }],
  ['time-threshold', '10', { gate: { AFPBENCH_TIME_THRESHOLD: '10' } }],
  ['time-threshold', '2.5%', { gate: { AFPBENCH_TIME_THRESHOLD: '2.5' } }],
  ['io-threshold', '1000', { gate: { AFPBENCH_IO_THRESHOLD: '1000' } }],
  ['instructions', 'true', { instructions: 'compose' }],
  ['instructions', 'false', { instructions: '' }],
  ['instr-threshold', '1', { gate: { AFPBENCH_INSTR_THRESHOLD: '1' } }],
  ['sys-threshold', '0.5', { gate: { AFPBENCH_SYS_THRESHOLD: '0.5' } }],
  ['baseline-timings', 'gate', { gate: { AFPBENCH_BASELINE_TIMINGS: 'gate' } }],
  ['baseline-timings', 'show', { gate: { AFPBENCH_BASELINE_TIMINGS: 'show' } }],
  ['comment', 'on-change', { comment: 'on-change' }],
  ['comment', 'never', { comment: 'never' }],
  ['comment-key', 'netatalk-4.2_x', { commentKey: 'netatalk-4.2_x' }],
  ['fail-on', 'inconclusive', { failOn: 'inconclusive' }],
  ['fail-on', 'never', { failOn: 'never' }],
  ['github-token', 'ghs_abc', { githubToken: 'ghs_abc' }],
  ['github-token', '${{ github.token }}', { githubToken: '' }],
  ['results-dir', '/tmp/elsewhere', { resultsDir: '/tmp/elsewhere' }],
  ['artifact-name', 'afpbench-4.2.3', { artifactName: 'afpbench-4.2.3' }],
  ['assets-branch', 'perf/assets', { assetsBranch: 'perf/assets' }],
  ['history-branch', 'perf/history', { historyBranch: 'perf/history' }],
  ['trend-runs', '50', { trendRuns: 50 }],
  ['trend-runs', '100', { trendRuns: 100 }],
  ['pages-branch', 'afpbench-pages', { pagesBranch: 'afpbench-pages' }],
  [
    'pages-url',
    'https://perf.example.org/netatalk/',
    { pagesUrl: 'https://perf.example.org/netatalk/' }
  ],
  ['bisect', 'true', { bisect: { repo: expect.any(String) as string, budgetSeconds: 1800 } }],
  ['bisect-budget', '360', { bisect: null }],
  ['check-run', 'true', { checkRun: true }]
]

// A/B: the base side, host:port and compose.
const HEAD = '127.0.0.1:10851'
const goodAb: Array<[string, Record<string, string>, Partial<Config>]> = [
  [
    'base-server',
    { server: HEAD, 'base-server': '127.0.0.1:10852' },
    {
      base: {
        server: { host: '127.0.0.1', port: 10852 },
        netatalkVersion: '',
        netatalkSource: '',
        afpConf: '',
        afpConfSettings: null,
        procIo: ''
      }
    }
  ],
  [
    'image-cache',
    { 'base-netatalk-source': 'netatalk-base', 'image-cache': '.afpbench-images' },
    { imageCache: path.join(workspace, '.afpbench-images') }
  ],
  [
    'base-proc-io',
    { server: HEAD, 'base-server': 'base.example', 'base-proc-io': 'proc_io' },
    {
      base: expect.objectContaining({
        server: { host: 'base.example', port: 548 },
        procIo: path.join(workspace, 'proc_io')
      }) as Config['base']
    }
  ],
  [
    'base-netatalk-version',
    { 'base-netatalk-version': '4.2.3-1' },
    {
      base: expect.objectContaining({ netatalkVersion: '4.2.3-1', server: null }) as Config['base']
    }
  ],
  [
    'base-netatalk-source',
    { 'netatalk-source': 'netatalk', 'base-netatalk-source': 'netatalk-base' },
    {
      netatalkSource: path.join(workspace, 'netatalk'),
      base: expect.objectContaining({
        netatalkSource: path.join(workspace, 'netatalk-base')
      }) as Config['base']
    }
  ],
  [
    'base-afp-conf',
    { 'base-afp-conf': 'base.conf' },
    {
      base: expect.objectContaining({
        afpConf: path.join(workspace, 'base.conf'),
        afpConfSettings: {
          global: ['server quantum = 262144'],
          volume: ['ea = ad'],
          ignored: ['line 5: [Homes] is not served; ignored']
        }
      }) as Config['base'],
      warnings: ["input 'base-afp-conf': base.conf line 5: [Homes] is not served; ignored"]
    }
  ]
]

describe('A/B: the base side', () => {
  it.each(goodAb)('%s: %j', (_name, inputs, expected) => {
    expect(parse(inputs)).toMatchObject(expected)
  })

  it('no base input: no A/B', () => {
    expect(parse({ server: HEAD }).base).toBeNull()
    expect(parse({}).base).toBeNull()
  })

  it('A/B never passes a baseline to the gate, not even the bundled default', () => {
    const withBaseline = mkdtempSync(path.join(os.tmpdir(), 'afpbench-actiondir-'))
    symlinkSync(path.join(REPO, 'scripts'), path.join(withBaseline, 'scripts'))
    mkdirSync(path.join(withBaseline, 'baselines'))
    writeFileSync(path.join(withBaseline, 'baselines', 'default.json'), BASELINE)
    const get = (inputs: Record<string, string>) => (name: string) => inputs[name] ?? ''
    const ctx = { workspace, actionDir: withBaseline }
    expect(parseInputs(get({ server: HEAD }), ctx).baseline).not.toBe('')
    const ab = parseInputs(get({ server: HEAD, 'base-server': '127.0.0.1:10852' }), ctx)
    expect(ab.baseline).toBe('')
    expect(ab.base).not.toBeNull()
  })

  it('base-server equal to server: an A/A run, with a warning', () => {
    expect(parse({ server: HEAD, 'base-server': HEAD }).warnings).toEqual([
      "input 'base-server' is the head server itself (127.0.0.1:10851): an A/A run, which measures only the noise"
    ])
  })

  it('publish mode ignores the base inputs', () => {
    expect(parse({ mode: 'publish', 'base-netatalk-version': 'x y' }).base).toBeNull()
  })
})

describe('accepts good values', () => {
  it('the plan is made once, here, with the commit measured', () => {
    const c = parseInputs((name) => ({ tests: '4,9' })[name], {
      workspace,
      actionDir,
      commit: 'c0ffee'
    })
    expect(c.plan?.settings).toMatchObject({ AFPBENCH_TESTS: '4,9', AFPBENCH_COMMIT: 'c0ffee' })
    expect(c.gate.AFPBENCH_TESTS).toBe('4,9')
  })

  it('host:port: afp-conf and netatalk-version describe the server started, and the plan holds them', () => {
    const c = parse({
      server: '127.0.0.1:10548',
      'afp-conf': 'base.conf',
      'netatalk-version': '4.5.1'
    })
    expect(c.plan?.server).toMatchObject({
      netatalk_version: '4.5.1',
      afp_conf: { global: ['server quantum = 262144'], volume: ['ea = ad'] }
    })
  })

  it.each(good)('%s = %j', (name, value, expected) => {
    expect(parse({ [name]: value })).toMatchObject(expected)
  })

  it('pages-branch with no history is taken: such a run publishes no page, and says why (pages.ts)', () => {
    expect(parse({ 'pages-branch': 'afpbench-pages', 'history-branch': '' })).toMatchObject({
      pagesBranch: 'afpbench-pages',
      historyBranch: ''
    })
  })

  it('netatalk-source: a directory, with server: compose', () => {
    // image-cache without a source build: nothing to keep, and the run says so
    const noSource = parse({ 'image-cache': 'images' })
    expect(noSource.imageCache).toBe('')
    expect(noSource.warnings.join('\n')).toMatch(/image-cache keeps servers built from/)
    expect(parse({ 'netatalk-source': 'netatalk' }).netatalkSource).toBe(
      path.join(workspace, 'netatalk')
    )
  })

  it('instructions: the count directory, with a host:port server', () => {
    expect(parse({ server: '127.0.0.1:548', instructions: 'proc_io' }).instructions).toBe(
      path.join(workspace, 'proc_io')
    )
  })

  it('proc-io: a directory, with a host:port server', () => {
    expect(parse({ server: '127.0.0.1:548', 'proc-io': 'proc_io' }).procIo).toBe(
      path.join(workspace, 'proc_io')
    )
  })

  it('baseline: an existing file in gate mode', () => {
    expect(parse({ baseline: 'base.json' }).baseline).toBe(path.join(workspace, 'base.json'))
  })

  it('baseline: a file in the workspace that does not exist yet is a first run: measure only', () => {
    const c = parse({ baseline: '.github/afpbench/baseline.json' })
    expect(c.baseline).toBe('')
    expect(c.baselineMissing).toBe('.github/afpbench/baseline.json')
    // not the bundled default either: that would compare with another machine's figures
    const withBundled = mkdtempSync(path.join(os.tmpdir(), 'afpbench-actiondir-'))
    symlinkSync(path.join(REPO, 'scripts'), path.join(withBundled, 'scripts'))
    mkdirSync(path.join(withBundled, 'baselines'))
    writeFileSync(path.join(withBundled, 'baselines', 'default.json'), BASELINE)
    const d = parseInputs((n) => ({ baseline: 'missing.json' })[n], {
      workspace,
      actionDir: withBundled
    })
    expect(d).toMatchObject({ baseline: '', baselineMissing: 'missing.json' })
  })

  it('baseline: an existing file, the bundled default or A/B never count as missing', () => {
    expect(parse({ baseline: 'base.json' }).baselineMissing).toBe('')
    expect(parse({}).baselineMissing).toBe('')
    expect(parse({ mode: 'baseline', baseline: 'new.json' }).baselineMissing).toBe('')
    const ab = parse({ 'base-netatalk-version': '4.2.3-1' })
    expect(ab).toMatchObject({ baseline: '', baselineMissing: '' })
  })

  it('baseline: a path that leaves the workspace is still an error, even if it looks inside', () => {
    expect(() => parse({ baseline: 'sub/../../outside.json' })).toThrow(/does not exist/)
  })

  it("baseline mode: the first-run comment's path in a fresh repository (no .github/afpbench/ yet)", () => {
    const c = parse({ mode: 'baseline', baseline: '.github/afpbench/baseline.json' })
    expect(c.baselineOut).toBe(path.join(workspace, '.github', 'afpbench', 'baseline.json'))
    // outside the workspace a missing directory is still refused (another test), and a
    // file in the way of the directory too
    writeFileSync(path.join(workspace, 'plainfile'), '')
    expect(() => parse({ mode: 'baseline', baseline: 'plainfile/b.json' })).toThrow(
      /is not a directory/
    )
  })

  it('baseline: the file to write in baseline mode (need not exist)', () => {
    const c = parse({ mode: 'baseline', baseline: 'new.json' })
    expect(c.baselineOut).toBe(path.join(workspace, 'new.json'))
    expect(c.baseline).toBe('')
  })

  it("tests: 'none' with a speedtest runs only the speedtest", () => {
    expect(parse({ tests: 'none', speedtest: 'Read' })).toMatchObject({
      gate: { AFPBENCH_TESTS: 'none', AFPBENCH_SPEEDTEST: 'Read' }
    })
  })

  it('afp-password: more than 8 bytes is refused, as afpbench and the server image refuse it', () => {
    expect(() => parse({ 'afp-password': 'longpassw' })).toThrow(
      /input 'afp-password': is longer than 8 bytes/
    )
    // bytes, not characters: five 'é' are ten bytes
    expect(() => parse({ 'afp-password': '\u00e9\u00e9\u00e9\u00e9\u00e9' })).toThrow(
      /longer than 8 bytes/
    )
    expect(parse({ 'afp-password': 'exactly8' }).afpPassword).toBe('exactly8')
    expect(parse({ 'afp-password': 'exactly8' }).warnings).toEqual([])
    // publish mode logs in nowhere
    expect(parse({ mode: 'publish', 'afp-password': 'longpassword' }).mode).toBe('publish')
  })

  it('an empty input means its default, unless its documented empty value is "off"', () => {
    expect(parse({ tests: '' }).gate.AFPBENCH_TESTS).toBe('1-12')
    expect(parse({ 'results-dir': '' }).resultsDir).toBe(path.join(workspace, 'afpbench-results'))
  })

  it.each([
    ['artifact-name', 'artifactName', 'afpbench-results'],
    ['assets-branch', 'assetsBranch', 'afpbench-assets'],
    ['history-branch', 'historyBranch', 'afpbench-data']
  ] as const)("%s: '' is off (as documented), not set is the default", (input, key, dflt) => {
    expect(parse({ [input]: '' })[key]).toBe('')
    expect(parse({ [input]: '  ' })[key]).toBe('')
    expect(parse({})[key]).toBe(dflt)
  })

  it('sessions: a baseline pools 2 by default, 1-10 when given; a gate run is one', () => {
    expect(parse({ mode: 'baseline' }).sessions).toBe(2)
    expect(parse({ mode: 'baseline', sessions: '5' }).sessions).toBe(5)
    expect(parse({ mode: 'baseline', sessions: '5' }).warnings).toEqual([])
    expect(parse({}).sessions).toBe(1)
    expect(parse({ sessions: '2' }).sessions).toBe(1)
    // a running server cannot be started afresh: said, not refused
    expect(parse({ mode: 'baseline', sessions: '3', server: HEAD }).warnings).toEqual([
      expect.stringMatching(/'sessions': 3 sessions against 127\.0\.0\.1:10851.*not restarted/)
    ])
  })

  it("github-token: '' publishes nothing but the summary (no token)", () => {
    expect(parse({ 'github-token': '' }).githubToken).toBe('')
    expect(parse({ 'github-token': 'ghs_x' }).githubToken).toBe('ghs_x')
  })

  it('server-only inputs are ignored in publish mode', () => {
    expect(
      parse({ mode: 'publish', server: '127.0.0.1:548', 'netatalk-version': '4.2.3-1' }).mode
    ).toBe('publish')
  })
})

// Every input: a bad value, and the message must name the input.
const bad: Array<[string, Record<string, string>, RegExp]> = [
  ['mode', { mode: 'run' }, /input 'mode': 'run' is not one of gate, baseline, publish, backfill/],
  ['tests', { tests: '13' }, /input 'tests': '13' is not a test number/],
  ['tests', { tests: '0' }, /input 'tests'/],
  ['tests', { tests: '5-2' }, /input 'tests': '5-2'/],
  ['tests', { tests: 'cash' }, /input 'tests': 'cash'.*group: all, cache/],
  ['tests', { tests: ',' }, /input 'tests': ',' selects no test/],
  [
    'tests',
    { tests: 'none' },
    /input 'tests': nothing to run: 'tests' is none and 'speedtest', 'load', 'spotlight' and 'bigdir' are empty/
  ],
  [
    'tests',
    { tests: 'none' },
    /input 'tests': nothing to run: 'tests' is none and 'speedtest', 'load', 'spotlight' and 'bigdir' are empty/
  ],
  ['tests', { tests: '1;rm -rf /' }, /input 'tests'/],
  [
    'speedtest',
    { speedtest: 'Read,Erase' },
    /input 'speedtest': 'Erase' is not a speedtest operation/
  ],
  ['speedtest', { speedtest: 'Read:0' }, /input 'speedtest': size '0'/],
  ['speedtest', { speedtest: 'Read:5000' }, /input 'speedtest': size '5000'/],
  ['speedtest', { speedtest: 'Read:1MB' }, /input 'speedtest': size '1MB'/],
  ['speedtest', { speedtest: 'Read:1:2' }, /input 'speedtest'.*more than one ':'/],
  [
    'iterations',
    { iterations: '0' },
    /input 'iterations': '0' must be a whole number from 1 to 255/
  ],
  ['load', { load: '0,8' }, /input 'load': session count '0' is not within 1-1024/],
  ['load', { load: '8:0' }, /input 'load': '0' is not whole seconds/],
  ['load', { load: 'many' }, /input 'load': 'many' is not session counts/],
  ['spotlight', { spotlight: '0' }, /input 'spotlight': 0 files is not within 1-100000/],
  ['bigdir', { bigdir: '1,2,3,4,5' }, /input 'bigdir': '1,2,3,4,5' is not up to 4 directory sizes/],
  [
    'iterations',
    { iterations: '256' },
    /input 'iterations': '256' must be a whole number from 1 to 255/
  ],
  ['iterations', { iterations: '2.5' }, /input 'iterations': '2.5' must be a whole number/],
  ['iterations', { iterations: 'many' }, /input 'iterations'/],
  [
    'ab-budget',
    { 'ab-budget': '-1' },
    /input 'ab-budget': '-1' must be whole seconds from 0 \(off\) to 86400/
  ],
  ['ab-budget', { 'ab-budget': '86401' }, /input 'ab-budget'/],
  ['afp-version', { 'afp-version': '2' }, /input 'afp-version': '2' must be 3..7/],
  ['afp-version', { 'afp-version': 'AFP2.2' }, /input 'afp-version'/],
  ['server', { server: 'afp://nas:548' }, /input 'server'/],
  ['server', { server: '127.0.0.1:0' }, /input 'server'.*port '0'/],
  ['server', { server: '127.0.0.1:70000' }, /input 'server'.*port '70000'/],
  ['server', { server: '::1:548' }, /input 'server'.*brackets/],
  ['server', { server: 'host name:548' }, /input 'server'/],
  ['server', { server: '-oProxyCommand=x' }, /input 'server'/],
  [
    'netatalk-version',
    { 'netatalk-version': 'latest; echo' },
    /input 'netatalk-version'.*Debian package version/
  ],
  [
    'netatalk-source',
    { 'netatalk-source': 'missing' },
    /input 'netatalk-source': directory 'missing' does not exist/
  ],
  [
    'netatalk-source',
    { 'netatalk-source': 'base.json' },
    /input 'netatalk-source': 'base.json' is not a directory/
  ],
  [
    'netatalk-source',
    { server: '127.0.0.1', 'netatalk-source': 'netatalk' },
    /input 'netatalk-source': applies only/
  ],
  [
    'netatalk-source',
    { 'netatalk-source': 'netatalk', 'netatalk-version': '4.2.3-1' },
    /input 'netatalk-source': set either/
  ],
  ['afp-conf', { 'afp-conf': 'nope.conf' }, /input 'afp-conf': file 'nope.conf' does not exist/],
  [
    'afp-conf',
    { 'afp-conf': 'listen.conf' },
    /input 'afp-conf': listen.conf line 2: 'afp listen' is set by afpbench/
  ],
  ['afp-user', { 'afp-user': 'a\nb' }, /input 'afp-user': contains a control character/],
  ['afp-user', { 'afp-user': 'x'.repeat(256) }, /input 'afp-user': is longer than 255/],
  [
    'afp-password',
    { 'afp-password': 'pa\u0000ss' },
    /input 'afp-password': contains a control character/
  ],
  ['volume', { volume: 'a\tb' }, /input 'volume': contains a control character/],
  ['proc-io', { 'proc-io': 'nowhere' }, /input 'proc-io': directory 'nowhere' does not exist/],
  ['proc-io', { 'proc-io': 'proc_io' }, /input 'proc-io': applies only to 'server: HOST:PORT'/],
  // Missing inside the workspace is a first run (below); outside it, a mistake.
  [
    'baseline',
    { baseline: '../nope.json' },
    /input 'baseline': file '..\/nope.json' does not exist/
  ],
  ['baseline', { baseline: '/nonexistent/b.json' }, /file '\/nonexistent\/b.json' does not exist/],
  ['baseline', { baseline: 'netatalk' }, /input 'baseline': 'netatalk' is not a file/],
  [
    'baseline',
    { mode: 'baseline', baseline: '/no/such/dir/b.json' },
    /input 'baseline': directory of/
  ],
  [
    'thresholds',
    { thresholds: 'nope.json' },
    /input 'thresholds': file 'nope.json' does not exist/
  ],
  ['time-threshold', { 'time-threshold': '0' }, /input 'time-threshold': '0' is not a percentage/],
  ['time-threshold', { 'time-threshold': 'ten' }, /input 'time-threshold'/],
  ['time-threshold', { 'time-threshold': '-5' }, /input 'time-threshold'/],
  ['io-threshold', { 'io-threshold': '1001' }, /input 'io-threshold': '1001'/],
  ['io-threshold', { 'io-threshold': '5%%' }, /input 'io-threshold'/],
  ['instructions', { instructions: 'yes' }, /input 'instructions': 'yes' is not true or false/],
  [
    'instructions',
    { instructions: 'true', server: '127.0.0.1:548' },
    /input 'instructions': with a host:port server, give the instrumented server's count directory/
  ],
  [
    'instructions',
    { instructions: 'true', 'netatalk-source': 'netatalk' },
    /cannot be combined with 'netatalk-source'/
  ],
  ['instr-threshold', { 'instr-threshold': 'x' }, /input 'instr-threshold'/],
  ['sys-threshold', { 'sys-threshold': '-1' }, /input 'sys-threshold'/],
  [
    'instructions with speedtest',
    { server: '127.0.0.1:548', instructions: '/tmp', speedtest: 'Read' },
    /input 'instructions': counts lantest's tests only and cannot run with 'speedtest'/
  ],
  [
    'instructions with load',
    { instructions: 'true', load: '1,8' },
    /input 'instructions': counts lantest's tests only and cannot run with 'load'/
  ],
  [
    'baseline-timings',
    { 'baseline-timings': 'always' },
    /input 'baseline-timings': 'always' must be show or gate/
  ],
  [
    'comment',
    { comment: 'sometimes' },
    /input 'comment': 'sometimes' is not one of always, on-change, never/
  ],
  ['comment-key', { 'comment-key': 'a key' }, /input 'comment-key'/],
  ['comment-key', { 'comment-key': '-->' }, /input 'comment-key'/],
  ['slices', { slices: 'a,b' }, /input 'slices': applies only to 'mode: publish'/],
  ['slices', { mode: 'publish', slices: 'a b a' }, /input 'slices': 'a' is listed twice/],
  [
    'fail-on',
    { 'fail-on': 'error' },
    /input 'fail-on': 'error' is not one of regression, inconclusive, never/
  ],
  ['results-dir', { 'results-dir': 'a\nb' }, /input 'results-dir': contains a control character/],
  ['artifact-name', { 'artifact-name': 'a/b' }, /input 'artifact-name'/],
  ['artifact-name', { 'artifact-name': 'a:b' }, /input 'artifact-name'/],
  [
    'assets-branch',
    { 'assets-branch': 'a..b' },
    /input 'assets-branch': 'a..b' is not a valid branch name/
  ],
  ['assets-branch', { 'assets-branch': '-x' }, /input 'assets-branch'/],
  ['assets-branch', { 'assets-branch': 'x.lock' }, /input 'assets-branch'/],
  ['assets-branch', { 'assets-branch': 'a b' }, /input 'assets-branch'/],
  [
    'history-branch',
    { 'history-branch': 'a..b' },
    /input 'history-branch': 'a..b' is not a valid branch name/
  ],
  [
    'history-branch',
    { 'history-branch': 'charts', 'assets-branch': 'charts' },
    /input 'history-branch': 'charts' is also 'assets-branch': the history needs a branch of its own/
  ],
  [
    'pages-branch',
    { 'pages-branch': 'a..b' },
    /input 'pages-branch': 'a..b' is not a valid branch name/
  ],
  [
    'pages-branch',
    { 'pages-branch': 'afpbench-data' },
    /input 'pages-branch': 'afpbench-data' is also 'history-branch': the page needs a branch of its own/
  ],
  [
    'pages-branch',
    { 'pages-branch': 'afpbench-assets' },
    /input 'pages-branch': 'afpbench-assets' is also 'assets-branch'/
  ],
  [
    'pages-url',
    { 'pages-url': 'http://x.example/' },
    /input 'pages-url': 'http:\/\/x.example\/' is not an https address/
  ],
  ['pages-url', { 'pages-url': 'javascript:alert(1)' }, /input 'pages-url'/],
  ['pages-url', { 'pages-url': 'https://x.example/a b' }, /input 'pages-url'/],
  ['pages-url', { 'pages-url': 'https://x.example/(a)' }, /input 'pages-url'/],
  ['trend-runs', { 'trend-runs': '1' }, /input 'trend-runs': 1 is out of range \(2-100\)/],
  ['trend-runs', { 'trend-runs': '101' }, /input 'trend-runs': 101 is out of range \(2-100\)/],
  ['trend-runs', { 'trend-runs': 'all' }, /input 'trend-runs': 'all' is not a whole number/],
  ['sessions', { mode: 'baseline', sessions: '0' }, /input 'sessions': 0 is out of range \(1-10\)/],
  [
    'sessions',
    { mode: 'baseline', sessions: '11' },
    /input 'sessions': 11 is out of range \(1-10\)/
  ],
  [
    'sessions',
    { sessions: '3' },
    /input 'sessions': applies only to 'mode: baseline' \(a gate run is one session; mode is 'gate'\)/
  ],
  ['bisect', { bisect: 'on' }, /input 'bisect': 'on' is not true or false/],
  ['check-run', { 'check-run': 'yes' }, /input 'check-run': 'yes' is not true or false/],
  [
    'bisect-budget',
    { 'bisect-budget': '361' },
    /input 'bisect-budget': 361 is out of range \(1-360\)/
  ],
  [
    'backfill-range',
    { 'backfill-range': 'a..b' },
    /input 'backfill-range': applies to 'mode: backfill' only \(mode is 'gate'\)/
  ],
  [
    'backfill-range',
    { mode: 'backfill', 'backfill-range': 'v4.3.2 v4.4.0' },
    /input 'backfill-range': 'v4.3.2 v4.4.0' is not FROM\.\.TO/
  ],
  [
    'backfill-range',
    { mode: 'backfill', 'backfill-range': '--all..b' },
    /input 'backfill-range': '--all..b' is not FROM\.\.TO/
  ],
  [
    'backfill-slice',
    { mode: 'backfill', 'backfill-range': 'a..b', 'backfill-slice': '5/4' },
    /input 'backfill-slice': '5\/4' is not K\/N/
  ],
  [
    'backfill-slice',
    { mode: 'backfill', 'backfill-slice': '1/4' },
    /input 'backfill-slice': needs 'backfill-range'/
  ],
  [
    'backfill-budget',
    { mode: 'backfill', 'backfill-range': 'a..b', 'backfill-budget': '0' },
    /input 'backfill-budget': 0 is out of range \(1-360\)/
  ],
  [
    'backfill-engine',
    { mode: 'backfill', 'backfill-range': 'a..b', 'backfill-engine': 'yes' },
    /input 'backfill-engine': 'yes' is not true or false/
  ],
  [
    'history-branch',
    { mode: 'backfill', 'history-branch': '' },
    /input 'history-branch': is empty: the backfill's fan-in writes the records to it/
  ],
  // A/B
  [
    'baseline',
    { server: HEAD, 'base-server': '127.0.0.1:10852', baseline: 'base.json' },
    /input 'baseline': must be empty when the base side is named \(base-server\): an A\/B run measures its own base/
  ],
  [
    'baseline',
    { 'base-afp-conf': 'base.conf', baseline: 'base.json' },
    /input 'baseline': must be empty when the base side is named \(base-afp-conf\)/
  ],
  [
    'instructions',
    { instructions: 'true', 'base-netatalk-source': '.' },
    /input 'instructions': the instrumented base is Debian's netatalk package/
  ],
  [
    'instructions',
    { server: HEAD, instructions: '/tmp', 'base-server': '127.0.0.1:10549' },
    /input 'instructions': with a host:port server cannot be set when the base side is named \(base-server\): run scripts\/gate with AFPBENCH_INSTR_DIR and BASE_AFPBENCH_INSTR_DIR/
  ],
  ['base-server', { server: HEAD, 'base-server': 'afp://x' }, /input 'base-server': 'afp:\/\/x'/],
  [
    'base-server',
    { server: HEAD, 'base-server': '127.0.0.1:0' },
    /input 'base-server'.*port '0'.*use HOST:PORT/
  ],
  [
    'base-server',
    { server: HEAD, 'base-server': 'compose' },
    /input 'base-server': is HOST:PORT, not 'compose'/
  ],
  [
    'base-server',
    { 'base-server': '127.0.0.1:10852' },
    /input 'base-server': applies only to 'server: HOST:PORT' \(with server: compose the action starts the base server itself/
  ],
  [
    'base-server',
    { mode: 'baseline', server: HEAD, 'base-server': '127.0.0.1:10852' },
    /input 'base-server': applies only to 'mode: gate'/
  ],
  [
    'base-netatalk-version',
    { 'base-netatalk-version': '4.2; rm' },
    /input 'base-netatalk-version': '4.2; rm' is not a Debian package version/
  ],
  [
    'base-netatalk-version',
    { server: HEAD, 'base-server': '127.0.0.1:10852', 'base-netatalk-version': '4.2.3-1' },
    /input 'base-netatalk-version': applies only to 'server: compose'.*name it in 'base-server'/
  ],
  [
    'base-netatalk-source',
    { 'base-netatalk-source': 'missing' },
    /input 'base-netatalk-source': directory 'missing' does not exist/
  ],
  [
    'base-netatalk-source',
    { 'base-netatalk-source': 'netatalk-base', 'base-netatalk-version': '4.2.3-1' },
    /input 'base-netatalk-source': set either 'base-netatalk-version' or 'base-netatalk-source'/
  ],
  [
    'base-afp-conf',
    { 'base-afp-conf': 'nope.conf' },
    /input 'base-afp-conf': file 'nope.conf' does not exist/
  ],
  [
    'base-afp-conf',
    { 'base-afp-conf': 'listen.conf' },
    /input 'base-afp-conf': listen.conf line 2: 'afp listen' is set by afpbench/
  ],
  [
    'base-afp-conf',
    { 'base-afp-conf': 'big.conf' },
    /input 'base-afp-conf': big.conf is larger than 65536 bytes/
  ],
  [
    'base-afp-conf',
    { server: HEAD, 'base-afp-conf': 'base.conf' },
    /input 'base-afp-conf': applies only to 'server: compose'/
  ],
  [
    'base-proc-io',
    { server: HEAD, 'base-proc-io': 'proc_io' },
    /input 'base-proc-io': needs 'base-server'/
  ],
  [
    'image-cache',
    { server: HEAD, 'image-cache': 'images' },
    /input 'image-cache': applies only to 'server: compose'/
  ],
  [
    'image-cache',
    { 'netatalk-source': 'netatalk', 'image-cache': 'base.json' },
    /input 'image-cache': 'base.json' is not a directory/
  ],
  [
    'image-cache',
    { 'netatalk-source': 'netatalk', 'image-cache': 'netatalk/.images' },
    /input 'image-cache': 'netatalk\/.images' is inside the source tree .*netatalk: the images would become part/
  ],
  [
    'base-proc-io',
    { 'base-netatalk-version': '4.2.3-1', 'base-proc-io': 'proc_io' },
    /input 'base-proc-io': applies only to 'server: HOST:PORT' \(the compose client sees/
  ],
  [
    'base-proc-io',
    { server: HEAD, 'base-server': 'h:1', 'base-proc-io': 'nowhere' },
    /input 'base-proc-io': directory 'nowhere' does not exist/
  ]
]

describe('rejects bad values with a message naming the input', () => {
  it.each(bad)('%s: %j', (_name, inputs, message) => {
    expect(() => parse(inputs)).toThrow(message)
  })

  it('covers every input with at least one bad value', () => {
    const covered = new Set(bad.map(([name]) => name))
    // github-token accepts any string (GitHub checks it); everything else must be covered.
    const expected = Object.keys(DEFAULTS).filter((n) => n !== 'github-token')
    expect(expected.filter((n) => !covered.has(n))).toEqual([])
  })

  it('covers every input with at least one good value', () => {
    const covered = new Set(good.map(([name]) => name))
    // slices: only with mode: publish, below
    const special = [
      'netatalk-source',
      'baseline',
      'proc-io',
      'slices',
      'sessions',
      // backfill-*: only with mode: backfill, below
      'backfill-range',
      'backfill-slice',
      'backfill-budget',
      'backfill-engine',
      ...goodAb.map(([name]) => name)
    ]
    expect(Object.keys(DEFAULTS).filter((n) => !covered.has(n) && !special.includes(n))).toEqual([])
  })

  it('backfill: a range, a slice of it, or the fan-in', () => {
    expect(parse({ mode: 'backfill', 'backfill-range': 'v4.3.2..v4.4.0' }).backfill).toEqual({
      repo: expect.any(String) as string,
      from: 'v4.3.2',
      to: 'v4.4.0',
      slice: '',
      budgetSeconds: 18000,
      engine: false,
      iterations: false
    })
    expect(
      parse({
        mode: 'backfill',
        'backfill-range': '9be57ccc..main',
        'backfill-slice': '2/4',
        'backfill-budget': '60',
        'backfill-engine': 'true'
      }).backfill
    ).toMatchObject({
      from: '9be57ccc',
      to: 'main',
      slice: '2/4',
      budgetSeconds: 3600,
      engine: true
    })
    expect(parse({ mode: 'backfill' }).backfill).toMatchObject({ from: '', to: '', slice: '' })
    expect(parse({}).backfill).toBeNull()
  })

  it("slices: publish mode's matrix fan-in takes a list", () => {
    expect(parse({ mode: 'publish', slices: 'afpbench-dbd,\nafpbench-sqlite' }).slices).toEqual([
      'afpbench-dbd',
      'afpbench-sqlite'
    ])
    expect(parse({ mode: 'publish' }).slices).toEqual([])
  })
})

describe('the cleartext password cap', () => {
  // one limit, written in three languages: each is tied to the action's here
  it('is the same in afpbench (afp.h), the server image (server-entrypoint.sh) and the action', () => {
    const afpH = readFileSync('src/afpbench/afp.h', 'utf8')
    const entry = readFileSync('scripts/server-entrypoint.sh', 'utf8')
    expect(/#define AFP_CLEARTEXT_PASSLEN (\d+)/.exec(afpH)?.[1]).toBe(String(MAX_PASSWORD_BYTES))
    expect(/^readonly MAX_CLEARTEXT_PASS=(\d+)/m.exec(entry)?.[1]).toBe(String(MAX_PASSWORD_BYTES))
  })
})
