// The post step: stop and remove the compose stack the main step started, even
// when the job failed or was cancelled. Nothing to do for host:port or publish.

import * as core from '@actions/core'
import { composeCommands } from './compose.js'
import { State } from './names.js'
import { childEnv, type Runner } from './runner.js'

export async function teardown(run: Runner, env: NodeJS.ProcessEnv): Promise<void> {
  const project = core.getState(State.ComposeProject)
  const file = core.getState(State.ComposeFile)
  const instr = core.getState(State.ComposeInstr) === 'true'
  if (project === '' || file === '') {
    core.info('No compose stack was started: nothing to tear down.')
    return
  }
  try {
    const status = await core.group('Tear down the compose stack', () =>
      run('docker', composeCommands.down({ project, file, instr }), { env: childEnv(env, {}) })
    )
    if (status !== 0)
      core.warning(
        `docker compose down exited ${status}; the stack '${project}' may be left running`
      )
  } catch (e) {
    core.warning(`docker compose down failed: ${e instanceof Error ? e.message : String(e)}`)
  }
}
