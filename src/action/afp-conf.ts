// An afp.conf given for a compose server (afp-conf, base-afp-conf): served the
// way `scripts/local-server start --afp-conf FILE` serves one, its [Global]
// lines and those of its one volume section becoming the server entrypoint's
// AFP_EXTRA_GLOBAL and AFP_EXTRA_VOLUME. One script checks such a file for
// both, scripts/afp-conf; this asks it.

import { spawnSync } from 'node:child_process'
import path from 'node:path'

export interface AfpConfSettings {
  global: string[] // lines of [Global], as written
  volume: string[] // lines of the one volume section
  ignored: string[] // why lines were left out ([Homes])
}

const SCHEMA = 'afpbench-afp-conf/1'

// The settings of FILE, or an Error with scripts/afp-conf's reason ("line 3:
// …"); the caller names the input.
export function readAfpConf(actionDir: string, file: string): AfpConfSettings {
  const script = path.join(actionDir, 'scripts', 'afp-conf')
  const r = spawnSync(script, [file], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    encoding: 'utf8',
    timeout: 30_000
  })
  if (r.error) throw new Error(`could not run ${script}: ${r.error.message}`)
  if (r.status !== 0)
    throw new Error(r.stderr.match(/error: (.*)/)?.[1] ?? (r.stderr.trim() || `exited ${r.status}`))
  const out = JSON.parse(r.stdout) as Partial<AfpConfSettings> & { schema?: string }
  if (out.schema !== SCHEMA) throw new Error(`${script} answered something else than ${SCHEMA}`)
  return { global: out.global ?? [], volume: out.volume ?? [], ignored: out.ignored ?? [] }
}
