// action.yml is the one source of the inputs and outputs: the code's names and
// defaults, and the docs' tables, must match it.
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  INPUTS_MODULE,
  MARKERS,
  renderInputsModule,
  renderTables,
  updateTables
} from './build/action-docs.mjs'
import { DEFAULTS } from './action-inputs.js'
import { Input, Output } from './names.js'

interface ActionYml {
  inputs: Record<string, { default?: string; description?: string }>
  outputs: Record<string, { description?: string }>
  runs: { using: string; main: string; post: string; 'post-if': string }
}

const actionYml = readFileSync('action.yml', 'utf8')
const action = parse(actionYml) as ActionYml
const tables = renderTables(actionYml)

describe('action.yml', () => {
  it('declares exactly the inputs the code reads', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.values(Input).sort())
  })

  it('declares exactly the outputs the code sets', () => {
    expect(Object.keys(action.outputs).sort()).toEqual(Object.values(Output).sort())
  })

  it('is where the code gets its inputs: action-inputs.ts is what npm run docs generates', async () => {
    const prettier = await import('prettier')
    const options = JSON.parse(readFileSync('.prettierrc.json', 'utf8')) as Record<string, unknown>
    expect(readFileSync(INPUTS_MODULE, 'utf8')).toBe(
      await prettier.format(renderInputsModule(actionYml), { ...options, parser: 'typescript' })
    )
  })

  it('has the same defaults as the code', () => {
    const yml = Object.fromEntries(
      Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? ''])
    )
    expect(yml).toEqual(DEFAULTS)
  })

  it('describes every input and output', () => {
    for (const [name, i] of [...Object.entries(action.inputs), ...Object.entries(action.outputs)])
      expect(i.description?.trim(), name).toBeTruthy()
  })

  it('runs the bundle on node24 with an always-run post step', () => {
    expect(action.runs).toEqual({
      using: 'node24',
      main: 'dist/index.js',
      post: 'dist/post.js',
      'post-if': 'always()'
    })
  })
})

// The docs that carry the tables: docs/action.md, and README.md once the lead
// has merged them there (between the same markers).
const docs = ['docs/action.md', 'README.md'].filter(
  (f) => existsSync(f) && readFileSync(f, 'utf8').includes(MARKERS.inputs[0])
)

describe('docs tables match action.yml (npm run docs rewrites them)', () => {
  it('docs/action.md carries the tables', () => {
    expect(docs).toContain('docs/action.md')
  })

  it.each(docs)('%s', (file) => {
    const text = readFileSync(file, 'utf8')
    expect(updateTables(text, tables)).toBe(text)
  })

  it('would notice a drift', () => {
    const text = readFileSync('docs/action.md', 'utf8')
    const stale = text.replace('| `tests` | `all` |', '| `tests` | `1-3` |')
    expect(stale).not.toBe(text)
    expect(updateTables(stale, tables)).not.toBe(stale)
  })
})
