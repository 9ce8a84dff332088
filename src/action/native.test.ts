import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildAfpbench, ensureTools, findOnPath, installCommands, missingTools } from './native.js'
import type { Runner } from './runner.js'
import { childEnv } from './runner.js'

function binDir(programs: string[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bin-'))
  for (const p of programs) {
    writeFileSync(path.join(dir, p), '#!/bin/sh\n')
    chmodSync(path.join(dir, p), 0o755)
  }
  return dir
}

function recordingRunner(status = 0): Runner & { calls: Array<[string, string[]]> } {
  const calls: Array<[string, string[]]> = []
  const run = (async (cmd: string, args: string[]) => {
    calls.push([cmd, args])
    return Promise.resolve(status)
  }) as Runner & { calls: Array<[string, string[]]> }
  run.calls = calls
  return run
}

describe('tools', () => {
  it('finds executables on PATH only', () => {
    const dir = binDir(['jq'])
    writeFileSync(path.join(dir, 'gnuplot'), 'not executable')
    expect(findOnPath('jq', dir)).toBe(path.join(dir, 'jq'))
    expect(findOnPath('gnuplot', dir)).toBeNull()
    expect(missingTools(dir)).toEqual(['make', 'cc', 'gnuplot'])
  })

  it('installs what is missing with apt-get, through sudo -n when not root', () => {
    expect(installCommands(['jq', 'gnuplot-nox'], false)).toEqual([
      ['sudo', ['-n', 'apt-get', 'update', '-qq']],
      [
        'sudo',
        ['-n', 'apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'jq', 'gnuplot-nox']
      ]
    ])
    expect(installCommands(['jq'], true)[1]).toEqual([
      'apt-get',
      ['install', '-y', '-qq', '--no-install-recommends', 'jq']
    ])
  })

  it('runs nothing when every tool is there', async () => {
    const run = recordingRunner()
    await ensureTools(run, { PATH: binDir(['make', 'cc', 'jq', 'gnuplot']) }, true)
    expect(run.calls).toEqual([])
  })

  it('fails with the packages named when installing fails', async () => {
    const run = recordingRunner(100)
    await expect(ensureTools(run, { PATH: binDir(['make', 'cc']) }, true)).rejects.toThrow(
      /installing jq, gnuplot-nox failed \(apt-get exited 100\)/
    )
  })

  it('fails when the tools are still missing after installing', async () => {
    const run = recordingRunner(0)
    await expect(ensureTools(run, { PATH: binDir(['make', 'cc', 'jq']) }, true)).rejects.toThrow(
      /gnuplot still not found/
    )
  })
})

describe('buildAfpbench', () => {
  it('runs make on the action’s own source and returns the binary', async () => {
    const run = recordingRunner(0)
    expect(await buildAfpbench(run, '/action', {})).toBe('/action/src/afpbench/afpbench')
    expect(run.calls).toEqual([['make', ['-C', '/action/src/afpbench', '-s']]])
  })

  it('a failed build is an error', async () => {
    await expect(buildAfpbench(recordingRunner(2), '/action', {})).rejects.toThrow(/make exited 2/)
  })
})

describe('childEnv', () => {
  it('keeps the job environment but not the action inputs (the password is one)', () => {
    const env = childEnv(
      { PATH: '/bin', 'INPUT_AFP-PASSWORD': 'secret', INPUT_MODE: 'gate' },
      { AFP_HOST: 'h' }
    )
    expect(env).toEqual({ PATH: '/bin', AFP_HOST: 'h' })
  })
})
