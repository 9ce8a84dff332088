// afp-conf and base-afp-conf are served as scripts/local-server --afp-conf
// serves a file: one script, scripts/afp-conf, checks them for both.
import { mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { readAfpConf } from './afp-conf.js'

const REPO = path.resolve(import.meta.dirname, '..', '..')
const dir = mkdtempSync(path.join(os.tmpdir(), 'afp-conf-'))
let files = 0

// The settings of an afp.conf holding TEXT, as scripts/afp-conf reads them.
function parseAfpConf(text: string): ReturnType<typeof readAfpConf> {
  const file = path.join(dir, `${++files}.conf`)
  writeFileSync(file, text)
  return readAfpConf(REPO, file)
}

describe('parseAfpConf', () => {
  it('takes [Global] and the one volume section, skips comments and blank lines, keeps CRLF files', () => {
    const text = [
      '# a comment',
      '; another',
      '',
      '[Global]',
      '  server quantum = 262144',
      'log level = default:warn',
      '[Time Machine]',
      'ea = ad\r',
      'cnid scheme = dbd'
    ].join('\n')
    expect(parseAfpConf(text)).toEqual({
      global: ['  server quantum = 262144', 'log level = default:warn'],
      volume: ['ea = ad', 'cnid scheme = dbd'],
      ignored: []
    })
  })

  it('[Homes] is not served: its lines are left out and said so', () => {
    expect(parseAfpConf('[Homes]\nbasedir regex = /home\n')).toEqual({
      global: [],
      volume: [],
      ignored: ['line 2: [Homes] is not served; ignored']
    })
  })

  it.each([
    ['[Global]\nafp port = 549\n', /line 2: 'afp port' is set by afpbench/],
    ['[Global]\nCNID   Listen = 1.2.3.4:4700\n', /line 2: 'cnid listen' is set/],
    ['[v]\npath = /srv\n', /line 2: 'path' is set by afpbench/],
    ['[v]\nvol dbpath = /x\n', /'vol dbpath'/],
    ['[a]\nea = ad\n[b]\nea = sys\n', /line 3: a second volume section \[b\]/],
    ['ea = ad\n', /line 1: a setting before any \[section\]/],
    ['[Global]\njust words\n', /line 2: not 'key = value'/],
    ['[Global]\nlog file = /x\u001b[31m\n', /line 2: contains a control character/]
  ])('refuses %j', (text, message) => {
    expect(() => parseAfpConf(text)).toThrow(message)
  })

  it('refuses a file of more than 64 KiB', () => {
    expect(() => parseAfpConf(`[Global]\n${'; padding\n'.repeat(8000)}`)).toThrow(
      /is larger than 65536 bytes/
    )
  })
})
