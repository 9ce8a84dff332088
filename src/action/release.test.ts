// Releases of the action itself (README.md#releases): users pin the major tag
// (afpbench/afpbench-action@v1), which the release workflow moves to each vX.Y.Z it
// releases. So every page and example names one major version, the one of
// package.json's version; CHANGELOG.md has that version's section (the release's
// notes); and the release workflow runs on full version tags only and moves the major.

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
const ACTION = 'afpbench/afpbench-action@'
const WORKFLOW = '.github/workflows/release.yml'

const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8')

// The pages and examples a user copies `uses:` lines from.
function userFiles(): string[] {
  const inDir = (dir: string, ext: string): string[] =>
    readdirSync(path.join(ROOT, dir))
      .filter((f) => f.endsWith(ext))
      .sort()
      .map((f) => `${dir}/${f}`)
  return ['README.md', ...inDir('docs', '.md'), ...inDir('examples', '.yml')]
}

interface Ref {
  where: string // file:line
  ref: string // what follows the @
  major: number | null // N of vN, vN.x.y or vN.M.P; null for anything else
}

// Every afpbench/afpbench-action@REF in a file, with the major version it names.
export function actionRefs(name: string, text: string): Ref[] {
  const refs: Ref[] = []
  for (const [i, line] of text.split('\n').entries())
    for (const m of line.matchAll(/afpbench\/afpbench-action@([^\s`'"),]*)/g)) {
      const v = /^v(\d+)(?:\.(?:\d+|x)\.(?:\d+|y))?$/.exec(m[1])
      refs.push({ where: `${name}:${i + 1}`, ref: m[1], major: v ? Number(v[1]) : null })
    }
  return refs
}

// The references that do not name major version MAJOR, as "file:line: @ref".
export function wrongRefs(refs: Ref[], major: number): string[] {
  return refs.filter((r) => r.major !== major).map((r) => `${r.where}: @${r.ref}`)
}

// A GitHub filter pattern (the subset a tag pattern uses: literals, [...], +, *) as a
// regular expression.
export function filterPattern(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (c === '[') {
      const end = glob.indexOf(']', i)
      re += glob.slice(i, end + 1)
      i = end
    } else if (c === '+') re += '+'
    else if (c === '*') re += glob[i + 1] === '*' ? '.*' : '[^/]*'
    else re += c.replace(/[.?^${}()|\\]/g, '\\$&')
    if (c === '*' && glob[i + 1] === '*') i++
  }
  return new RegExp(`^${re}$`)
}

const pkg = JSON.parse(read('package.json')) as { version: string }
const semver = /^(\d+)\.(\d+)\.(\d+)$/.exec(pkg.version)
const major = Number(semver?.[1])

describe("one major version: package.json's, in every page and example", () => {
  const refs = userFiles().flatMap((f) => actionRefs(f, read(f)))

  it('package.json has a version X.Y.Z', () => {
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/)
  })

  it('finds the uses: lines of README.md, docs/ and examples/', () => {
    const files = new Set(refs.map((r) => r.where.split(':')[0]))
    expect([...files]).toEqual(
      expect.arrayContaining(['README.md', 'docs/action.md', 'examples/pull-request.yml'])
    )
  })

  it(`every afpbench/afpbench-action@ names v${major}, package.json's major`, () => {
    expect(wrongRefs(refs, major)).toEqual([])
  })

  it(`action.yml exists and README.md names @v${major}`, () => {
    expect(existsSync(path.join(ROOT, 'action.yml'))).toBe(true)
    expect(read('README.md')).toContain(`${ACTION}v${major}`)
  })

  it(`CHANGELOG.md has a section for ${pkg.version}, not empty`, () => {
    const changelog = read('CHANGELOG.md')
    const lines = changelog.split('\n')
    const start = lines.findIndex((l) => l.startsWith(`## [${pkg.version}]`))
    expect(start, `no "## [${pkg.version}]" in CHANGELOG.md`).toBeGreaterThanOrEqual(0)
    const next = lines.findIndex((l, i) => i > start && /^(## |\[[^\]]*\]: )/.test(l))
    const body = lines.slice(start + 1, next < 0 ? undefined : next).join('\n')
    expect(body.trim()).not.toBe('')
  })
})

interface Step {
  uses?: string
  run?: string
  env?: Record<string, string>
}

interface Workflow {
  on?: { push?: { tags?: string[] } }
  permissions?: Record<string, string>
  jobs?: Record<string, { steps?: Step[] }>
}

const SCRIPT = 'scripts/release'

describe(`${WORKFLOW} and ${SCRIPT}: full version tags release and move the major tag`, () => {
  const workflow = parse(read(WORKFLOW)) as Workflow
  const steps = Object.values(workflow.jobs ?? {}).flatMap((j) => j.steps ?? [])
  const runs = steps.map((s) => s.run ?? '')
  const tags = workflow.on?.push?.tags ?? []
  const script = read(SCRIPT)
  // the script's test of its argument, as a regular expression (bash's ERE, the same here)
  const tagTest = /\[\[ \$tag =~ (\S+) \]\]/.exec(script)?.[1] ?? '^$'

  it('runs on a push of v + three numbers, and not of the major tag it moves', () => {
    expect(tags).toEqual(['v[0-9]+.[0-9]+.[0-9]+'])
    const pattern = filterPattern(tags[0])
    expect(`v${pkg.version}`).toMatch(pattern)
    expect('v1.22.333').toMatch(pattern)
    for (const other of [`v${major}`, `v${major}.1`, `v${pkg.version}-rc1`, pkg.version])
      expect(other).not.toMatch(pattern)
  })

  it('may write the repository (the release and the tag) and nothing else', () => {
    expect(workflow.permissions).toEqual({ contents: 'write' })
  })

  it('checks dist/, then runs scripts/release on the tag with the job token', () => {
    const dist = runs.findIndex((r) => /npm run check-dist/.test(r))
    const release = runs.findIndex((r) => r.trim() === `${SCRIPT} "$TAG"`)
    expect(dist).toBeGreaterThan(0)
    expect(release).toBeGreaterThan(dist)
    expect(release).toBe(steps.length - 1)
    expect(steps[release].env).toEqual({ GITHUB_TOKEN: '${{ github.token }}' })
  })

  it(`${SCRIPT} checks the tag against package.json and CHANGELOG.md, then releases, then moves the major tag`, () => {
    const at = (re: RegExp): number => script.search(re)
    const order = [
      /\[\[ \$pkg_version == "\$version" \]\]/, // the tag is v + package.json's version
      /git ls-remote origin "refs\/tags\/\$tag"/, // and on origin
      /die "CHANGELOG\.md has no/, // the section
      /die "CHANGELOG\.md's .* section is empty/,
      /api GET "\$path"/, // the release
      /api POST "\$path"/,
      /git tag -f "\$major" "\$commit"/, // the major tag
      /git push -q -f origin "refs\/tags\/\$major"/
    ]
    for (const re of order) expect(at(re), String(re)).toBeGreaterThan(0)
    const found = order.map(at)
    expect(found).toEqual([...found].sort((a, b) => a - b))
  })

  it('every tag the workflow runs on is one scripts/release takes, and its major is vX', () => {
    const takes = new RegExp(tagTest)
    for (const tag of [`v${pkg.version}`, 'v1.22.333']) expect(tag).toMatch(takes)
    for (const other of [`v${major}`, `v${pkg.version}-rc1`, pkg.version])
      expect(other).not.toMatch(takes)
    // the major is v + the first number the test captures
    expect(script).toContain('major=v${BASH_REMATCH[1]}')
    expect(`v${takes.exec(`v${pkg.version}`)?.[1]}`).toBe(`v${major}`)
  })

  it('pins actions to major tags', () => {
    const uses = steps.flatMap((s) => (s.uses ? [s.uses] : []))
    expect(uses).toEqual(['actions/checkout@v4', 'actions/setup-node@v4'])
  })
})

describe('the checks themselves catch what they are for', () => {
  it('a page naming another major, a branch or a fixed release', () => {
    const text =
      '      - uses: afpbench/afpbench-action@v1\n' +
      '`uses: afpbench/afpbench-action@v1.x.y` and afpbench/afpbench-action@v1.2.3,\n' +
      '        uses: afpbench/afpbench-action@v2\n' +
      '      - uses: afpbench/afpbench-action@main\n' +
      "      - uses: 'afpbench/afpbench-action@v1.2'\n"
    const refs = actionRefs('x.md', text)
    expect(refs.map((r) => r.ref)).toEqual(['v1', 'v1.x.y', 'v1.2.3', 'v2', 'main', 'v1.2'])
    expect(wrongRefs(refs, 1)).toEqual(['x.md:3: @v2', 'x.md:4: @main', 'x.md:5: @v1.2'])
    expect(wrongRefs(refs, 2)).toHaveLength(5)
  })

  it('a filter pattern matches as GitHub does', () => {
    expect(filterPattern('v[0-9]+.[0-9]+.[0-9]+').test('v1x0x0')).toBe(false)
    expect(filterPattern('v*').test('v1.0.0')).toBe(true)
    expect(filterPattern('v*').test('v1/x')).toBe(false)
  })
})
