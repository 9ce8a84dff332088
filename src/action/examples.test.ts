// The workflows in examples/ work as written (issue 12): every input of an
// afpbench-action step exists in action.yml, every output read from it too,
// every file an example names exists in this repository or is documented in
// the example's comments as the user's own file, and a source checkout it
// builds from is a path an earlier checkout step made.

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { readAfpConf } from './afp-conf.js'
import { parseSlices } from './inputs.js'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
const EXAMPLES = path.join(ROOT, 'examples')
const ACTION = 'afpbench/afpbench-action@'

interface ActionYml {
  inputs: Record<string, unknown>
  outputs: Record<string, unknown>
}
interface Step {
  id?: string
  uses?: string
  with?: Record<string, string | number | boolean>
  run?: string
  env?: Record<string, unknown>
}
interface Job {
  strategy?: { matrix?: Record<string, unknown> }
  steps?: Step[]
}
interface Workflow {
  jobs?: Record<string, Job>
}

// Inputs that name a file the step reads (baseline only in gate mode: in
// baseline mode it is the file to write), and a directory a checkout makes.
const FILE_INPUTS = ['baseline', 'thresholds', 'afp-conf', 'base-afp-conf']
const SOURCE_INPUTS = ['netatalk-source', 'base-netatalk-source']

// The values ${{ matrix.KEY }} can take: the matrix's own lists and its
// include entries.
function matrixValues(matrix: Record<string, unknown> | undefined, key: string): string[] {
  if (!matrix) return []
  const values: string[] = []
  const list = matrix[key]
  if (Array.isArray(list)) values.push(...list.map(String))
  const include = matrix.include
  if (Array.isArray(include))
    for (const entry of include as Array<Record<string, unknown>>)
      if (key in entry) values.push(String(entry[key]))
  return values
}

// A value with its ${{ matrix.KEY }} expressions expanded over the matrix;
// other expressions are left as they are.
function expand(value: string, job: Job, problems: string[], where: string): string[] {
  const m = /\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}/.exec(value)
  if (!m) return [value]
  const values = matrixValues(job.strategy?.matrix, m[1])
  if (values.length === 0) problems.push(`${where}: matrix.${m[1]} has no values in the matrix`)
  return values.flatMap((v) => expand(value.replace(m[0], v), job, problems, where))
}

