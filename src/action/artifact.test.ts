import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  artifactServiceAvailable,
  artifactUrl,
  uploadResults,
  type ArtifactUploader
} from './artifact.js'

// Stands in for @actions/artifact's client, which needs GitHub's artifact
// service (ACTIONS_RUNTIME_TOKEN / ACTIONS_RESULTS_URL) that exists only in a job.
class FakeUploader implements ArtifactUploader {
  calls: Array<{ name: string; files: string[]; root: string }> = []
  async uploadArtifact(
    name: string,
    files: string[],
    root: string
  ): Promise<{ id: number; size: number }> {
    this.calls.push({ name, files, root })
    return Promise.resolve({ id: 99, size: 123 })
  }
}

function results(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'artifact-'))
  mkdirSync(path.join(dir, 'charts'))
  writeFileSync(path.join(dir, 'verdict.json'), '{}')
  writeFileSync(path.join(dir, 'charts', 'a.png'), 'x')
  return dir
}

describe('uploadResults', () => {
  it('uploads every file of the results directory, relative to it', async () => {
    const dir = results()
    const up = new FakeUploader()
    expect(await uploadResults(up, 'afpbench-results', dir)).toEqual({
      uploaded: true,
      id: 99,
      files: 2
    })
    expect(up.calls).toEqual([
      {
        name: 'afpbench-results',
        files: [path.join(dir, 'charts', 'a.png'), path.join(dir, 'verdict.json')],
        root: dir
      }
    ])
  })

  it('skips without the artifact service, and says why', async () => {
    const res = await uploadResults(null, 'afpbench-results', results())
    expect(res).toMatchObject({
      uploaded: false,
      reason: expect.stringMatching(/ACTIONS_RUNTIME_TOKEN/) as unknown
    })
  })

  it('skips when artifact-name is empty', async () => {
    const up = new FakeUploader()
    expect((await uploadResults(up, '', results())).uploaded).toBe(false)
    expect(up.calls).toEqual([])
  })

  it('skips an empty results directory', async () => {
    const up = new FakeUploader()
    const dir = mkdtempSync(path.join(os.tmpdir(), 'artifact-'))
    expect(await uploadResults(up, 'n', dir)).toMatchObject({ uploaded: false })
  })

  it("links the artifact's own page from the run and the id the upload returned", () => {
    expect(artifactUrl('https://github.com', 'octo-org/afp-server', 9001, 99)).toBe(
      'https://github.com/octo-org/afp-server/actions/runs/9001/artifacts/99'
    )
    // GitHub Enterprise: its own server URL, a trailing slash dropped
    expect(artifactUrl('https://ghe.example/', 'o/r', 7, 5)).toBe(
      'https://ghe.example/o/r/actions/runs/7/artifacts/5'
    )
  })

  it('no link without a run, an artifact id or a repository', () => {
    expect(artifactUrl('https://github.com', 'o/r', null, 99)).toBe('')
    expect(artifactUrl('https://github.com', 'o/r', 1, undefined)).toBe('')
    expect(artifactUrl('https://github.com', '', 1, 99)).toBe('')
    expect(artifactUrl('https://github.com', 'o/r', 1, 0)).toBe('')
    expect(artifactUrl('https://github.com', 'o/r', 1, Number.NaN)).toBe('')
  })

  it('the service is there only with both variables', () => {
    expect(artifactServiceAvailable({ ACTIONS_RUNTIME_TOKEN: 't', ACTIONS_RESULTS_URL: 'u' })).toBe(
      true
    )
    expect(artifactServiceAvailable({ ACTIONS_RUNTIME_TOKEN: 't' })).toBe(false)
    expect(artifactServiceAvailable({})).toBe(false)
  })
})
