// What the triggering event says about where results may be published: which
// pull request (if any), and whether this run's token can write to it.

import { readFileSync, statSync } from 'node:fs'

export interface EventInfo {
  name: string // GITHUB_EVENT_NAME
  repository: string // owner/name of the repository the workflow runs in
  pullRequest: number | null // the PR this run belongs to, when known from the event
  headSha: string // the commit measured
  // a pull request's base branch commit as the event names it; '' for other events
  baseSha: string
  // A pull_request run from a fork gets a read-only token and no secrets.
  fork: boolean
  // Where the head of the PR lives (fork runs), for messages.
  headRepository: string
  // workflow_run: the run whose results a publish job posts.
  workflowRun: { id: number; headSha: string; event: string } | null
  // push: the ref pushed (refs/heads/main); '' for other events
  ref: string
  // the repository's default branch, as the event names it; '' when it does not
  defaultBranch: string
  // release: the tag released; '' for other events
  releaseTag: string
}

const MAX_EVENT_BYTES = 25 * 1024 * 1024

type Json = Record<string, unknown>

function obj(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {}
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : ''
}
function posInt(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : null
}

export function readEventPayload(file: string | undefined): Json {
  if (!file) return {}
  if (statSync(file).size > MAX_EVENT_BYTES)
    throw new Error(`GITHUB_EVENT_PATH ${file} is larger than ${MAX_EVENT_BYTES} bytes`)
  return obj(JSON.parse(readFileSync(file, 'utf8')))
}

export function describeEvent(
  name: string,
  payload: Json,
  repository: string,
  sha: string
): EventInfo {
  const info: EventInfo = {
    name,
    repository,
    pullRequest: null,
    headSha: sha,
    baseSha: '',
    fork: false,
    headRepository: repository,
    workflowRun: null,
    ref: '',
    defaultBranch: str(obj(payload.repository).default_branch),
    releaseTag: ''
  }
  if (name === 'pull_request' || name === 'pull_request_target') {
    const pr = obj(payload.pull_request)
    const head = obj(pr.head)
    const base = obj(pr.base)
    info.pullRequest = posInt(pr.number)
    info.headSha = str(head.sha) || sha
    info.baseSha = str(base.sha)
    const headRepo = str(obj(head.repo).full_name)
    const baseRepo = str(obj(base.repo).full_name) || repository
    info.headRepository = headRepo
    // A deleted fork leaves head.repo null: that is a fork too. Comparing names
    // (not head.repo.fork) keeps a same-repo PR in a repository that is itself
    // a fork from counting as one. pull_request_target runs with the base
    // repository's token, so it can write even for forks.
    info.fork = name === 'pull_request' && headRepo.toLowerCase() !== baseRepo.toLowerCase()
  } else if (name === 'push') {
    info.ref = str(payload.ref)
  } else if (name === 'release') {
    info.releaseTag = str(obj(payload.release).tag_name)
  } else if (name === 'workflow_run') {
    const run = obj(payload.workflow_run)
    const id = posInt(run.id)
    const prs = Array.isArray(run.pull_requests) ? run.pull_requests : []
    info.headSha = str(run.head_sha) || sha
    info.headRepository = str(obj(run.head_repository).full_name)
    // Filled in for same-repository PRs only; fork PRs come with an empty list.
    info.pullRequest = prs.length > 0 ? posInt(obj(prs[0]).number) : null
    info.workflowRun = id ? { id, headSha: str(run.head_sha), event: str(run.event) } : null
  }
  return info
}