function comments(text: string): string {
  return text
    .split('\n')
    .filter((l) => /^\s*#/.test(l) || / # /.test(l))
    .join('\n')
}

// What is wrong with one example workflow ('' problems = none). A snippet
// (a job's steps, or a list of steps) is checked as one job. NOTES: where the
// user's files are documented (default: the workflow's own comments).
export function checkExample(
  name: string,
  text: string,
  action: ActionYml,
  notes = comments(text)
): string[] {
  const problems: string[] = []
  const parsed = parse(text) as Workflow | Job | Step[]
  const workflow: Workflow = Array.isArray(parsed)
    ? { jobs: { snippet: { steps: parsed } } }
    : 'jobs' in parsed
      ? parsed
      : { jobs: { snippet: parsed as Job } }
  let actionSteps = 0
  // a matrix fan-in: the artifacts the gate steps upload, and the slices a
  // publish step expects (each must be one of those artifacts)
  const uploaded = new Set<string>()
  const expected: Array<[string, string[]]> = []
  for (const [jobName, job] of Object.entries(workflow.jobs ?? {})) {
    const checkouts: string[] = []
    const ids = new Set<string>()
    for (const [i, step] of (job.steps ?? []).entries()) {
      const where = `${name}: job ${jobName}, step ${step.id ?? i + 1}`
      if (step.uses?.startsWith('actions/checkout@'))
        checkouts.push(String(step.with?.path ?? '.').replace(/\/+$/, ''))
      if (!step.uses?.startsWith(ACTION)) continue
      actionSteps++
      if (step.id) ids.add(step.id)
      const given = step.with ?? {}
      for (const input of Object.keys(given))
        if (!(input in action.inputs))
          problems.push(`${where}: input '${input}' is not in action.yml`)
      const mode = String(given.mode ?? 'gate')
      if (mode !== 'publish' && given['artifact-name'] !== undefined)
        for (const a of expand(String(given['artifact-name']), job, problems, where))
          uploaded.add(a)
      if (mode === 'publish' && given.slices !== undefined)
        expected.push([where, parseSlices(String(given.slices), 'publish')])
      for (const input of FILE_INPUTS) {
        if (given[input] === undefined || (input === 'baseline' && mode !== 'gate')) continue
        for (const file of expand(String(given[input]), job, problems, where)) {
          if (file === '') continue // an empty value: the input's default
          // a path inside a checkout is that repository's file
          const prefix = checkouts.find((c) => c !== '.' && file.startsWith(`${c}/`))
          const inRepo = prefix ? file.slice(prefix.length + 1) : file
          if (existsSync(path.join(ROOT, file))) {
            if (input.endsWith('afp-conf'))
              try {
                readAfpConf(ROOT, path.join(ROOT, file))
              } catch (e) {
                problems.push(`${where}: ${input} ${file}: ${String(e)}`)
              }
          } else if (!notes.includes(inRepo))
            problems.push(
              `${where}: ${input} '${file}' is neither in this repository nor documented in the example's comments as the user's file`
            )
        }
      }
      for (const input of SOURCE_INPUTS) {
        if (given[input] === undefined) continue
        const dir = String(given[input]).replace(/\/+$/, '')
        if (!checkouts.includes(dir))
          problems.push(`${where}: ${input} '${dir}' is not the path of an earlier checkout step`)
      }
    }
    // ${{ steps.ID.outputs.NAME }} of an afpbench-action step
    for (const m of JSON.stringify(job.steps ?? []).matchAll(
      /steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)/g
    ))
      if (ids.has(m[1]) && !(m[2] in action.outputs))
        problems.push(`${name}: job ${jobName}: output '${m[2]}' is not in action.yml`)
  }
  for (const [where, slices] of expected) {
    const unknown = slices.filter((x) => !uploaded.has(x))
    const unlisted = [...uploaded].filter((a) => !slices.includes(a))
    if (unknown.length > 0)
      problems.push(`${where}: slices ${unknown.join(', ')} are no gate step's artifact-name`)
    if (unlisted.length > 0)
      problems.push(`${where}: the artifacts ${unlisted.join(', ')} are not in slices`)
  }
  if (actionSteps === 0) problems.push(`${name}: no step uses ${ACTION}…`)
  // files of this repository that the comments point to
  for (const m of notes.matchAll(/\bexamples\/[A-Za-z0-9._/-]*[A-Za-z0-9]/g))
    if (!existsSync(path.join(ROOT, m[0])))
      problems.push(`${name}: the comments name ${m[0]}, which is not in this repository`)
  return problems
}

const action = parse(readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as ActionYml
const examples = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yml'))

describe('examples/ work as written', () => {
  it('finds the examples', () => {
    expect(examples).toEqual(
      expect.arrayContaining([
        'pull-request.yml',
        'release-baseline.yml',
        'fork-gate.yml',
        'fork-publish.yml',
        'netatalk-source.yml'
      ])
    )
  })

  it.each(examples)('%s: inputs, outputs and files exist', (file) => {
    expect(checkExample(file, readFileSync(path.join(EXAMPLES, file), 'utf8'), action)).toEqual([])
  })
})

// The workflow snippets of the README and docs/action.md, checked the same way;
// the user's files are documented by the page's prose.
describe.each(['README.md', 'docs/action.md'])(
  '%s: its workflow snippets work as written',
  (doc) => {
    const page = readFileSync(path.join(ROOT, doc), 'utf8')
    const snippets = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => m[1])
      .filter((t) => t.includes(ACTION))

    it('has snippets that use the action', () => {
      expect(snippets.length).toBeGreaterThan(0)
    })

    it.each(snippets.map((t, i) => [i + 1, t]))('snippet %i', (i, text) => {
      expect(checkExample(`${doc} snippet ${i}`, String(text), action, page)).toEqual([])
    })
  }
)

