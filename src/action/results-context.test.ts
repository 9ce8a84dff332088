import { mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CONTEXT_FILE } from './names.js'
import { readResultsContext, writeResultsContext } from './results-context.js'

const event = {
  name: 'pull_request',
  repository: 'octo-org/afp-server',
  pullRequest: 43,
  headSha: 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',
  baseSha: '',
  fork: true,
  headRepository: 'mona/afp-server',
  workflowRun: null,
  ref: '',
  defaultBranch: 'main',
  releaseTag: ''
}

describe('action-context.json', () => {
  it('round-trips what a publish job needs', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ctx-'))
    writeResultsContext(dir, event, 5)
    expect(readResultsContext(dir)).toEqual({
      schema: 'afpbench-action-context/1',
      repository: 'octo-org/afp-server',
      event: 'pull_request',
      pull_request: 43,
      head_sha: event.headSha,
      fork: true,
      run_id: 5
    })
  })

  it.each([
    ['missing', null],
    ['not JSON', '{'],
    ['another schema', '{"schema":"other/1","pull_request":1}']
  ])('is ignored when %s', (_what, content) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ctx-'))
    if (content !== null) writeFileSync(path.join(dir, CONTEXT_FILE), content)
    expect(readResultsContext(dir)).toBeNull()
  })

  it('drops a PR number or SHA of the wrong shape', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ctx-'))
    writeFileSync(
      path.join(dir, CONTEXT_FILE),
      JSON.stringify({
        schema: 'afpbench-action-context/1',
        pull_request: -1,
        head_sha: 'HEAD; rm'
      })
    )
    expect(readResultsContext(dir)).toMatchObject({ pull_request: null, head_sha: '' })
  })
})
