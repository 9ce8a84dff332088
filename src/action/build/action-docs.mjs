// The inputs and outputs tables of the docs, generated from action.yml so they
// cannot drift from it. `node src/action/build/action-docs.mjs FILE...`
// rewrites the tables between their markers in each FILE; action-docs.test.ts
// fails when a committed table differs from what this renders.

import { readFileSync, writeFileSync } from 'node:fs'
import { parse } from 'yaml'

export const MARKERS = {
  inputs: ['<!-- action-inputs:start -->', '<!-- action-inputs:end -->'],
  outputs: ['<!-- action-outputs:start -->', '<!-- action-outputs:end -->']
}

function cell(text) {
  return String(text).replace(/\s+/g, ' ').trim().replaceAll('|', '\\|')
}

function code(text) {
  return text === '' ? '' : `\`${text}\``
}

export function renderTables(actionYml) {
  const action = parse(actionYml)
  const inputs = Object.entries(action.inputs ?? {}).map(
    ([name, i]) => `| \`${name}\` | ${code(cell(i.default ?? ''))} | ${cell(i.description ?? '')} |`
  )
  const outputs = Object.entries(action.outputs ?? {}).map(
    ([name, o]) => `| \`${name}\` | ${cell(o.description ?? '')} |`
  )
  return {
    inputs: ['| input | default | what it does |', '|---|---|---|', ...inputs].join('\n'),
    outputs: ['| output | what it holds |', '|---|---|', ...outputs].join('\n')
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

if (import.meta.url === `file://${process.argv[1]}`) {
  const tables = renderTables(readFileSync('action.yml', 'utf8'))
  for (const file of process.argv.slice(2)) {
    writeFileSync(file, updateTables(readFileSync(file, 'utf8'), tables))
  }
}