describe('the check itself catches what it is for', () => {
  const step = (inputs: string, top = ''): string =>
    `${top}jobs:\n  j:\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          path: head\n` +
    `      - id: a\n        uses: ${ACTION}v1\n        with:\n${inputs}`

  it('a wrong input name', () => {
    expect(checkExample('x.yml', step('          baselin: b.json\n'), action)).toEqual([
      "x.yml: job j, step a: input 'baselin' is not in action.yml"
    ])
  })

  it('a file that is neither here nor documented, and the same file documented', () => {
    const text = step('          thresholds: .github/afpbench/limits.json\n')
    expect(checkExample('x.yml', text, action)).toEqual([
      "x.yml: job j, step a: thresholds '.github/afpbench/limits.json' is neither in this repository nor documented in the example's comments as the user's file"
    ])
    expect(
      checkExample('x.yml', `# Your files: .github/afpbench/limits.json\n${text}`, action)
    ).toEqual([])
  })

  it('a file inside a checkout is documented by its path in that repository', () => {
    const text = step(
      '          afp-conf: head/.github/afpbench/x.conf\n',
      '# Your files: .github/afpbench/x.conf\n'
    )
    expect(checkExample('x.yml', text, action)).toEqual([])
  })

  it('a matrix value is expanded; a matrix key without values is named', () => {
    const matrix = (values: string): string =>
      `jobs:\n  j:\n    strategy:\n      matrix:\n${values}    steps:\n` +
      `      - id: a\n        uses: ${ACTION}v1\n        with:\n          afp-conf: \${{ matrix.conf }}\n`
    expect(
      checkExample('x.yml', matrix('        conf: [examples/afp-conf/ea-ad.conf]\n'), action)
    ).toEqual([])
    expect(checkExample('x.yml', matrix('        conf: [examples/nope.conf]\n'), action)).toEqual([
      "x.yml: job j, step a: afp-conf 'examples/nope.conf' is neither in this repository nor documented in the example's comments as the user's file"
    ])
    expect(checkExample('x.yml', matrix('        other: [1]\n'), action)).toEqual([
      'x.yml: job j, step a: matrix.conf has no values in the matrix'
    ])
  })

  it("a matrix fan-in's slices that no gate step uploads, and an upload it does not expect", () => {
    const fanIn = (slices: string): string =>
      `jobs:\n  g:\n    strategy:\n      matrix:\n        c: [x, y]\n    steps:\n` +
      `      - uses: ${ACTION}v1\n        with:\n          artifact-name: r-\${{ matrix.c }}\n` +
      `  p:\n    steps:\n      - id: m\n        uses: ${ACTION}v1\n        with:\n` +
      `          mode: publish\n          slices: ${slices}\n`
    expect(checkExample('x.yml', fanIn('r-x, r-y'), action)).toEqual([])
    expect(checkExample('x.yml', fanIn('r-x, r-z'), action)).toEqual([
      "x.yml: job p, step m: slices r-z are no gate step's artifact-name",
      'x.yml: job p, step m: the artifacts r-y are not in slices'
    ])
  })

  it('a source that no checkout made, an unknown output, a dead examples/ reference', () => {
    const text =
      '# start from examples/afp-conf/missing.conf\n' +
      step('          netatalk-source: netatalk\n') +
      '      - run: echo\n        env:\n          V: ${{ steps.a.outputs.verdikt }}\n'
    expect(checkExample('x.yml', text, action)).toEqual([
      "x.yml: job j, step a: netatalk-source 'netatalk' is not the path of an earlier checkout step",
      "x.yml: job j: output 'verdikt' is not in action.yml",
      'x.yml: the comments name examples/afp-conf/missing.conf, which is not in this repository'
    ])
  })
})
