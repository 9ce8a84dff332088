// The opt-in check run: what it sends, and when it sends nothing. The REST
// calls go to the recording fake (testing/fake-api.ts); the real adapter runs
// against the stand-in API in e2e/action.e2e.test.ts.

import { describe, expect, it } from 'vitest'
import { checkRunName, postCheckRun, type CheckRunInput } from './check-run.js'
import type { EventInfo } from './event.js'
import { testEvent } from './testing/event.js'
import { FakeGitHub } from './testing/fake-api.js'

const SHA = 'c0ffee'.padEnd(40, '0')
const log = {
  info: (): void => {},
  warning: (m: string): void => void warnings.push(m),
  notice: (): void => {}
}
let warnings: string[] = []

function event(over: Partial<EventInfo> = {}): EventInfo {
  return testEvent({ name: 'pull_request', pullRequest: 7, headSha: SHA, ref: '', ...over })
}

function input(over: Partial<CheckRunInput> = {}): CheckRunInput {
  return {
    event: event(),
    commentKey: '',
    mode: 'gate',
    commit: SHA,
    status: 'fail',
    headline: 'Directory cache hits: afpd stat calls +26 % (limit 2 %)',
    report: '### ❌ afpbench: **fail** — …\n\nthe rest',
    ...over
  }
}

describe('postCheckRun', () => {
  it('posts the verdict on the commit measured: its conclusion, the headline as title, the report as summary', async () => {
    const api = new FakeGitHub()
    const url = await postCheckRun(api, input(), log)
    expect(url).toMatch(/\/runs\/\d+$/)
    expect(api.checkRuns).toEqual([
      {
        name: 'afpbench',
        headSha: SHA,
        conclusion: 'failure',
        title: 'fail: Directory cache hits: afpd stat calls +26 % (limit 2 %)',
        summary: '### ❌ afpbench: **fail** — …\n\nthe rest'
      }
    ])
  })

  it('maps each verdict, names a matrix slice by its key, and keeps the title to one line of 255', async () => {
    const api = new FakeGitHub()
    await postCheckRun(api, input({ status: 'pass', commentKey: 'sqlite' }), log)
    await postCheckRun(api, input({ status: 'inconclusive', headline: 'x\ny '.repeat(200) }), log)
    await postCheckRun(api, input({ status: 'error', headline: '' }), log)
    expect(api.checkRuns.map((c) => c.conclusion)).toEqual(['success', 'neutral', 'failure'])
    expect(api.checkRuns[0].name).toBe('afpbench (sqlite)')
    expect(checkRunName('')).toBe('afpbench')
    expect(api.checkRuns[1].title).toHaveLength(255)
    expect(api.checkRuns[1].title).not.toContain('\n')
    expect(api.checkRuns[2].title).toBe('error')
  })

  it('makes none for a fork, without a token, or without a commit SHA; a refusal is a warning', async () => {
    const api = new FakeGitHub()
    expect(await postCheckRun(api, input({ event: event({ fork: true }) }), log)).toBe('')
    expect(await postCheckRun(null, input(), log)).toBe('')
    expect(await postCheckRun(api, input({ commit: 'HEAD' }), log)).toBe('')
    expect(api.checkRuns).toEqual([])
    warnings = []
    api.failures.set('createCheckRun', 403)
    expect(await postCheckRun(api, input(), log)).toBe('')
    expect(warnings.join('\n')).toMatch(/checks: write/)
  })
})
