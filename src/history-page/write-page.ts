// The page, written into a directory: its own files (assets.ts) and the data
// files of every key (site.ts). A directory that holds something else is
// never written into: only an empty one, or a page made before (replaced).

import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import path from 'node:path'
import { pageAssets } from './assets.js'
import { readIndex } from './page-data.js'
import type { DirHistory } from './read-dir.js'
import { indexFile, keyFiles } from './site.js'

export class OutError extends Error {}

export interface Written {
  files: number
  bytes: number // the page and its data
  dataBytes: number // the data files alone
  runs: number
  steps: number
  keys: number
}

// Every file of the page: path under OUT -> content.
export function siteFiles(
  history: DirHistory,
  opts: { repoUrl: string }
): { files: Map<string, string>; runs: number; steps: number } {
  const files = pageAssets()
  let runs = 0
  let steps = 0
  const summaries = []
  for (const k of history.keys) {
    const made = keyFiles(k.dir, k.key, k.records, k.archives)
    for (const [name, content] of made.files) files.set(`data/${k.dir}/${name}`, content)
    summaries.push(made.summary)
    runs += made.data.runs
    steps += made.data.steps.length
  }
  files.set('data/index.json', indexFile(summaries, opts.repoUrl))
  return { files, runs, steps }
}

// OUT may be written: missing, empty, or a page made before.
function checkOut(out: string): void {
  if (!existsSync(out)) return
  if (!lstatSync(out).isDirectory()) throw new OutError(`${out} exists and is not a directory`)
  if (readdirSync(out).length === 0) return
  const index = path.join(out, 'data', 'index.json')
  try {
    readIndex(readFileSync(index, 'utf8'), index)
  } catch {
    throw new OutError(
      `${out} is not empty and holds no history page (data/index.json): give an empty or new directory`
    )
  }
}

export function writePage(history: DirHistory, out: string, opts: { repoUrl: string }): Written {
  checkOut(out)
  const { files, runs, steps } = siteFiles(history, opts)
  // a page made before: its data goes (a key may be gone), its files are rewritten
  rmSync(path.join(out, 'data'), { recursive: true, force: true })
  let bytes = 0
  let dataBytes = 0
  for (const [name, content] of files) {
    const file = path.join(out, name)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, content)
    const n = Buffer.byteLength(content)
    bytes += n
    if (name.startsWith('data/')) dataBytes += n
  }
  return { files: files.size, bytes, dataBytes, runs, steps, keys: history.keys.length }
}
