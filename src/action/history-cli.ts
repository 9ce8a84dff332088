// The history's own rules for scripts that are not the action (bundled as
// dist/history-cli.js; scripts/backfill runs it with node): where a record
// goes in the data branch's layout, which records a directory holds, and the
// steps in a series (drift.ts, the rule the trend uses: one rule, not a
// copy in bash).
//
//   node dist/history-cli.js put DIR RECORD.json     write it at its path under DIR; print the path
//   node dist/history-cli.js commits DIR [KEY]       the runs of KEY under DIR: commit TAB source TAB path
//   node dist/history-cli.js steps RECORD.json...    the steps in these records, in this order (JSON)
//
// Exit 0; 3 with a message naming the cause (a file that is not a record, a
// directory that cannot be written).

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { parseRecord, RecordError, type HistoryRecord } from './history-record.js'
import { filesUnder, keyDir, runPath } from './history-layout.js'
import { stepsOf } from './trend.js'

const MAX_FILES = 100_000

function readRecord(file: string): HistoryRecord {
  return parseRecord(readFileSync(file, 'utf8'), file)
}

// put: the record checked as a reader checks it, written whole (a rename)
function put(dir: string, file: string): string {
  const record = readRecord(file)
  const rel = runPath(record)
  const dest = path.join(dir, rel)
  mkdirSync(path.dirname(dest), { recursive: true })
  const tmp = `${dest}.tmp-${process.pid}`
  writeFileSync(tmp, `${JSON.stringify(record)}\n`)
  renameSync(tmp, dest)
  return rel
}

// every *.json under dir, sorted by path (the data branch's order: as measured)
function jsonFiles(dir: string): string[] {
  return filesUnder(dir, MAX_FILES)
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.join(dir, f))
}

function commits(dir: string, key: string): string[] {
  const runs = path.join(dir, 'runs', keyDir(key))
  return jsonFiles(runs).map((f) => {
    const r = readRecord(f)
    return `${r.commit}\t${r.source ?? 'measured'}\t${path.relative(dir, f)}`
  })
}

function main(argv: string[]): void {
  const [command, ...args] = argv
  if (command === 'put' && args.length === 2) {
    process.stdout.write(`${put(args[0], args[1])}\n`)
  } else if (command === 'commits' && (args.length === 1 || args.length === 2)) {
    const lines = commits(args[0], args[1] ?? '')
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`)
  } else if (command === 'steps' && args.length > 0) {
    process.stdout.write(`${JSON.stringify(stepsOf(args.map(readRecord)))}\n`)
  } else {
    throw new RecordError(
      'usage: history-cli.js put DIR RECORD.json | commits DIR [KEY] | steps RECORD.json...'
    )
  }
}

try {
  main(process.argv.slice(2))
} catch (e) {
  process.stderr.write(`history-cli: error: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exitCode = 3
}
