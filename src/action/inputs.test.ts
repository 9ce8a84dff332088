import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULTS, parseInputs, type Config } from './inputs.js'

// A workspace with a file and directories the path inputs can name; built at
// load time because the tables below use its path.
const workspace = mkdtempSync(path.join(os.tmpdir(), 'afpbench-inputs-'))
const actionDir = mkdtempSync(path.join(os.tmpdir(), 'afpbench-actiondir-'))
writeFileSync(path.join(workspace, 'base.json'), '{}')
writeFileSync(path.join(workspace, 'limits.json'), '{}')
mkdirSync(path.join(workspace, 'netatalk'))
mkdirSync(path.join(workspace, 'proc_io'))

function parse(inputs: Record<string, string>): Config {
  return parseInputs((name) => inputs[name] ?? '', { workspace, actionDir })
}

describe('defaults', () => {
  it('gives a complete config when every input is empty', () => {
    const c = parse({})
    expect(c).toMatchObject({
      mode: 'gate',
      tests: '1-12',
      speedtest: '',
      iterations: 5,
      afpVersion: 7,
      server: { kind: 'compose' },
      afpUser: 'afpbench',
      afpPassword: 'afpbench',
      volume: 'File Sharing',
      baseline: '', // no bundled baselines/default.json in this action dir
      timeThreshold: null,
      ioThreshold: null,
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
    mkdirSync(path.join(withBaseline, 'baselines'))
    writeFileSync(path.join(withBaseline, 'baselines', 'default.json'), '{}')
    const c = parseInputs(() => '', { workspace, actionDir: withBaseline })
    expect(c.baseline).toBe(path.join(withBaseline, 'baselines', 'default.json'))
  })

  it('trims whitespace around values', () => {
    expect(parse({ iterations: '  3 \n' }).iterations).toBe(3)
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
  ['tests', '1,3,10', { tests: '1-1,3-3,10-10' }],
  ['tests', '2-5, 9', { tests: '2-5,9-9' }],
  ['tests', '12', { tests: '12-12' }],
  ['tests', '3,1,2,2', { tests: '1-3' }],
  ['tests', 'cache', { tests: '9-12' }],
  ['tests', 'ALL', { tests: '1-12' }],
  ['speedtest', 'read,Write', { speedtest: 'Read,Write' }],
  [
    'speedtest',
    'Read,Write,Copy,ServerCopy:1,64',
    { speedtest: 'Read,Write,Copy,ServerCopy:1,64' }
  ],
  ['speedtest', 'Read:0.00390625', { speedtest: 'Read:0.00390625' }],
  ['speedtest', 'none', { speedtest: '' }],
  ['iterations', '1', { iterations: 1 }],
  ['iterations', '255', { iterations: 255 }],
  ['afp-version', '3', { afpVersion: 3 }],
  ['afp-version', 'AFP3.2', { afpVersion: 5 }],
  ['afp-version', 'afpx03', { afpVersion: 3 }],
  ['server', '127.0.0.1:10590', { server: { kind: 'host', host: '127.0.0.1', port: 10590 } }],
  ['server', 'nas.example.com', { server: { kind: 'host', host: 'nas.example.com', port: 548 } }],
  ['server', '[::1]:548', { server: { kind: 'host', host: '::1', port: 548 } }],
  ['netatalk-version', '4.2.3-1+deb13u1', { netatalkVersion: '4.2.3-1+deb13u1' }],
  ['afp-user', 'bench user', { afpUser: 'bench user' }],
  ['afp-password', 's3cr3t!', { afpPassword: 's3cr3t!' }],
  ['volume', 'Time Machine', { volume: 'Time Machine' }],
  ['thresholds', 'limits.json', { thresholds: path.join(workspace, 'limits.json') }],
  ['time-threshold', '10', { timeThreshold: 10 }],
  ['time-threshold', '2.5%', { timeThreshold: 2.5 }],
  ['io-threshold', '1000', { ioThreshold: 1000 }],
  ['instructions', 'true', { instructions: 'compose' }],
  ['instructions', 'false', { instructions: '' }],
  ['instr-threshold', '1', { instrThreshold: 1 }],
  ['comment', 'on-change', { comment: 'on-change' }],
  ['comment', 'never', { comment: 'never' }],
  ['comment-key', 'netatalk-4.2_x', { commentKey: 'netatalk-4.2_x' }],
  ['fail-on', 'inconclusive', { failOn: 'inconclusive' }],
  ['fail-on', 'never', { failOn: 'never' }],
  ['github-token', 'ghs_abc', { githubToken: 'ghs_abc' }],
  ['github-token', '${{ github.token }}', { githubToken: '' }],
  ['results-dir', '/tmp/elsewhere', { resultsDir: '/tmp/elsewhere' }],
  ['artifact-name', 'afpbench-4.2.3', { artifactName: 'afpbench-4.2.3' }],
  ['assets-branch', 'perf/assets', { assetsBranch: 'perf/assets' }]
]

describe('accepts good values', () => {
  it.each(good)('%s = %j', (name, value, expected) => {
    expect(parse({ [name]: value })).toMatchObject(expected)
  })

  it('netatalk-source: a directory, with server: compose', () => {
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

  it('baseline: the file to write in baseline mode (need not exist)', () => {
    const c = parse({ mode: 'baseline', baseline: 'new.json' })
    expect(c.baselineOut).toBe(path.join(workspace, 'new.json'))
    expect(c.baseline).toBe('')
  })

  it("tests: 'none' with a speedtest runs only the speedtest", () => {
    expect(parse({ tests: 'none', speedtest: 'Read' })).toMatchObject({
      tests: 'none',
      speedtest: 'Read'
    })
  })

  it('afp-password: longer than 8 characters is accepted with a warning', () => {
    const c = parse({ 'afp-password': 'longpassword' })
    expect(c.warnings.join()).toMatch(/afp-password.*8 characters/)
  })

  it('an empty input means its default', () => {
    expect(parse({ 'artifact-name': '' }).artifactName).toBe('afpbench-results')
  })

  it('server-only inputs are ignored in publish mode', () => {
    expect(
      parse({ mode: 'publish', server: '127.0.0.1:548', 'netatalk-version': '4.2.3-1' }).mode
    ).toBe('publish')
  })
})

// Every input: a bad value, and the message must name the input.
const bad: Array<[string, Record<string, string>, RegExp]> = [
  ['mode', { mode: 'run' }, /input 'mode': 'run' is not one of gate, baseline, publish/],
  ['tests', { tests: '13' }, /input 'tests': '13' is not a test number/],
  ['tests', { tests: '0' }, /input 'tests'/],
  ['tests', { tests: '5-2' }, /input 'tests': '5-2'/],
  ['tests', { tests: 'cash' }, /input 'tests': 'cash'.*group: all, cache/],
  ['tests', { tests: ',' }, /input 'tests': selects no test/],
  ['tests', { tests: 'none' }, /input 'tests': is 'none' and 'speedtest' is empty/],
  ['tests', { tests: 'none' }, /input 'tests': is 'none' and 'speedtest' is empty/],
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
  ['iterations', { iterations: '0' }, /input 'iterations': 0 is out of range \(1-255\)/],
  ['iterations', { iterations: '256' }, /input 'iterations': 256 is out of range/],
  ['iterations', { iterations: '2.5' }, /input 'iterations': '2.5' is not a whole number/],
  ['iterations', { iterations: 'many' }, /input 'iterations'/],
  ['afp-version', { 'afp-version': '2' }, /input 'afp-version': '2' is not 3-7/],
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
    'netatalk-version',
    { server: '127.0.0.1:548', 'netatalk-version': '4.2.3-1' },
    /input 'netatalk-version': applies only to 'server: compose'/
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
  ['baseline', { baseline: 'nope.json' }, /input 'baseline': file 'nope.json' does not exist/],
  ['baseline', { baseline: 'netatalk' }, /input 'baseline': 'netatalk' is not a file/],
  [
    'baseline',
    { mode: 'baseline', baseline: 'no/such/dir/b.json' },
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
  [
    'comment',
    { comment: 'sometimes' },
    /input 'comment': 'sometimes' is not one of always, on-change, never/
  ],
  ['comment-key', { 'comment-key': 'a key' }, /input 'comment-key'/],
  ['comment-key', { 'comment-key': '-->' }, /input 'comment-key'/],
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
  ['assets-branch', { 'assets-branch': 'a b' }, /input 'assets-branch'/]
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
    const special = ['netatalk-source', 'baseline', 'proc-io']
    expect(Object.keys(DEFAULTS).filter((n) => !covered.has(n) && !special.includes(n))).toEqual([])
  })
})
