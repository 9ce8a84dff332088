// The gate's settings table (scripts/settings.json): every setting of
// scripts/gate with its environment name, the input that sets it, its default
// and grammar. The action does not check the values the gate reads: it asks
// scripts/plan once, which checks each by its grammar and answers with the
// run's plan, or with what is wrong (said of the input that set it). The
// action keeps the plan, adds what it read of the history, and runs it.

import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
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
  doc: string
  empty?: string // what empty means, where the gate derives a default
}

export const SETTINGS_SCHEMA = 'afpbench-settings/1'
export const PLAN_SCHEMA = 'afpbench-plan/2'
const PLAN_TIMEOUT_MS = 30_000
// The grammars of settings that name a file, a tree or a package: the action
// works each out from its input (a path in the workspace, the bundled
// baseline, the history) rather than passing the input as written.
const WORKED_OUT = new Set(['any', 'file', 'afp-conf', 'netatalk-source', 'netatalk-version'])

export function readSettingsTable(actionDir: string): Setting[] {
  const file = path.join(actionDir, 'scripts', 'settings.json')
  const table = JSON.parse(readFileSync(file, 'utf8')) as { schema?: string; settings?: Setting[] }
  if (table.schema !== SETTINGS_SCHEMA || !Array.isArray(table.settings))
    throw new Error(`${file} is not the settings table (${SETTINGS_SCHEMA})`)
  return table.settings
}

// The plan's settings an input sets as it is written: those of a grammar the
// gate checks (settings.test.ts holds each input to one action.yml has).
export function inputSettings(table: Setting[]): Array<Setting & { input: InputName }> {
  return table.filter(
    (s): s is Setting & { input: InputName } =>
      s.input !== null && s.compose === 'plan' && !WORKED_OUT.has(s.grammar)
  )
}

// A file the plan carries whole (scripts/plan's files): its name as the
// workflow gave it, its sha256 and its content.
export interface CarriedFile {
  name: string
  sha256: string
  content: Record<string, unknown>
  commit?: string // the reference's: main's commit whose run it is
}

// A server of the plan: what serves it and the afp.conf settings it serves.
export interface PlanServer {
  netatalk_version: string
  netatalk_source: { path: string; commit: string | null; dirty: boolean } | null
  afp_conf: { global: string[]; volume: string[] }
  cnid_scheme: string
}

// A run's plan (scripts/plan, docs/settings.md): the whole run but its place.
export interface Plan {
  schema: typeof PLAN_SCHEMA
  settings: Record<string, string>
  server: PlanServer
  base_server: PlanServer | null
  files: Record<string, CarriedFile | null>
  derived: Record<string, unknown>
}

// The run's plan, made once by scripts/plan from these settings (the
// environment it reads: the inputs' settings, the files and the server as the
// action worked them out). Only PATH and the settings reach it: the job's
// environment cannot change the answer. Throws what refused() makes of a
// refusal (an InputError naming the input).
export function makePlan(
  actionDir: string,
  settings: Record<string, string>,
  table: Setting[]
): Plan {
  const script = path.join(actionDir, 'scripts', 'plan')
  const r = spawnSync(script, [], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...settings },
    encoding: 'utf8',
    timeout: PLAN_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024
  })
  if (r.error) throw new Error(`could not run ${script}: ${r.error.message}`)
  if (r.status !== 0)
    throw refusal(
      (r.stderr.match(/error: (.*)/)?.[1] ?? r.stderr.trim()) || `exited ${r.status}`,
      settings,
      table
    )
  const answer = JSON.parse(r.stdout) as Partial<Plan>
  if (answer.schema !== PLAN_SCHEMA || typeof answer.settings !== 'object')
    throw new Error(`${script} answered something else than ${PLAN_SCHEMA}`)
  return answer as Plan
}

// A file the action read (the history's trend or reference: JSON it wrote
// itself), carried by the plan like the ones scripts/plan carries.
export function carried(file: string, name: string): CarriedFile {
  const text = readFileSync(file)
  const content = JSON.parse(text.toString('utf8')) as Record<string, unknown>
  return {
    name,
    sha256: createHash('sha256').update(text).digest('hex'),
    content,
    ...(typeof content.commit === 'string' ? { commit: content.commit } : {})
  }
}

// The plan with the files the action read of the history (trend.json for the
// report; reference.json, main's run that judges the counts), written to
// FILE for scripts/gate --plan (or, staged, for the compose client).
export function writePlan(
  plan: Plan | null,
  history: { trend: string; reference: string },
  file: string
): void {
  if (plan === null) throw new Error('internal: a run without a plan (publish mode)')
  const files = { ...plan.files }
  if (history.trend !== '') files.trend = carried(history.trend, 'trend.json')
  if (history.reference !== '') files.reference = carried(history.reference, 'reference.json')
  writeFileSync(file, JSON.stringify({ ...plan, files }) + '\n')
}

// compose.yaml's variables for the plan's servers (scripts/plan
// --compose-env: the one translation of a plan's server section, shared
// with scripts/run-gate).
export function composeServerEnv(actionDir: string, planFile: string): Record<string, string> {
  const script = path.join(actionDir, 'scripts', 'plan')
  const r = spawnSync(script, ['--compose-env', planFile], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    encoding: 'utf8',
    timeout: PLAN_TIMEOUT_MS
  })
  if (r.error || r.status !== 0)
    throw new Error(
      `${script} --compose-env ${planFile}: ${r.error?.message ?? (r.stderr.trim() || `exited ${r.status}`)}`
    )
  return JSON.parse(r.stdout) as Record<string, string>
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
  if (named === undefined) return new Error(`scripts/plan: ${said}`)
  let words = said.replace(/^[A-Z_]+='(?:[^']*)': /, '').replace(/^[A-Z_]+=[^:]*: /, '')
  for (const s of fromInputs)
    words = words
      .replace(new RegExp(`\\b${s.env}='`, 'g'), "'")
      .replace(new RegExp(`\\b${s.env}\\b`, 'g'), `'${s.input ?? ''}'`)
  const input = named.s.input ?? ''
  // "input 'instructions': counts …", not "input 'instructions': 'instructions' counts …"
  return new InputError(input, words.replace(new RegExp(`^'${input}' `), ''))
}
