// base-afp-conf is served as scripts/local-server --afp-conf serves a file:
// the same lines pass, the same ones are refused.
import { describe, expect, it } from 'vitest'
import { parseAfpConf } from './afp-conf.js'

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
    ['[Global]\nafp port = 549\n', /line 2: 'afp port' is set by the action/],
    ['[Global]\nCNID   Listen = 1.2.3.4:4700\n', /line 2: 'cnid listen' is set/],
    ['[v]\npath = /srv\n', /line 2: 'path' is set by the action/],
    ['[v]\nvol dbpath = /x\n', /'vol dbpath'/],
    ['[a]\nea = ad\n[b]\nea = sys\n', /line 3: a second volume section \[b\]/],
    ['ea = ad\n', /line 1: a setting before any \[section\]/],
    ['[Global]\njust words\n', /line 2: not 'key = value'/],
    ['[Global]\nlog file = /x\u001b[31m\n', /line 2: contains a control character/]
  ])('refuses %j', (text, message) => {
    expect(() => parseAfpConf(text)).toThrow(message)
  })
})
