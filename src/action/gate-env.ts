// What scripts/gate is given, from the inputs: the run's plan (made once by
// scripts/plan from planSettings: settings.ts) and the place it runs in (the
// login here; the server, procfs and directories where it runs: measure.ts
// natively, compose.yaml in the client). Every setting of the gate's table
// (scripts/settings.json) that an input sets is set here, empty meaning
// "none" or "the gate's default"; the job's own settings never reach the
// gate or compose (runner.ts, childEnv), so nothing left in the job's
// environment changes the run.

// (the login's fields only: inputs.ts imports this module)
interface Login {
  afpUser: string
  afpPassword: string
  volume: string
}

// What the action read of the default branch's history for this run
// (history.ts, docs/history.md): files, '' = none.
export interface HistoryFiles {
  trend: string // trend.json: the report's Trend section
  reference: string // reference.json: main's run as the counts' reference (a pull request)
}

export const NO_HISTORY: HistoryFiles = { trend: '', reference: '' }

// What the action gives scripts/plan to make the run's plan (settings.ts
// makePlan): the inputs' settings as written, and what it worked out of the
// others: the files (absolute paths), the servers, the commit.
export interface PlanInputs {
  asWritten: Record<string, string> // the table's settings an input sets as written
  baseline: string // '' = none
  baselineMissing: string // a first run: the path the workflow named, not made yet
  baselineName: string // how the report names the baseline
  thresholds: string // '' = none
  instructions: string // where the counts are ('/instr' in compose), '' = off
  baseInstructions: string // A/B: where the base's counts are, '' = off
  netatalkVersion: string
  netatalkSource: string
  afpConf: string
  base: {
    netatalkVersion: string
    netatalkSource: string
    afpConf: string
  } | null
  basePort: string // A/B: the base server's port (it makes the plan an A/B run's)
  commit: string
}

// The environment scripts/plan reads for these inputs. Every setting an
// input sets is set, empty meaning "none" or the table's default.
export function planSettings(p: PlanInputs): Record<string, string> {
  return {
    // what to run and how to judge it, as written
    ...p.asWritten,
    AFPBENCH_BASELINE: p.baseline,
    // A first run: the baseline input names a file not made yet; the report
    // says how to make it (scripts/run-gate --make-baseline).
    AFPBENCH_BASELINE_MISSING: p.baselineMissing,
    // the report names the baseline as the workflow does, not by the path the
    // action read it from
    AFPBENCH_BASELINE_NAME: p.baselineName,
    AFPBENCH_THRESHOLDS: p.thresholds,
    // where the counts will be: it decides what else may run
    AFPBENCH_INSTR_DIR: p.instructions,
    BASE_AFPBENCH_INSTR_DIR: p.baseInstructions,
    // the server under test, and the A/B base's
    NETATALK_VERSION: p.netatalkVersion,
    NETATALK_SOURCE: p.netatalkSource,
    AFP_CONF: p.afpConf,
    BASE_NETATALK_VERSION: p.base?.netatalkVersion ?? '',
    BASE_NETATALK_SOURCE: p.base?.netatalkSource ?? '',
    BASE_AFP_CONF: p.base?.afpConf ?? '',
    // the commit measured (the client container cannot see GITHUB_SHA)
    AFPBENCH_COMMIT: p.commit,
    // not a plan's setting: it makes the plan an A/B run's
    BASE_AFP_PORT: p.basePort
  }
}

// The login, the same on both sides of an A/B run.
export function loginEnv(config: Login): Record<string, string> {
  return {
    AFP_USER: config.afpUser,
    AFP_PASS: config.afpPassword,
    SHARE_NAME: config.volume
  }
}

// The base server of an A/B run, logged into with the head's login: the
// variables scripts/gate reads for it.
export function baseEnv(config: Login, host: string, port: string): Record<string, string> {
  return {
    BASE_AFP_HOST: host,
    BASE_AFP_PORT: port,
    BASE_AFP_USER: config.afpUser,
    BASE_AFP_PASS: config.afpPassword,
    BASE_SHARE_NAME: config.volume
  }
}
