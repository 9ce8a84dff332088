// action-context.json: what a gate run records next to its results so that a
// later `mode: publish` job (fork PRs) knows which pull request they belong to.
// Read back as untrusted input: the artifact may come from a fork's workflow.

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { EventInfo } from './event.js'
import { CONTEXT_FILE, CONTEXT_SCHEMA } from './names.js'

export interface ResultsContext {
  schema: string
  repository: string
  event: string
  pull_request: number | null
  head_sha: string
  fork: boolean
  run_id: number | null
}

export function writeResultsContext(
  resultsDir: string,
  event: EventInfo,
  runId: number | null
): void {
  const ctx: ResultsContext = {
    schema: CONTEXT_SCHEMA,
    repository: event.repository,
    event: event.name,
    pull_request: event.pullRequest,
    head_sha: event.headSha,
    fork: event.fork,
    run_id: runId
  }
  writeFileSync(path.join(resultsDir, CONTEXT_FILE), `${JSON.stringify(ctx, null, 2)}\n`)
}

export function readResultsContext(resultsDir: string): ResultsContext | null {
  const file = path.join(resultsDir, CONTEXT_FILE)
  if (!existsSync(file) || statSync(file).size > 64 * 1024) return null
  let data: unknown
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return null
  }
  if (typeof data !== 'object' || data === null) return null
  const d = data as Record<string, unknown>
  if (d.schema !== CONTEXT_SCHEMA) return null
  const pr = d.pull_request
  const runId = d.run_id
  return {
    schema: CONTEXT_SCHEMA,
    repository: typeof d.repository === 'string' ? d.repository.slice(0, 200) : '',
    event: typeof d.event === 'string' ? d.event.slice(0, 50) : '',
    pull_request: typeof pr === 'number' && Number.isSafeInteger(pr) && pr > 0 ? pr : null,
    head_sha: typeof d.head_sha === 'string' && /^[0-9a-f]{40}$/.test(d.head_sha) ? d.head_sha : '',
    fork: d.fork === true,
    run_id: typeof runId === 'number' && Number.isSafeInteger(runId) && runId > 0 ? runId : null
  }
}
