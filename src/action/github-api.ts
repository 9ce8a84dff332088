// The few GitHub REST calls the action makes, behind one small interface so the
// publishing logic can be tested with a recording fake (api-fake.ts) and the
// real adapter below stays a thin mapping onto Octokit.

import { getOctokit } from '@actions/github'

export interface IssueComment {
  id: number
  body: string
  htmlUrl: string
}

export interface TreeFile {
  path: string
  blobSha: string | null // null: remove the file (with a base tree)
}

export interface TreeEntry {
  path: string // the whole path from the tree's root
  sha: string
  size: number
}

export interface CheckRunSpec {
  name: string
  headSha: string
  conclusion: 'success' | 'failure' | 'neutral'
  title: string
  summary: string // Markdown
}

export interface GitHubApi {
  // One page (100 per page) of a PR's comments, oldest first.
  listComments(issue: number, page: number): Promise<IssueComment[]>
  createComment(issue: number, body: string): Promise<IssueComment>
  updateComment(id: number, body: string): Promise<IssueComment>
  // A comment on a commit (the bisect's answer on a push); its page's URL.
  createCommitComment(sha: string, body: string): Promise<string>
  // A completed check run on a commit (input check-run); its page's URL.
  createCheckRun(run: CheckRunSpec): Promise<string>
  // The head commit of a pull request.
  pullHeadSha(pull: number): Promise<string>
  // The merged pull requests that brought a commit (a push's step was shown
  // in their comments before they merged).
  mergedPullsOf(sha: string): Promise<number[]>
  // The merge-base of two commits (the compare API's merge_base_commit).
  mergeBase(base: string, head: string): Promise<string>
  // A commit and its ancestors, newest first, at most count of them (the
  // commits API from that commit).
  ancestors(sha: string, count: number): Promise<string[]>
  // The commit a branch points at, or null when there is no such branch.
  branchSha(branch: string): Promise<string | null>
  createBlob(contentBase64: string): Promise<string>
  // Without a base tree, a tree of these files only; with one, that tree
  // with these files added, replaced or (blobSha null) removed.
  createTree(files: TreeFile[], baseTree?: string): Promise<string>
  // The tree of a commit.
  commitTree(commit: string): Promise<string>
  // Every file (blob) of a tree and its subtrees, and whether GitHub cut the
  // list short (a very large tree).
  listFiles(tree: string): Promise<{ files: TreeEntry[]; truncated: boolean }>
  // A blob's bytes, as text (UTF-8).
  readBlob(sha: string): Promise<string>
  createCommit(message: string, tree: string, parents: string[]): Promise<string>
  createBranch(branch: string, sha: string): Promise<void>
  // Fast-forward only: a concurrent push makes this fail rather than lose it.
  moveBranch(branch: string, sha: string): Promise<void>
}

export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number
  ) {
    super(message)
  }
}

// The HTTP status of a failed API call (Octokit's RequestError has .status).
export function httpStatus(e: unknown): number | undefined {
  if (typeof e === 'object' && e !== null && 'status' in e) {
    const s = e.status
    if (typeof s === 'number') return s
  }
  return undefined
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

interface RawComment {
  id: number
  body?: string | null
  html_url: string
}

function comment(c: RawComment): IssueComment {
  return { id: c.id, body: c.body ?? '', htmlUrl: c.html_url }
}

// The Octokit-backed implementation. The API's address comes from
// GITHUB_API_URL (GitHub Enterprise, or the e2e tests' stand-in server) as
// the runner sets it, or from baseUrl.
export function octokitApi(token: string, repository: string, baseUrl?: string): GitHubApi {
  const [owner, repo] = repository.split('/')
  if (!owner || !repo) throw new Error(`GITHUB_REPOSITORY '${repository}' is not owner/name`)
  const octokit = getOctokit(token, baseUrl !== undefined ? { baseUrl } : {})
  const rest = octokit.rest
  return {
    async listComments(issue, page) {
      const res = await rest.issues.listComments({
        owner,
        repo,
        issue_number: issue,
        per_page: 100,
        page
      })
      return res.data.map(comment)
    },
    async createComment(issue, body) {
      return comment(
        (await rest.issues.createComment({ owner, repo, issue_number: issue, body })).data
      )
    },
    async updateComment(id, body) {
      return comment((await rest.issues.updateComment({ owner, repo, comment_id: id, body })).data)
    },
    async createCommitComment(sha, body) {
      return (await rest.repos.createCommitComment({ owner, repo, commit_sha: sha, body })).data
        .html_url
    },
    async createCheckRun(run) {
      const res = await rest.checks.create({
        owner,
        repo,
        name: run.name,
        head_sha: run.headSha,
        status: 'completed',
        conclusion: run.conclusion,
        output: { title: run.title, summary: run.summary }
      })
      return res.data.html_url ?? ''
    },
    async pullHeadSha(pull) {
      return (await rest.pulls.get({ owner, repo, pull_number: pull })).data.head.sha
    },
    async mergedPullsOf(sha) {
      const res = await rest.repos.listPullRequestsAssociatedWithCommit({
        owner,
        repo,
        commit_sha: sha,
        per_page: 20
      })
      return res.data.filter((p) => p.merged_at !== null).map((p) => p.number)
    },
    async mergeBase(base, head) {
      const res = await rest.repos.compareCommitsWithBasehead({
        owner,
        repo,
        basehead: `${base}...${head}`,
        per_page: 1
      })
      return res.data.merge_base_commit.sha
    },
    async ancestors(sha, count) {
      const res = await rest.repos.listCommits({ owner, repo, sha, per_page: count })
      return res.data.map((c) => c.sha)
    },
    async branchSha(branch) {
      try {
        return (await rest.git.getRef({ owner, repo, ref: `heads/${branch}` })).data.object.sha
      } catch (e) {
        if (httpStatus(e) === 404) return null
        throw e
      }
    },
    async createBlob(content) {
      return (await rest.git.createBlob({ owner, repo, content, encoding: 'base64' })).data.sha
    },
    async createTree(files, baseTree) {
      const tree = files.map((f) => ({
        path: f.path,
        mode: '100644' as const,
        type: 'blob' as const,
        sha: f.blobSha
      }))
      const base = baseTree !== undefined ? { base_tree: baseTree } : {}
      return (await rest.git.createTree({ owner, repo, tree, ...base })).data.sha
    },
    async commitTree(commit) {
      return (await rest.git.getCommit({ owner, repo, commit_sha: commit })).data.tree.sha
    },
    async listFiles(tree) {
      const res = await rest.git.getTree({ owner, repo, tree_sha: tree, recursive: 'true' })
      const files = res.data.tree
        .filter((e) => e.type === 'blob' && typeof e.path === 'string' && typeof e.sha === 'string')
        .map((e) => ({ path: e.path, sha: e.sha, size: e.size ?? 0 }))
      return { files, truncated: res.data.truncated }
    },
    async readBlob(sha) {
      const data = (await rest.git.getBlob({ owner, repo, file_sha: sha })).data
      return data.encoding === 'base64'
        ? Buffer.from(data.content, 'base64').toString('utf8')
        : data.content
    },
    async createCommit(message, tree, parents) {
      return (await rest.git.createCommit({ owner, repo, message, tree, parents })).data.sha
    },
    async createBranch(branch, sha) {
      await rest.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha })
    },
    async moveBranch(branch, sha) {
      await rest.git.updateRef({ owner, repo, ref: `heads/${branch}`, sha, force: false })
    }
  }
}
