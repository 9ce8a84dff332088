// End to end: the action's own release (README.md#releases). The real
// scripts/release, as .github/workflows/release.yml runs it, against the fake
// GitHub API (fake-github.ts) and a local bare repository as origin: a small
// fixture repository (package.json 1.2.0, a CHANGELOG.md with sections), cloned
// and checked out at the tag the way actions/checkout does. curl is run through
// a shim that records its argv, so the token can be looked for there too.

import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { FakeGitHubServer } from './fake-github.js'
import { REPO_ROOT } from './harness.js'

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'release')
const TOKEN = 'ghs_releaseTokenThatMustNeverBePrinted'

const CHANGELOG_1_2_0 = `# Changelog

## [Unreleased]

## [1.2.0] - 2026-01-02

### Added

- the widget
- the widget's manual

## [1.1.0] - 2025-12-01

- older things

[1.2.0]: https://example.invalid/compare/v1.1.0...v1.2.0
`
const NOTES_1_2_0 = "### Added\n\n- the widget\n- the widget's manual"
const NOTES_1_2_1 = '### Fixed\n\n- the widget on Tuesdays'

const api = new FakeGitHubServer()
const tmp = mkdtempSync(path.join(os.tmpdir(), 'afpbench-e2e-release-'))
const home = path.join(tmp, 'home')
const shims = path.join(tmp, 'bin')
const curlLog = path.join(tmp, 'curl-argv.log')
const outputs: string[] = [] // the test's runs' output, for the token check
let fixtures = 0

const gitEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Release Tester',
  GIT_AUTHOR_EMAIL: 'release@example.invalid',
  GIT_COMMITTER_NAME: 'Release Tester',
  GIT_COMMITTER_EMAIL: 'release@example.invalid'
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: gitEnv,
    encoding: 'utf8'
  })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} in ${cwd}: ${r.stderr}`)
  return r.stdout.trim()
}

interface Fixture {
  work: string // where commits and tags are made
  origin: string // the bare repository: GitHub's side
}

// A tiny repository with package.json VERSION and CHANGELOG.md, its main branch
// pushed to a bare origin.
function fixture(version: string, changelog: string | null): Fixture {
  const dir = path.join(tmp, `fixture-${++fixtures}`)
  const work = path.join(dir, 'work')
  const origin = path.join(dir, 'origin.git')
  mkdirSync(work, { recursive: true })
  git(dir, 'init', '-q', '--bare', origin)
  git(work, 'init', '-q')
  git(work, 'remote', 'add', 'origin', origin)
  writeFileSync(path.join(work, 'README.md'), 'a tiny action\n')
  git(work, 'add', '.')
  git(work, 'commit', '-q', '-m', 'start')
  commit(work, version, changelog, `release: ${version}`)
  git(work, 'push', '-q', 'origin', 'main')
  return { work, origin }
}

function commit(work: string, version: string, changelog: string | null, message: string): void {
  writeFileSync(
    path.join(work, 'package.json'),
    JSON.stringify({ name: 'tiny-action', version }, null, 2) + '\n'
  )
  if (changelog === null) rmSync(path.join(work, 'CHANGELOG.md'), { force: true })
  else writeFileSync(path.join(work, 'CHANGELOG.md'), changelog)
  git(work, 'add', '-A')
  git(work, 'commit', '-q', '-m', message)
}

// Tag HEAD of work (annotated, as a maintainer would) and push the tag.
function pushTag(f: Fixture, tag: string, annotated = true): string {
  if (annotated) git(f.work, 'tag', '-a', '-m', tag, tag)
  else git(f.work, 'tag', tag)
  git(f.work, 'push', '-q', 'origin', tag)
  return git(f.work, 'rev-parse', `${tag}^{commit}`)
}

// What actions/checkout leaves for a tag push: a fresh clone at the tag.
function checkout(f: Fixture, tag: string): string {
  const dir = mkdtempSync(path.join(path.dirname(f.work), 'checkout-'))
  git(dir, 'clone', '-q', f.origin, '.')
  git(dir, 'checkout', '-q', '--detach', tag)
  return dir
}

// origin's tag, as the commit it names; '' when there is none.
function originTag(f: Fixture, tag: string): string {
  const r = spawnSync(
    'git',
    ['--git-dir', f.origin, 'rev-parse', '-q', '--verify', `refs/tags/${tag}`],
    {
      env: gitEnv,
      encoding: 'utf8'
    }
  )
  return r.status === 0 ? r.stdout.trim() : ''
}

interface Run {
  status: number
  out: string
}

// scripts/release TAG in CWD with a clean environment. Not spawnSync: the fake
// API answers from this process, so the script must run while it listens.
async function release(cwd: string, tag: string): Promise<Run> {
  const env = {
    PATH: `${shims}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    TMPDIR: tmp,
    GIT_CONFIG_NOSYSTEM: '1',
    GITHUB_API_URL: api.url,
    GITHUB_REPOSITORY: 'o/r',
    GITHUB_TOKEN: TOKEN
  }
  const child = spawn(SCRIPT, [tag], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const status = await new Promise<number>((resolve) =>
    child.on('close', (code) => resolve(code ?? -1))
  )
  outputs.push(out)
  return { status, out }
}

