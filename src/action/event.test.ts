import { writeFileSync, mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { describeEvent, readEventPayload } from './event.js'

const fixture = (name: string): Record<string, unknown> =>
  readEventPayload(path.join(import.meta.dirname, 'fixtures', 'events', name))

const REPO = 'octo-org/afp-server'
const SHA = 'ffffffffffffffffffffffffffffffffffffffff'

describe('describeEvent', () => {
  it('a same-repository pull_request: its number and head, not a fork', () => {
    expect(describeEvent('pull_request', fixture('pull_request.json'), REPO, SHA)).toMatchObject({
      pullRequest: 42,
      headSha: '8f2c1d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d',
      fork: false
    })
  })

  it('a pull_request from a fork is a fork', () => {
    expect(
      describeEvent('pull_request', fixture('pull_request_fork.json'), REPO, SHA)
    ).toMatchObject({
      pullRequest: 43,
      fork: true,
      headRepository: 'mona/afp-server'
    })
  })

  it('a pull_request from a deleted fork (head.repo null) is a fork', () => {
    const payload = fixture('pull_request_fork.json')
    const pr = payload.pull_request as { head: { repo: unknown } }
    pr.head.repo = null
    expect(describeEvent('pull_request', payload, REPO, SHA).fork).toBe(true)
  })

  it('a same-repo PR in a repository that is itself a fork is not a fork PR', () => {
    const payload = fixture('pull_request.json')
    const pr = payload.pull_request as {
      head: { repo: { fork: boolean } }
      base: { repo: { fork: boolean } }
    }
    pr.head.repo.fork = true
    pr.base.repo.fork = true
    expect(describeEvent('pull_request', payload, REPO, SHA).fork).toBe(false)
  })

  it('pull_request_target runs with the base repository token: not treated as read-only', () => {
    expect(
      describeEvent('pull_request_target', fixture('pull_request_fork.json'), REPO, SHA).fork
    ).toBe(false)
  })

  it.each(['push.json', 'release.json'])('%s has no pull request', (file) => {
    const name = file.replace('.json', '')
    expect(describeEvent(name, fixture(file), REPO, SHA)).toMatchObject({
      pullRequest: null,
      fork: false,
      headSha: SHA
    })
  })

  it('workflow_run from a fork: the run, its head, and no PR number (GitHub leaves the list empty)', () => {
    expect(
      describeEvent('workflow_run', fixture('workflow_run_fork.json'), REPO, SHA)
    ).toMatchObject({
      pullRequest: null,
      headSha: 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',
      workflowRun: {
        id: 30433642,
        headSha: 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',
        event: 'pull_request'
      }
    })
  })

  it('ignores wrongly typed fields instead of trusting them', () => {
    const info = describeEvent(
      'pull_request',
      { pull_request: { number: '42; rm', head: 'x' } },
      REPO,
      SHA
    )
    expect(info.pullRequest).toBeNull()
    expect(info.headSha).toBe(SHA)
  })
})

describe('readEventPayload', () => {
  it('no GITHUB_EVENT_PATH: an empty payload', () => {
    expect(readEventPayload(undefined)).toEqual({})
  })

  it('a payload that is not an object becomes empty', () => {
    const f = path.join(mkdtempSync(path.join(os.tmpdir(), 'evt-')), 'e.json')
    writeFileSync(f, '[1,2]')
    expect(readEventPayload(f)).toEqual({})
  })

  it('a payload that is not JSON is an error', () => {
    const f = path.join(mkdtempSync(path.join(os.tmpdir(), 'evt-')), 'e.json')
    writeFileSync(f, '{nope')
    expect(() => readEventPayload(f)).toThrow(SyntaxError)
  })
})
