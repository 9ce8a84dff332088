// Fetching the page's data files (page-data.ts) from beside the page, each
// checked and bounded as it is read.

import {
  chunkFile,
  CHUNK_RUNS,
  decodeChunk,
  MAX_RUNS,
  MAX_FILE_BYTES,
  readIndex,
  readKeyData,
  type KeyData,
  type PageIndex,
  type PageRun
} from '../page-data.js'

export interface Loaded {
  data: KeyData
  runs: PageRun[]
  values: Map<string, (number | null)[]> // metric -> one figure per run
}

async function fetchText(url: string): Promise<string> {
  const res = await fetch(url, { cache: 'no-cache', credentials: 'omit' })
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`)
  const size = Number(res.headers.get('content-length') ?? 0)
  if (size > MAX_FILE_BYTES) throw new Error(`${url} is larger than ${MAX_FILE_BYTES} bytes`)
  return res.text()
}

export async function loadIndex(): Promise<PageIndex> {
  return readIndex(await fetchText('data/index.json'))
}

// indexRuns: how many runs the index says the key has. Its chunks' names follow from it
// (c0000.json, c0001.json, ...), so they are fetched with key.json rather than
// after it: one round trip less. key.json still says what each holds.
export async function loadKey(dir: string, indexRuns: number): Promise<Loaded> {
  const base = `data/${encodeURIComponent(dir)}/`
  const early = new Map<string, Promise<string>>()
  for (let i = 0; i * CHUNK_RUNS < Math.min(indexRuns, MAX_RUNS); i++) {
    const p = fetchText(base + chunkFile(i))
    // a guess key.json does not name is never awaited: no unhandled rejection
    p.catch(() => undefined)
    early.set(chunkFile(i), p)
  }
  const [key, rows] = await Promise.all([
    fetchText(`${base}key.json`),
    fetchText(`${base}rows.json`)
  ])
  const data = readKeyData(key, rows, `${base}key.json`)
  const chunks = await Promise.all(
    data.chunks.map(async (c) =>
      decodeChunk(await (early.get(c.file) ?? fetchText(base + c.file)), base + c.file, c.runs)
    )
  )
  const runs = chunks.flatMap((c) => c.runs)
  const values = new Map<string, (number | null)[]>()
  for (const row of data.rows) {
    const xs: (number | null)[] = []
    for (const c of chunks) {
      const part = c.values.get(row.metric)
      for (let i = 0; i < c.runs.length; i++) xs.push(part?.[i] ?? null)
    }
    values.set(row.metric, xs)
  }
  return { data, runs, values }
}
