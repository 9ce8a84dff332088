// A recording fake of the GitHub REST calls (GitHubApi), for unit tests: it
// keeps comments, blobs, commits and branches in memory like GitHub would,
// records every call, and can be told to fail a call with an HTTP status.

import type { CheckRunSpec, GitHubApi, IssueComment, TreeEntry, TreeFile } from '../github-api.js'
import { HttpError } from '../github-api.js'

export interface Call {
  method: keyof GitHubApi
  args: unknown[]
}

export class FakeGitHub implements GitHubApi {
  calls: Call[] = []
  comments = new Map<number, IssueComment & { issue: number }>()
  blobs = new Map<string, string>()
  // a tree as the flat list of its files' whole paths (GitHub nests trees;
  // nothing here depends on that)
  trees = new Map<string, TreeFile[]>()
  commits = new Map<string, { message: string; tree: string; parents: string[] }>()
  branches = new Map<string, string>()
  pullHeads = new Map<number, string>()
  // commit -> the merged pull requests that brought it
  mergedPulls = new Map<string, number[]>()
  // the source repository's default branch, oldest commit first: what
  // mergeBase and ancestors answer from
  mainLine: string[] = []
  // method -> HTTP status to fail with (every call), or a list (one per call).
  failures = new Map<keyof GitHubApi, number | number[]>()
  private nextId = 1000

  private record(method: keyof GitHubApi, ...args: unknown[]): void {
    this.calls.push({ method, args })
    const f = this.failures.get(method)
    const status = Array.isArray(f) ? f.shift() : f
    if (status !== undefined) throw new HttpError(`fake ${method} failed`, status)
  }

  callsTo(method: keyof GitHubApi): Call[] {
    return this.calls.filter((c) => c.method === method)
  }

  addComment(issue: number, body: string): IssueComment {
    const id = this.nextId++
    const c = {
      id,
      issue,
      body,
      htmlUrl: `https://github.test/o/r/pull/${issue}#issuecomment-${id}`
    }
    this.comments.set(id, c)
    return { id: c.id, body: c.body, htmlUrl: c.htmlUrl }
  }

  async listComments(issue: number, page: number): Promise<IssueComment[]> {
    this.record('listComments', issue, page)
    const all = [...this.comments.values()].filter((c) => c.issue === issue)
    return Promise.resolve(
      all
        .slice((page - 1) * 100, page * 100)
        .map(({ id, body, htmlUrl }) => ({ id, body, htmlUrl }))
    )
  }
  async createComment(issue: number, body: string): Promise<IssueComment> {
    this.record('createComment', issue, body)
    return Promise.resolve(this.addComment(issue, body))
  }
  async updateComment(id: number, body: string): Promise<IssueComment> {
    this.record('updateComment', id, body)
    const c = this.comments.get(id)
    if (!c) throw new HttpError('Not Found', 404)
    c.body = body
    return Promise.resolve({ id, body, htmlUrl: c.htmlUrl })
  }
  commitComments: Array<{ sha: string; body: string }> = []
  async createCommitComment(sha: string, body: string): Promise<string> {
    this.record('createCommitComment', sha, body)
    this.commitComments.push({ sha, body })
    return Promise.resolve(`https://github.test/o/r/commit/${sha}#commitcomment-${this.nextId++}`)
  }
  checkRuns: CheckRunSpec[] = []
  async createCheckRun(run: CheckRunSpec): Promise<string> {
    this.record('createCheckRun', run)
    this.checkRuns.push(run)
    return Promise.resolve(`https://github.test/o/r/runs/${this.nextId++}`)
  }
  async pullHeadSha(pull: number): Promise<string> {
    this.record('pullHeadSha', pull)
    const sha = this.pullHeads.get(pull)
    if (sha === undefined) throw new HttpError('Not Found', 404)
    return Promise.resolve(sha)
  }
  async mergedPullsOf(sha: string): Promise<number[]> {
    this.record('mergedPullsOf', sha)
    return Promise.resolve(this.mergedPulls.get(sha) ?? [])
  }
  async mergeBase(base: string, head: string): Promise<string> {
    this.record('mergeBase', base, head)
    if (!this.mainLine.includes(base)) throw new HttpError('No common ancestor', 404)
    return Promise.resolve(base)
  }
  async ancestors(sha: string, count: number): Promise<string[]> {
    this.record('ancestors', sha, count)
    const at = this.mainLine.indexOf(sha)
    if (at < 0) throw new HttpError(`No commit found for SHA: ${sha}`, 422)
    return Promise.resolve(this.mainLine.slice(Math.max(0, at + 1 - count), at + 1).reverse())
  }
  async branchSha(branch: string): Promise<string | null> {
    this.record('branchSha', branch)
    return Promise.resolve(this.branches.get(branch) ?? null)
  }
  async createBlob(content: string): Promise<string> {
    this.record('createBlob', content)
    const sha = `blob${this.blobs.size + 1}`
    this.blobs.set(sha, content)
    return Promise.resolve(sha)
  }
  async createTree(files: TreeFile[], baseTree?: string): Promise<string> {
    this.record('createTree', files, baseTree)
    const byPath = new Map<string, TreeFile>()
    if (baseTree !== undefined) {
      const base = this.trees.get(baseTree)
      if (base === undefined) throw new HttpError('base_tree not found', 422)
      for (const f of base) byPath.set(f.path, f)
    }
    for (const f of files) {
      if (f.blobSha === null) byPath.delete(f.path)
      else byPath.set(f.path, f)
    }
    const sha = `tree${this.trees.size + 1}`
    this.trees.set(sha, [...byPath.values()])
    return Promise.resolve(sha)
  }
  async commitTree(commit: string): Promise<string> {
    this.record('commitTree', commit)
    const c = this.commits.get(commit)
    if (c === undefined) throw new HttpError('Not Found', 404)
    return Promise.resolve(c.tree)
  }
  async listFiles(tree: string): Promise<{ files: TreeEntry[]; truncated: boolean }> {
    this.record('listFiles', tree)
    const t = this.trees.get(tree)
    if (t === undefined) throw new HttpError('Not Found', 404)
    const files = t.map((f) => ({
      path: f.path,
      sha: f.blobSha ?? '',
      size: Buffer.from(this.blobs.get(f.blobSha ?? '') ?? '', 'base64').length
    }))
    return Promise.resolve({ files, truncated: false })
  }
  async readBlob(sha: string): Promise<string> {
    this.record('readBlob', sha)
    const b = this.blobs.get(sha)
    if (b === undefined) throw new HttpError('Not Found', 404)
    return Promise.resolve(Buffer.from(b, 'base64').toString('utf8'))
  }
  async createCommit(message: string, tree: string, parents: string[]): Promise<string> {
    this.record('createCommit', message, tree, parents)
    const sha = `commit${this.commits.size + 1}`
    this.commits.set(sha, { message, tree, parents })
    return Promise.resolve(sha)
  }
  async createBranch(branch: string, sha: string): Promise<void> {
    this.record('createBranch', branch, sha)
    if (this.branches.has(branch)) throw new HttpError('Reference already exists', 422)
    this.branches.set(branch, sha)
    return Promise.resolve()
  }
  async moveBranch(branch: string, sha: string): Promise<void> {
    this.record('moveBranch', branch, sha)
    const tip = this.branches.get(branch)
    if (tip === undefined || !this.commits.get(sha)?.parents.includes(tip))
      throw new HttpError('Update is not a fast forward', 422)
    this.branches.set(branch, sha)
    return Promise.resolve()
  }
}
