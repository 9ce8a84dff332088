// Where a run's record goes in the data branch (docs/history.md): the paths
// the action writes through the API and scripts/backfill writes to a
// directory (history-cli.ts). Apart from history-store.ts, so that the
// command-line bundle needs no GitHub client.
//
//   runs/<key>/<YYYY-MM>/<time>-<commit12>-<run>.json   one run
//   releases/<key>/<time>-<tag>.json                    a copy of each release's run

import { readdirSync } from 'node:fs'
import path from 'node:path'
import type { HistoryRecord } from './history-record.js'

// A key as a path component: comment-key, or "default".
export function keyDir(key: string): string {
  const k = key
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 60)
  return k === '' ? 'default' : k
}

// 20261101T000100.123Z: sorts as the runs were measured (to the millisecond)
function stamp(date: string): string {
  return new Date(date).toISOString().replace(/[-:]/g, '')
}

export function runPath(r: HistoryRecord): string {
  const month = r.date.slice(0, 7)
  const run = r.runId !== null ? `-${r.runId}` : ''
  return `runs/${keyDir(r.key)}/${month}/${stamp(r.date)}-${r.commit.slice(0, 12)}${run}.json`
}

export function releasePath(r: HistoryRecord): string {
  const tag = r.release.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 60)
  return `releases/${keyDir(r.key)}/${stamp(r.date)}-${tag}.json`
}

// The files under dir, relative to it and sorted (the data branch's order:
// as measured), at most max of them: a directory of records or a backfill's
// output read without trusting its size; an unreadable directory is skipped.
export function filesUnder(dir: string, max: number): string[] {
  const out: string[] = []
  const walk = (d: string): void => {
    let entries
    try {
      entries = readdirSync(d, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      if (out.length >= max) return
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) out.push(path.relative(dir, p))
    }
  }
  walk(dir)
  return out.sort()
}
