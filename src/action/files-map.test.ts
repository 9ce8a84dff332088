// docs/files.md is the map of the house: every tracked source file has a row
// there that says what it is for (issue 24). A row names its files in its
// first cell, in backticks: a path relative to the directory its section's
// heading names ("## `scripts/` — ..."; "The top level": the repository's
// root), where `*` stands for any characters but "/" (`tests/test_*.c`). A directory named in a row ("`tests/`") lists none of
// the files in it: each has its own row, or a pattern that matches it.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.join(import.meta.dirname, '..', '..')

// The tracked files that are not sources, so no row names them one by one:
const NOT_SOURCES: readonly RegExp[] = [
  /^dist\//, // the bundle `npm run bundle` builds from src/action (the top level's `dist/` row)
  /^package-lock\.json$/, // what npm resolved for package.json, written by npm
  /(^|\/)fixtures\//, // test inputs (real runs, event payloads): described where the tests read them
  /^src\/afpbench\/fuzz\/corpus\//, // the fuzz targets' seed inputs, binary, one directory per target
  /^docs\/img\// // the screenshots README.md shows
]

// A backticked name of a first cell, with its section's directory, as a
// regular expression over paths.
function namePattern(name: string): string {
  return name
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*')
}

// The patterns of every row's first cell.
function listedPatterns(markdown: string): RegExp[] {
  const patterns: RegExp[] = []
  let dir = ''
  for (const line of markdown.split('\n')) {
    const heading = /^#{2,}\s+(.*)$/.exec(line)
    if (heading) {
      dir = /^`([^`]+\/)`/.exec(heading[1])?.[1] ?? ''
      continue
    }
    const cell = /^\|([^|]*)\|/.exec(line)?.[1] ?? ''
    for (const [, name] of cell.matchAll(/`([^`]+)`/g)) {
      patterns.push(new RegExp(`^${namePattern(dir + name)}$`))
    }
  }
  return patterns
}

// The sources among the files that no row names.
function unlisted(files: readonly string[], markdown: string): string[] {
  const patterns = listedPatterns(markdown)
  return files.filter(
    (file) => !NOT_SOURCES.some((re) => re.test(file)) && !patterns.some((re) => re.test(file))
  )
}

describe('docs/files.md', () => {
  it('has a row for every tracked source file', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f !== '')
    expect(files.length).toBeGreaterThan(100)
    const markdown = readFileSync(path.join(ROOT, 'docs', 'files.md'), 'utf8')
    expect(unlisted(files, markdown), 'tracked files docs/files.md has no row for').toEqual([])
  })

  it('names the files no row lists (the check can fail)', () => {
    const markdown = [
      '## `src/afpbench/` — the C client',
      '| file | owns |',
      '|---|---|',
      '| `main.c`, `tests/test_*.c` | ... |',
      '| `tests/` | unit tests (`harness.c` here names nothing) |',
      '## `scripts/` — the pipeline',
      '| `gate` | ... |',
      '## The top level',
      '| `action.yml`, `scripts/compare` | ... |'
    ].join('\n')
    const files = [
      'src/afpbench/main.c',
      'src/afpbench/tests/test_buf.c',
      'src/afpbench/tests/harness.c',
      'src/afpbench/tests/sub/test_x.c',
      'scripts/gate',
      'scripts/compare',
      'scripts/plot',
      'action.yml',
      'main.c',
      'dist/index.js',
      'src/action/fixtures/events/push.json'
    ]
    expect(unlisted(files, markdown)).toEqual([
      'src/afpbench/tests/harness.c',
      'src/afpbench/tests/sub/test_x.c',
      'scripts/plot',
      'main.c'
    ])
  })
})

// The feature table (docs/files.md, "Features"): rows of "| **name** (`word`,
// ...): ... | `path`, ... |", paths from the repository's root.
function features(markdown: string): Array<{ name: string; words: string[]; files: string[] }> {
  const at = markdown.indexOf('## Features')
  const section = markdown.slice(at, markdown.indexOf('\n## ', at + 1))
  return section
    .split('\n')
    .map((line) => /^\| \*\*([a-z ]+)\*\* \(([^)]*)\)[^|]*\|([^|]*)\|$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({
      name: m[1],
      words: [...m[2].matchAll(/`([^`]+)`/g)].map((w) => w[1]),
      files: [...m[3].matchAll(/`([^`]+)`/g)].map((f) => f[1])
    }))
}

// The tracked sources whose file name holds WORD as one of its words.
function named(files: readonly string[], word: string): string[] {
  return files.filter(
    (f) =>
      !NOT_SOURCES.some((re) => re.test(f)) &&
      (f.split('/').pop() ?? '')
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .includes(word)
  )
}

describe("docs/files.md's feature table", () => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '')
  const table = features(readFileSync(path.join(ROOT, 'docs', 'files.md'), 'utf8'))

  it('names the features, each with its words and files', () => {
    expect(table.map((f) => f.name)).toEqual(
      expect.arrayContaining(['plan', 'attribution', 'reference', 'bisect', 'history'])
    )
    for (const f of table) expect(f.words.length * f.files.length, f.name).toBeGreaterThan(0)
  })

  it("names only files that exist, and every file that holds a feature's word", () => {
    for (const f of table) {
      expect(
        f.files.filter((p) => !files.includes(p)),
        `${f.name}: files that are not tracked`
      ).toEqual([])
      const missing = f.words.flatMap((w) => named(files, w)).filter((p) => !f.files.includes(p))
      expect(missing, `${f.name}: files that hold its word and are not in its row`).toEqual([])
    }
  })

  it("a file holding a feature's word outside its row is named (the check can fail)", () => {
    expect(
      named(['scripts/attribute', 'src/afpbench/attribution.c', 'scripts/gate'], 'attribution')
    ).toEqual(['src/afpbench/attribution.c'])
  })
})