beforeAll(async () => {
  mkdirSync(home)
  mkdirSync(shims)
  // curl, recording its argv (one line a call) before it runs
  const realCurl = spawnSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim()
  writeFileSync(
    path.join(shims, 'curl'),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${curlLog}'\nexec '${realCurl}' "$@"\n`
  )
  chmodSync(path.join(shims, 'curl'), 0o755)
  await api.start()
})

beforeEach(() => {
  api.releases = []
  api.requests = []
  api.denyWith = null
  outputs.length = 0
  writeFileSync(curlLog, '')
})

// Whatever a test ran, success or error: the token in no output and no curl argv.
afterEach(() => {
  for (const out of outputs) expect(out, 'the output').not.toContain(TOKEN)
  expect(readFileSync(curlLog, 'utf8'), "curl's argv").not.toContain(TOKEN)
})

afterAll(async () => {
  await api.stop()
  rmSync(tmp, { recursive: true, force: true })
})

describe('scripts/release: a tag vX.Y.Z releases with its CHANGELOG section and moves vX', () => {
  it('creates the release with only its section as notes and moves v1 to the tagged commit', async () => {
    const f = fixture('1.2.0', CHANGELOG_1_2_0)
    const commit = pushTag(f, 'v1.2.0')
    const r = await release(checkout(f, 'v1.2.0'), 'v1.2.0')
    expect(r.status, r.out).toBe(0)
    expect(api.releases).toEqual([
      { id: expect.any(Number) as number, tag: 'v1.2.0', name: 'v1.2.0', body: NOTES_1_2_0 }
    ])
    expect(api.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      'GET /repos/o/r/releases/tags/v1.2.0',
      'POST /repos/o/r/releases'
    ])
    expect(api.requests[1].body).toEqual({
      tag_name: 'v1.2.0',
      name: 'v1.2.0',
      body: NOTES_1_2_0
    })
    // v1 on origin: a plain tag naming the commit, not a copy of the annotated tag
    expect(originTag(f, 'v1')).toBe(commit)
    // one line a step
    expect(r.out.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^release: tag v1\.2\.0 is package\.json's version 1\.2\.0, at [0-9a-f]{40} on origin$/
      ),
      "release: notes: CHANGELOG.md's [1.2.0] section, 4 lines",
      'release: created the release v1.2.0: https://github.com/octo-org/afp-server/releases/tag/v1.2.0',
      `release: v1 now points at v1.2.0 (${commit}) on origin`
    ])
  })

  it('a second release, v1.2.1, moves v1 again and leaves v1.2.0 where it was', async () => {
    const f = fixture('1.2.0', CHANGELOG_1_2_0)
    const first = pushTag(f, 'v1.2.0')
    expect((await release(checkout(f, 'v1.2.0'), 'v1.2.0')).status).toBe(0)
    commit(
      f.work,
      '1.2.1',
      CHANGELOG_1_2_0.replace(
        '## [1.2.0]',
        `## [1.2.1] - 2026-01-09\n\n${NOTES_1_2_1}\n\n## [1.2.0]`
      ),
      'release: 1.2.1'
    )
    git(f.work, 'push', '-q', 'origin', 'main')
    const second = pushTag(f, 'v1.2.1', false)
    expect(second).not.toBe(first)

    const r = await release(checkout(f, 'v1.2.1'), 'v1.2.1')
    expect(r.status, r.out).toBe(0)
    expect(originTag(f, 'v1')).toBe(second)
    expect(git(f.work, '--git-dir', f.origin, 'rev-parse', 'refs/tags/v1.2.0^{commit}')).toBe(first)
    expect(api.releases.map((x) => [x.tag, x.body])).toEqual([
      ['v1.2.0', NOTES_1_2_0],
      ['v1.2.1', NOTES_1_2_1]
    ])
  })

  it('a re-run of the same tag updates its release (PATCH) instead of failing', async () => {
    const f = fixture('1.2.0', CHANGELOG_1_2_0)
    const commit = pushTag(f, 'v1.2.0')
    const dir = checkout(f, 'v1.2.0')
    expect((await release(dir, 'v1.2.0')).status).toBe(0)
    const id = api.releases[0].id
    api.releases[0].body = 'edited by hand' // so the update shows
    api.releases[0].name = 'by hand'
    api.requests = []

    const r = await release(dir, 'v1.2.0')
    expect(r.status, r.out).toBe(0)
    expect(api.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      'GET /repos/o/r/releases/tags/v1.2.0',
      `PATCH /repos/o/r/releases/${id}`
    ])
    expect(api.releases).toEqual([{ id, tag: 'v1.2.0', name: 'v1.2.0', body: NOTES_1_2_0 }])
    expect(r.out).toContain('release: updated the release v1.2.0')
    expect(originTag(f, 'v1')).toBe(commit)
  })
})

