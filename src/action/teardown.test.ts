import { afterEach, describe, expect, it } from 'vitest'
import type { Runner } from './runner.js'
import { teardown } from './teardown.js'

// core.getState reads STATE_<name> variables, which the runner sets for the
// post step from what the main step saved.
afterEach(() => {
  delete process.env['STATE_compose-project']
  delete process.env['STATE_compose-file']
})

function recorder(status: number): Runner & { calls: string[][] } {
  const calls: string[][] = []
  const run = (async (cmd: string, args: string[]) => {
    calls.push([cmd, ...args])
    return Promise.resolve(status)
  }) as Runner & { calls: string[][] }
  run.calls = calls
  return run
}

describe('teardown (post step)', () => {
  it('does nothing when no stack was started', async () => {
    const run = recorder(0)
    await teardown(run, {})
    expect(run.calls).toEqual([])
  })

  it('brings the saved project down with its volumes, A/B and instrumented servers included', async () => {
    process.env['STATE_compose-project'] = 'afpbench-1-1-job'
    process.env['STATE_compose-file'] = '/action/compose.yaml'
    const run = recorder(0)
    await teardown(run, {})
    expect(run.calls).toEqual([
      [
        'docker',
        'compose',
        '--project-name',
        'afpbench-1-1-job',
        '--file',
        '/action/compose.yaml',
        '--profile',
        'ab',
        '--profile',
        'ab-instr',
        '--profile',
        'instr',
        'down',
        '--volumes',
        '--remove-orphans',
        '--timeout',
        '10'
      ]
    ])
  })

  it('a failing down is a warning, not a failed post step', async () => {
    process.env['STATE_compose-project'] = 'p'
    process.env['STATE_compose-file'] = 'f'
    const prev = process.exitCode
    await teardown(recorder(1), {})
    expect(process.exitCode).toBe(prev)
  })
})
