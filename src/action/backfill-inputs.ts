// The inputs of mode: backfill (backfill.ts, docs/backfill.md), checked once.
// Apart from inputs.ts, which would pass 900 lines; it hands in its value
// parsers, as this module may not import it back.

import { DEFAULTS } from './action-inputs.js'
import { InputError } from './input-error.js'
import { Input, type InputName } from './names.js'

// mode: backfill (backfill.ts, docs/backfill.md)
export interface BackfillConfig {
  repo: string // the netatalk repository (absolute)
  from: string // '' with to: the fan-in, which writes what the slices measured
  to: string
  slice: string // "K/N", '' = the whole range
  budgetSeconds: number
  engine: boolean // build and serve each commit on the Docker engine
  // the iterations input was set: the run's (in gate); else backfill's own, 1
  iterations: boolean
}

// inputs.ts's parsers of a boolean and an integer input (the one check of each)
export interface ValueParsers {
  parseBoolean: (name: string, value: string) => boolean
  parseInteger: (name: string, value: string, min: number, max: number) => number
}

// mode: backfill: the range and the slice to measure, or the fan-in that
// writes what slices measured; the backfill inputs belong to that mode only.
export function parseBackfill(
  get: (name: InputName) => string,
  { parseBoolean, parseInteger }: ValueParsers,
  mode: string,
  netatalkSource: string,
  historyBranch: string,
  workspace: string
): BackfillConfig | null {
  const names = [
    Input.BackfillRange,
    Input.BackfillSlice,
    Input.BackfillBudget,
    Input.BackfillEngine
  ]
  if (mode !== 'backfill') {
    const set = names.find((n) => get(n) !== DEFAULTS[n])
    if (set !== undefined)
      throw new InputError(set, `applies to 'mode: backfill' only (mode is '${mode}')`)
    return null
  }
  const range = get(Input.BackfillRange)
  // revisions as git names them: no spaces, no option-like start
  const rev = '[A-Za-z0-9_][A-Za-z0-9._/@^~{}-]{0,199}'
  const m = new RegExp(`^(${rev})\\.\\.(${rev})$`).exec(range)
  if (range !== '' && (m === null || m[1].endsWith('.') || m[2].startsWith('.')))
    throw new InputError(
      Input.BackfillRange,
      `'${range}' is not FROM..TO (two revisions, e.g. v4.3.2..v4.4.0)`
    )
  const slice = get(Input.BackfillSlice)
  const k = /^([1-9][0-9]{0,2})\/([1-9][0-9]{0,2})$/.exec(slice)
  if (slice !== '' && (k === null || Number(k[1]) > Number(k[2])))
    throw new InputError(Input.BackfillSlice, `'${slice}' is not K/N with 1 <= K <= N <= 999`)
  if (slice !== '' && range === '')
    throw new InputError(Input.BackfillSlice, "needs 'backfill-range': the range it is a slice of")
  if ((slice === '' || range === '') && historyBranch === '')
    throw new InputError(
      Input.HistoryBranch,
      range === ''
        ? "is empty: the backfill's fan-in writes the records to it"
        : 'is empty: a backfill without backfill-slice writes its records to it'
    )
  return {
    repo: netatalkSource !== '' ? netatalkSource : workspace,
    from: m?.[1] ?? '',
    to: m?.[2] ?? '',
    slice,
    budgetSeconds: parseInteger(Input.BackfillBudget, get(Input.BackfillBudget), 1, 360) * 60,
    engine: parseBoolean(Input.BackfillEngine, get(Input.BackfillEngine)),
    iterations: get(Input.Iterations) !== ''
  }
}
