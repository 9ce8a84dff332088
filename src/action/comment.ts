// The one sticky PR comment: found again by its hidden marker line and
// updated, never duplicated.

import type { GitHubApi, IssueComment } from './github-api.js'
import type { CommentPolicy } from './inputs.js'
import { REPORT_MARKER } from './names.js'
import type { Status } from './verdict.js'

// GitHub refuses comment bodies over 65,536 characters.
export const MAX_COMMENT_CHARS = 65536
// Enough for any real PR; bounds the work a PR with a comment flood can cause.
const MAX_PAGES = 50

// The marker that starts our comment: the report's own, or one per key when
// several jobs (a matrix) comment on the same PR.
export function markerFor(key: string): string {
  return key === '' ? REPORT_MARKER : `<!-- afpbench-action:report key=${key} -->`
}

// The comment body: the marker first (replacing the report's own marker line),
// then the text, cut to GitHub's limit at a line boundary with a note.
export function commentBody(marker: string, text: string, moreAt: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  if (lines[0].trim() === REPORT_MARKER) lines.shift()
  let body = `${marker}\n${lines.join('\n')}`
  if (body.length > MAX_COMMENT_CHARS) {
    const note = `\n\n… the report is longer than a comment may be; the full report is in ${moreAt}\n`
    const cut = body.lastIndexOf('\n', MAX_COMMENT_CHARS - note.length)
    body = body.slice(0, cut > 0 ? cut : MAX_COMMENT_CHARS - note.length) + note
  }
  return body
}

export async function findComment(
  api: GitHubApi,
  pull: number,
  marker: string
): Promise<IssueComment | null> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const comments = await api.listComments(pull, page)
    const ours = comments.find((c) => c.body.split('\n', 1)[0].trim() === marker)
    if (ours) return ours
    if (comments.length < 100) return null
  }
  return null
}

export type CommentResult =
  { action: 'created' | 'updated'; url: string } | { action: 'skipped'; reason: string }

// always: create or update. on-change: create only when the verdict is not a
// pass, but always update an existing comment so it never shows a stale
// verdict. never: leave comments alone.
export async function upsertComment(
  api: GitHubApi,
  pull: number,
  marker: string,
  body: string,
  policy: CommentPolicy,
  status: Status
): Promise<CommentResult> {
  if (policy === 'never') return { action: 'skipped', reason: "'comment' is never" }
  const existing = await findComment(api, pull, marker)
  if (existing) {
    const updated = await api.updateComment(existing.id, body)
    return { action: 'updated', url: updated.htmlUrl || existing.htmlUrl }
  }
  if (policy === 'on-change' && status === 'pass')
    return { action: 'skipped', reason: "the verdict is pass and 'comment' is on-change" }
  const created = await api.createComment(pull, body)
  return { action: 'created', url: created.htmlUrl }
}
