import { describe, expect, it } from 'vitest'
import {
  decodeChunk,
  encodeChunk,
  MAX_FILE_BYTES,
  packSeries,
  PageDataError,
  readIndex,
  readKeyData,
  safeRepoUrl,
  unpackSeries,
  type PageRun
} from './page-data.js'

const HEX = 'a'.repeat(40)

function run(i: number, over: Partial<PageRun> = {}): PageRun {
  return {
    id: `20260101T00000${i}.000Z-aaaaaaaaaaaa-${i}`,
    commit: HEX,
    date: `2026-01-01T00:00:0${i}.000Z`,
    runId: i,
    release: '',
    subject: `commit ${i}`,
    source: 'measured',
    reusedFrom: '',
    skipReason: '',
    archived: false,
    provenance: {
      netatalk: '4.2.3',
      build: '',
      afpConf: '',
      runner: 'x, 2 cores',
      suite: 'lantest-12/1'
    },
    steps: [],
    ...over
  }
}

describe('a series, packed', () => {
  it('packs repeated counts as runs of one value, and gives back what it packed', () => {
    const exact = [...Array<number>(50).fill(53900), ...Array<number>(50).fill(64900)]
    const packed = packSeries(exact)
    expect(packed).toEqual({ r: [53900, 50, 64900, 50] })
    expect(unpackSeries(packed, 100)).toEqual(exact)
  })

  it('keeps a series that moves every run as a plain list, nulls included', () => {
    const noisy = [1.01, 1.02, null, 1.03, 1.01]
    expect(packSeries(noisy)).toEqual(noisy)
    expect(unpackSeries(packSeries(noisy), 5)).toEqual(noisy)
  })

  it('never gives more figures than runs, whatever the file says', () => {
    expect(unpackSeries({ r: [7, 1e9] }, 3)).toEqual([7, 7, 7])
    expect(unpackSeries({ r: [7, -1, 8, 2] }, 3)).toEqual([null, null, null])
    expect(unpackSeries([1, 'x', 2, 3, 4], 3)).toEqual([1, null, 2])
    expect(unpackSeries('nonsense', 2)).toEqual([null, null])
  })
})

describe('a chunk', () => {
  it('reads back what was written', () => {
    const runs = [
      run(1, {
        release: 'v4.3.0',
        steps: [
          {
            metric: 'aggregate.afpd_sys_stat_per_op',
            before: 3,
            after: 4,
            commands: [{ command: 'FPOpenFork', calls: [{ call: 'lstat', before: 1, after: 2 }] }],
            site: 'x.c:1'
          }
        ]
      }),
      run(2, { source: 'reused', reusedFrom: 'b'.repeat(40) }),
      run(3, { source: 'skipped', skipReason: 'does not build', archived: true })
    ]
    const values = new Map([
      ['aggregate.afpd_r_per_op', [0.5, 0.5, null]],
      ['lantest.1.afpd_r', [null, null, null]]
    ])
    const back = decodeChunk(encodeChunk(runs, values), 'c', 3)
    expect(back.runs).toEqual(runs)
    // a row without a figure in the chunk is left out of it
    expect([...back.values]).toEqual([['aggregate.afpd_r_per_op', [0.5, 0.5, null]]])
  })

  it('refuses a chunk whose runs are not what key.json says, or without a commit', () => {
    const text = encodeChunk([run(1)], new Map())
    expect(() => decodeChunk(text, 'c0000.json', 2)).toThrow(/1 runs, key.json says 2/)
    const bad = text.replace(HEX, 'not-a-commit')
    expect(() => decodeChunk(bad, 'c0000.json', 1)).toThrow(PageDataError)
    expect(() => decodeChunk('{"schema":"other/1"}', 'c0000.json', 0)).toThrow(/schema/)
    expect(() => decodeChunk(' '.repeat(MAX_FILE_BYTES + 1), 'c', 0)).toThrow(/larger than/)
  })

  it('bounds and cleans every string it reads', () => {
    const text = encodeChunk([run(1)], new Map()).replace('commit 1', 'x'.repeat(500))
    const r = decodeChunk(text, 'c', 1).runs[0]
    expect(r.subject).toHaveLength(200)
    const ctl = encodeChunk([run(1)], new Map()).replace('commit 1', 'a\\u0007b\\u202ec')
    expect(decodeChunk(ctl, 'c', 1).runs[0].subject).toBe('a?b?c')
  })
})

describe('key.json and index.json', () => {
  const key = (over: Record<string, unknown>): string =>
    JSON.stringify({
      schema: 'afpbench-page/1',
      key: '',
      dir: 'default',
      rows: [
        {
          metric: 'lantest.9.afpd_sys_stat',
          kind: 'sys',
          unit: 'syscalls',
          label: 'l',
          test: 'lantest 9',
          family: 'afpd_sys_stat',
          floor: 1
        }
      ],
      chunks: [{ file: 'c0000.json', runs: 10 }],
      steps: [],
      archives: [],
      ...over
    })

  // key.json and rows.json in one text: each reads its part
  const read = (over: Record<string, unknown>) => readKeyData(key(over), key(over), 'key.json')

  it('keeps only steps of known rows at runs that exist', () => {
    const k = read({
      steps: [
        { metric: 'lantest.9.afpd_sys_stat', at: 4, before: 1, after: 2, attribution: 0 },
        { metric: 'lantest.9.afpd_sys_stat', at: 10, before: 1, after: 2, attribution: 0 },
        { metric: 'lantest.1.nope', at: 4, before: 1, after: 2, attribution: 0 },
        { metric: 'lantest.9.afpd_sys_stat', at: 5, before: 1, after: 2, attribution: 99 }
      ]
    })
    expect(k.runs).toBe(10)
    expect(k.steps.map((s) => [s.at, s.attribution])).toEqual([
      [4, 0],
      [5, -1]
    ])
  })

  it('refuses a chunk file name that could lead elsewhere', () => {
    expect(() => read({ chunks: [{ file: '../../x.json', runs: 1 }] })).toThrow(/cNNNN/)
    expect(() => read({ dir: '../x' })).toThrow(/directory/)
    // rows.json of another kind
    expect(() => readKeyData(key({}), '{"schema":"x/1"}', 'k')).toThrow(/rows.json/)
  })

  it('reads the index, leaving out keys it cannot name and links it cannot trust', () => {
    const i = readIndex(
      JSON.stringify({
        schema: 'afpbench-page/1',
        repoUrl: 'javascript:alert(1)',
        keys: [
          { key: '', dir: 'default', runs: 5, first: 'a', last: 'b' },
          { key: 'x', dir: '../etc', runs: 1 }
        ]
      })
    )
    expect(i.repoUrl).toBe('')
    expect(i.keys.map((k) => k.dir)).toEqual(['default'])
  })

  it('takes https repository addresses only', () => {
    expect(safeRepoUrl('https://github.com/Netatalk/netatalk/')).toBe(
      'https://github.com/Netatalk/netatalk'
    )
    expect(safeRepoUrl('https://ghe.example.com:8443/o/r')).toBe('https://ghe.example.com:8443/o/r')
    for (const bad of [
      'http://github.com/o/r',
      'javascript:x',
      'https://github.com/o/r?x=1',
      'https://a b/c',
      'https://github.com/o/"r'
    ])
      expect(safeRepoUrl(bad)).toBe('')
  })
})
