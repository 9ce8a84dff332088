// The gate's settings table (scripts/settings.json): every setting of
// scripts/gate with its environment name, the input that sets it, its default
// and grammar. The action does not check the values the gate reads: it asks
// the gate (scripts/gate --check), which checks each by its grammar and
// answers with the run's plan, or with what is wrong; the answer's setting
// names become the inputs that set them. The plan it runs is the gate's too.

import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { InputError } from './input-error.js'
import type { InputName } from './names.js'

export interface Setting {
  env: string
  input: string | null // the action input that sets it
  default: string // the gate's ('' = none, or derived)
  grammar: string
  compose: 'plan' | 'login' | 'client' | 'client-instr' | null
  group: string
  reproduce: boolean // the report's reproduction commands carry it
  doc: string
  empty?: string // what empty means, where the gate derives a default
}

export const SETTINGS_SCHEMA = 'afpbench-settings/1'
export const PLAN_SCHEMA = 'afpbench-plan/1'
const CHECK_TIMEOUT_MS = 30_000

export function readSettingsTable(actionDir: string): Setting[] {
  const file = path.join(actionDir, 'scripts', 'settings.json')
  const table = JSON.parse(readFileSync(file, 'utf8')) as { schema?: string; settings?: Setting[] }
  if (table.schema !== SETTINGS_SCHEMA || !Array.isArray(table.settings))
    throw new Error(`${file} is not the settings table (${SETTINGS_SCHEMA})`)
  return table.settings
}

// The plan's settings an input sets as it is written: those of a grammar the
// gate checks (settings.test.ts holds each input to one action.yml has). A setting of the grammar 'any' is a file or a name, which the
// action works out from its input (the baseline, the history, the server).
export function inputSettings(table: Setting[]): Array<Setting & { input: InputName }> {
  return table.filter(
    (s): s is Setting & { input: InputName } =>
      s.input !== null && s.compose === 'plan' && s.grammar !== 'any'
  )
}

// The gate's answer to these settings: each, normalised (tests as ranges,
// speedtest's operations by their names, the iterations the gate will run),
// keyed by environment name. Throws an InputError naming the input whose
// setting the gate refused.
export function checkGateSettings(
  actionDir: string,
  settings: Record<string, string>,
  table: Setting[]
): Record<string, string> {
  const plan = gateCheck(actionDir, settings, (said) => refusal(said, settings, table))
  return plan.settings
}

// writePlan: the run's plan (scripts/gate --check: the settings normalised
// and what the gate derives from them) made from the plan's settings and
// written to FILE, for scripts/gate --plan FILE. The settings were checked
// when the inputs were read; a refusal here is the action's bug.
export function writePlan(actionDir: string, settings: Record<string, string>, file: string): void {
  const plan = gateCheck(actionDir, settings, (said) => new Error(`the run's plan: ${said}`))
  writeFileSync(file, JSON.stringify(plan) + '\n')
}

interface Plan {
  schema: string
  settings: Record<string, string>
  derived: Record<string, unknown>
}

// scripts/gate --check on these settings. Only PATH and the settings reach
// the gate: the job's environment cannot change the answer.
function gateCheck(
  actionDir: string,
  settings: Record<string, string>,
  refused: (said: string) => Error
): Plan {
  const gate = path.join(actionDir, 'scripts', 'gate')
  const r = spawnSync(gate, ['--check'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...settings },
    encoding: 'utf8',
    timeout: CHECK_TIMEOUT_MS
  })
  if (r.error) throw new Error(`could not run ${gate} --check: ${r.error.message}`)
  if (r.status !== 0)
    throw refused((r.stderr.match(/error: (.*)/)?.[1] ?? r.stderr.trim()) || `exited ${r.status}`)
  const answer = JSON.parse(r.stdout) as Partial<Plan>
  if (answer.schema !== PLAN_SCHEMA || typeof answer.settings !== 'object')
    throw new Error(`${gate} --check answered something else than ${PLAN_SCHEMA}`)
  return answer as Plan
}

// The gate's message, said of the input that set the first setting it names,
// in the inputs' words: "AFPBENCH_TESTS='13': '13' is not …" becomes
// "input 'tests': '13' is not …", and a setting named in it becomes its input.
function refusal(said: string, given: Record<string, string>, table: Setting[]): Error {
  const fromInputs = table.filter((s) => s.input !== null && s.env in given)
  const named = fromInputs
    .map((s) => ({ s, at: said.search(new RegExp(`\\b${s.env}\\b`)) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at)[0]
  if (named === undefined) return new Error(`scripts/gate: ${said}`)
  let words = said.replace(/^[A-Z_]+='(?:[^']*)': /, '')
  for (const s of fromInputs)
    words = words
      .replace(new RegExp(`\\b${s.env}='`, 'g'), "'")
      .replace(new RegExp(`\\b${s.env}\\b`, 'g'), `'${s.input ?? ''}'`)
  const input = named.s.input ?? ''
  // "input 'instructions': counts …", not "input 'instructions': 'instructions' counts …"
  return new InputError(input, words.replace(new RegExp(`^'${input}' `), ''))
}