describe('scripts/release: nothing is released when a check fails', () => {
  // No request to the API at all, and no major tag on origin.
  function nothingReleased(f: Fixture): void {
    expect(api.requests).toEqual([])
    expect(api.releases).toEqual([])
    expect(originTag(f, 'v1')).toBe('')
  }

  it("a tag that is not package.json's version", async () => {
    const f = fixture('1.2.0', CHANGELOG_1_2_0)
    pushTag(f, 'v1.3.0')
    const r = await release(checkout(f, 'v1.3.0'), 'v1.3.0')
    expect(r.status).not.toBe(0)
    expect(r.out).toContain(
      "release: error: tag v1.3.0 does not match package.json's version '1.2.0'"
    )
    nothingReleased(f)
  })

  it('a CHANGELOG.md without the version: no section, an empty section, no file', async () => {
    const cases: Array<[string | null, RegExp]> = [
      [
        CHANGELOG_1_2_0.replace('## [1.2.0] - 2026-01-02', '## [1.1.9] - 2026-01-02'),
        /release: error: CHANGELOG\.md has no '## \[1\.2\.0\]' section/
      ],
      [
        CHANGELOG_1_2_0.replace(/(## \[1\.2\.0\][^\n]*\n)[^]*?(## \[1\.1\.0\])/, '$1\n  \n$2'),
        /release: error: CHANGELOG\.md's '## \[1\.2\.0\]' section is empty/
      ],
      [null, /release: error: no CHANGELOG\.md here/]
    ]
    for (const [changelog, message] of cases) {
      const f = fixture('1.2.0', changelog)
      pushTag(f, 'v1.2.0')
      const r = await release(checkout(f, 'v1.2.0'), 'v1.2.0')
      expect(r.status, String(message)).not.toBe(0)
      expect(r.out).toMatch(message)
      nothingReleased(f)
    }
  })

  it('a tag that is not on origin', async () => {
    const f = fixture('1.2.0', CHANGELOG_1_2_0)
    git(f.work, 'tag', 'v1.2.0')
    const r = await release(f.work, 'v1.2.0')
    expect(r.status).not.toBe(0)
    expect(r.out).toContain("release: error: origin's tag v1.2.0 is 'missing'")
    nothingReleased(f)
  })

  it('the API refusing the token (HTTP 403): the status and its message, no v1', async () => {
    const f = fixture('1.2.0', CHANGELOG_1_2_0)
    pushTag(f, 'v1.2.0')
    api.denyWith = 403
    const r = await release(checkout(f, 'v1.2.0'), 'v1.2.0')
    expect(r.status).not.toBe(0)
    expect(r.out).toContain(
      'release: error: GET /repos/o/r/releases/tags/v1.2.0: GitHub answered HTTP 403: Resource not accessible by integration'
    )
    expect(api.releases).toEqual([])
    expect(originTag(f, 'v1')).toBe('')
  })

  it('origin refusing the push of v1: the release stands, the two commands to move it by hand', async () => {
    const f = fixture('1.2.0', CHANGELOG_1_2_0)
    const commit = pushTag(f, 'v1.2.0')
    const hook = path.join(f.origin, 'hooks', 'pre-receive')
    writeFileSync(
      hook,
      '#!/bin/sh\nwhile read -r old new ref; do\n  [ "$ref" = refs/tags/v1 ] && { echo "refusing $ref" >&2; exit 1; }\ndone\nexit 0\n'
    )
    chmodSync(hook, 0o755)
    const r = await release(checkout(f, 'v1.2.0'), 'v1.2.0')
    expect(r.status).not.toBe(0)
    expect(api.releases.map((x) => x.tag)).toEqual(['v1.2.0'])
    expect(originTag(f, 'v1')).toBe('')
    expect(r.out).toContain(`  git tag -f v1 ${commit}\n  git push -f origin refs/tags/v1\n`)
    expect(r.out).toContain('release: error: could not push v1 to origin')
  })
})

describe('scripts/release: the token', () => {
  it('goes in the Authorization header of every request, and nowhere else', async () => {
    const f = fixture('1.2.0', CHANGELOG_1_2_0)
    pushTag(f, 'v1.2.0')
    const r = await release(checkout(f, 'v1.2.0'), 'v1.2.0')
    expect(r.status, r.out).toBe(0)
    expect(api.requests.length).toBe(2)
    for (const q of api.requests) expect(q.authorization).toBe(`Bearer ${TOKEN}`)
    // curl ran (its argv was recorded), without the token in it
    expect(readFileSync(curlLog, 'utf8')).toContain(`${api.url}/repos/o/r/releases`)
    // afterEach: not in the output
  })
})
