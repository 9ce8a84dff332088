// Upload the results directory as a workflow artifact (@actions/artifact).

import { readdirSync } from 'node:fs'
import path from 'node:path'

// The part of @actions/artifact's client we use (a fake in tests).
export interface ArtifactUploader {
  uploadArtifact(
    name: string,
    files: string[],
    rootDirectory: string,
    options?: { retentionDays?: number }
  ): Promise<{ id?: number; size?: number }>
}

export type UploadResult =
  { uploaded: true; id: number | undefined; files: number } | { uploaded: false; reason: string }

export function listFiles(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) out.push(...listFiles(full))
    else if (entry.isFile()) out.push(full)
  }
  return out.sort()
}

// The page of one uploaded artifact (GitHub shows it and offers the zip):
// SERVER/OWNER/REPO/actions/runs/RUN_ID/artifacts/ARTIFACT_ID. '' when the
// run or the artifact is not known (no upload, a run outside GitHub).
export function artifactUrl(
  serverUrl: string,
  repository: string,
  runId: number | null,
  artifactId: number | undefined
): string {
  if (runId === null || artifactId === undefined || repository === '') return ''
  if (!Number.isSafeInteger(artifactId) || artifactId <= 0) return ''
  return `${serverUrl.replace(/\/+$/, '')}/${repository}/actions/runs/${runId}/artifacts/${artifactId}`
}

// The upload service is reachable only inside a GitHub job; there the runner
// sets these two variables.
export function artifactServiceAvailable(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.ACTIONS_RUNTIME_TOKEN) && Boolean(env.ACTIONS_RESULTS_URL)
}

export async function uploadResults(
  client: ArtifactUploader | null,
  name: string,
  resultsDir: string
): Promise<UploadResult> {
  if (name === '') return { uploaded: false, reason: "'artifact-name' is empty" }
  if (client === null)
    return {
      uploaded: false,
      reason:
        'ACTIONS_RUNTIME_TOKEN / ACTIONS_RESULTS_URL are not set (not running in a GitHub job)'
    }
  const files = listFiles(resultsDir)
  if (files.length === 0) return { uploaded: false, reason: `${resultsDir} holds no files` }
  const res = await client.uploadArtifact(name, files, resultsDir)
  return { uploaded: true, id: res.id, files: files.length }
}
