// The tables of the docs, generated so they cannot drift from their source:
// the action's inputs and outputs from action.yml (and, as code, its inputs'
// names and defaults: src/action/action-inputs.ts), the gate's settings from
// scripts/settings.json, the lantest tests from scripts/lantest-tests.json
// (afpbench's own table, `afpbench lantest --list --json`). `node src/action/build/action-docs.mjs FILE...`
// rewrites the tables between their markers in each FILE; action-docs.test.ts
// and settings.test.ts fail when a committed table differs from what this
// renders.

import { readFileSync, writeFileSync } from 'node:fs'
import { parse } from 'yaml'

export const MARKERS = {
  inputs: ['<!-- action-inputs:start -->', '<!-- action-inputs:end -->'],
  outputs: ['<!-- action-outputs:start -->', '<!-- action-outputs:end -->'],
  settings: ['<!-- gate-settings:start -->', '<!-- gate-settings:end -->'],
  tests: ['<!-- lantest-tests:start -->', '<!-- lantest-tests:end -->']
}

function cell(text) {
  return String(text).replace(/\s+/g, ' ').trim().replaceAll('|', '\\|')
}

function code(text) {
  return text === '' ? '' : `\`${text}\``
}

// The gate's settings, by group, from scripts/settings.json's text.
export function renderSettings(settingsJson) {
  const table = JSON.parse(settingsJson)
  const rows = table.settings.map((s) => {
    const input = s.input === null ? '' : `\`${s.input}\``
    const dflt = s.default !== '' ? code(cell(s.default)) : s.empty ? `(${cell(s.empty)})` : ''
    return `| \`${s.env}\` | ${cell(s.group)} | ${input} | ${dflt} | ${cell(s.doc)} |`
  })
  return [
    '| setting | group | action input | default | what it does |',
    '|---|---|---|---|---|',
    ...rows
  ].join('\n')
}

// The lantest tests, from scripts/lantest-tests.json's text.
export function renderTests(catalogueJson) {
  const rows = JSON.parse(catalogueJson).tests.map(
    (t) =>
      `| ${t.id} | ${cell(t.name)} | ${t.group} | ${t.commands.join(', ')} | ${t.needs.join(', ')} |`
  )
  return [
    '| test | name | group | AFP commands it times | runs with |',
    '|--:|---|---|---|---|',
    ...rows
  ].join('\n')
}

export function renderTables(actionYml, settingsJson, catalogueJson) {
  const action = parse(actionYml)
  const inputs = Object.entries(action.inputs ?? {}).map(
    ([name, i]) => `| \`${name}\` | ${code(cell(i.default ?? ''))} | ${cell(i.description ?? '')} |`
  )
  const outputs = Object.entries(action.outputs ?? {}).map(
    ([name, o]) => `| \`${name}\` | ${cell(o.description ?? '')} |`
  )
  return {
    inputs: ['| input | default | what it does |', '|---|---|---|', ...inputs].join('\n'),
    outputs: ['| output | what it holds |', '|---|---|', ...outputs].join('\n'),
    settings: settingsJson === undefined ? '' : renderSettings(settingsJson),
    tests: catalogueJson === undefined ? '' : renderTests(catalogueJson)
  }
}

// The text with each marked table replaced; markers missing from the text are
// left alone (a file may carry only one of the tables).
export function updateTables(text, tables) {
  let out = text
  for (const [key, [start, end]] of Object.entries(MARKERS)) {
    const a = out.indexOf(start)
    const b = out.indexOf(end)
    if (a < 0 || b < a) continue
    out = `${out.slice(0, a + start.length)}\n${tables[key]}\n${out.slice(b)}`
  }
  return out
}

// The action's inputs as code (src/action/action-inputs.ts): each input's
// name under a PascalCase key, and its default, from action.yml. Unformatted:
// the caller formats it with the project's prettier settings.
export const INPUTS_MODULE = 'src/action/action-inputs.ts'
export function renderInputsModule(actionYml) {
  const inputs = Object.entries(parse(actionYml).inputs ?? {})
  const key = (name) =>
    name
      .split('-')
      .map((p) => p[0].toUpperCase() + p.slice(1))
      .join('')
  const str = (text) => `'${String(text).replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
  return [
    '// Generated from action.yml by `npm run docs` (src/action/build/action-docs.mjs):',
    '// edit action.yml, not this file (action-docs.test.ts fails when they differ).',
    '',
    '// Every input of the action, by the name action.yml gives it.',
    'export const Input = {',
    ...inputs.map(([name]) => `  ${key(name)}: ${str(name)},`),
    '} as const',
    '',
    "// An input's name, as action.yml spells it.",
    'export type InputName = (typeof Input)[keyof typeof Input]',
    '',
    "// action.yml's defaults. They apply when an input is not set (as when dist/",
    '// is run by hand), and when it is empty, except for EMPTY_MEANS_OFF (inputs.ts).',
    'export const DEFAULTS: Record<InputName, string> = {',
    ...inputs.map(([name, i]) => `  [Input.${key(name)}]: ${str(i.default ?? '')},`),
    '}',
    ''
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tables = renderTables(
    readFileSync('action.yml', 'utf8'),
    readFileSync('scripts/settings.json', 'utf8'),
    readFileSync('scripts/lantest-tests.json', 'utf8')
  )
  for (const file of process.argv.slice(2)) {
    writeFileSync(file, updateTables(readFileSync(file, 'utf8'), tables))
  }
  const prettier = await import('prettier')
  const options = JSON.parse(readFileSync('.prettierrc.json', 'utf8'))
  writeFileSync(
    INPUTS_MODULE,
    await prettier.format(renderInputsModule(readFileSync('action.yml', 'utf8')), {
      ...options,
      parser: 'typescript'
    })
  )
}
