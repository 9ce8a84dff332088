// Lint the example workflows with actionlint (which also runs shellcheck on
// their run: scripts). actionlint is a Go program: taken from PATH, or built
// once from the Go module proxy into the cache directory outside the checkout.

import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'

const VERSION = 'v1.7.12'
const cache = process.env.AFPBENCH_CACHE || '/var/cache/afpbench'

function onPath(program) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, program))) return path.join(dir, program)
  }
  return null
}

function actionlint() {
  const found = onPath('actionlint')
  if (found) return found
  const gobin = path.join(cache, `actionlint-${VERSION}`)
  const bin = path.join(gobin, 'actionlint')
  if (existsSync(bin)) return bin
  if (!onPath('go')) {
    console.error(
      'actionlint: not on PATH and no Go toolchain to build it (install actionlint or Go)'
    )
    process.exit(2)
  }
  console.error(`actionlint: building ${VERSION} into ${gobin}`)
  execFileSync('go', ['install', `github.com/rhysd/actionlint/cmd/actionlint@${VERSION}`], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: gobin, GOFLAGS: '-mod=mod' }
  })
  return bin
}

const files = readdirSync('examples')
  .filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'))
  .map((f) => path.join('examples', f))
try {
  execFileSync(actionlint(), files, { stdio: 'inherit' })
  console.error(`actionlint: ${files.length} example workflows clean`)
} catch {
  process.exit(1)
}
