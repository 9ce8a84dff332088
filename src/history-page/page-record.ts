// A data branch's record as the history page reads it: parseRecord's checked
// record (history-record.ts), the optional fields a backfill adds (subject,
// source, reused_from, skip_reason, steps: docs/history.md), each read as
// possibly absent and bounded, and the run's name on the branch.

import { parseRecord, type HistoryRecord } from '../action/history-record.js'
import { attributionsOf, parseJson, text, type PageRun, SOURCES } from './page-data.js'

export interface PageRecord {
  record: HistoryRecord
  run: PageRun
}

// The run's file name on the data branch, without .json: what history-store's
// runPath names it (<time>-<commit12>-<run>; page-record.test.ts pins the two
// together). The page's cache of runs is keyed by it.
export function runName(r: HistoryRecord): string {
  const stamp = new Date(r.date).toISOString().replace(/[-:]/g, '')
  return `${stamp}-${r.commit.slice(0, 12)}${r.runId !== null ? `-${r.runId}` : ''}`
}

// A record file's text, checked; throws RecordError (parseRecord's) or
// PageDataError. archived: read from an archive file (aggregates only).
export function readPageRecord(
  raw: string,
  where: string,
  opts: { id?: string; archived?: boolean } = {}
): PageRecord {
  const record = parseRecord(raw, where)
  // the optional fields, read from the same text (parseRecord keeps the
  // fields every record has)
  const j = parseJson(raw, where)
  const source = SOURCES.find((s) => s === j.source) ?? 'measured'
  const from = text(j.reused_from, 40)
  return {
    record,
    run: {
      id: opts.id ?? runName(record),
      commit: record.commit,
      date: record.date,
      runId: record.runId,
      release: record.release,
      subject: text(j.subject, 200),
      source,
      reusedFrom: /^[0-9a-f]{40}$/.test(from) ? from : '',
      skipReason: source === 'skipped' ? text(j.skip_reason, 300) : '',
      archived: opts.archived === true,
      provenance: record.provenance,
      steps: attributionsOf(j.steps)
    }
  }
}
