// A local HTTP server that stands in for GitHub's REST API in the end-to-end
// tests (the real one cannot be reached from here, and must not be written to
// by tests). It implements the few endpoints the action calls, keeps comments,
// git objects and branches in memory, and records every request so the tests
// can assert exactly what the action sent.
//
// It also stands in for the artifact service of a GitHub job, which exists
// only inside one: the Twirp calls @actions/artifact makes (CreateArtifact,
// FinalizeArtifact) and the blob storage its signed upload URL points to (the
// Azure SDK's stage-block and commit-block-list PUTs). A test turns it on by
// giving the action artifactEnv(): ACTIONS_RESULTS_URL pointing here and an
// unsigned runtime token carrying the backend ids the client reads.

import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { deflateSync } from 'node:zlib'

export interface RecordedRequest {
  method: string
  path: string
  authorization: string
  body: unknown
}

export interface StoredArtifact {
  id: number
  name: string
  zip: Buffer // the committed blob: the zip the action uploaded
  finalized: boolean
}

const TWIRP = '/twirp/github.actions.results.api.v1.ArtifactService/'

interface StoredComment {
  id: number
  issue: number
  body: string
}

export class FakeGitHubServer {
  requests: RecordedRequest[] = []
  comments: StoredComment[] = []
  // comments on commits (the bisect's answer on a push)
  commitComments: Array<{ id: number; sha: string; body: string }> = []
  // check runs (input check-run), as the action sent them
  checkRuns: Array<Record<string, unknown>> = []
  branches = new Map<string, string>()
  commits = new Map<string, { tree: string; parents: string[]; message: string }>()
  // a tree as the flat list of its files' whole paths; GitHub nests trees,
  // and gitBytes() counts them as git would store them
  trees = new Map<string, Array<{ path: string; sha: string }>>()
  blobs = new Map<string, string>()
  pullHeads = new Map<number, string>()
  // commit -> the merged pull requests that brought it (GET commits/SHA/pulls)
  mergedPulls = new Map<string, number[]>()
  // The source repository's default branch, oldest commit first (its git
  // history cannot exist here): the compare API takes a pull request's base
  // commit as the merge-base, and the commits API lists a commit's ancestors.
  mainLine: string[] = []
  tags = new Map<string, string>() // tag -> commit
  releases: Array<{ id: number; tag: string; name: string; body: string }> = []
  artifacts: StoredArtifact[] = []
  // Twirp and blob requests, kept apart from the REST requests above.
  artifactCalls: string[] = []
  private blocks = new Map<string, Buffer>()
  // When set, every request is answered with this status (e.g. 403).
  denyWith: number | null = null
  // Branches whose next fast-forward loses a race: another writer's commit
  // lands on the branch just before it (and the move gets 422).
  raceOnce = new Set<string>()
  private server: Server | null = null
  private nextId = 5000
  private objects = 0

  get url(): string {
    const addr = this.server?.address() as AddressInfo
    return `http://127.0.0.1:${addr.port}`
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((e: unknown) => send(res, 500, { message: String(e) }))
    })
    // Idle connections stay open until the client drops them: with Node's
    // 5 s server timeout against undici's 4 s, a loaded machine let the two
    // timers cross and a request went out on a socket being closed
    // (ECONNRESET in CI). close() still ends idle connections.
    this.server.keepAliveTimeout = 0
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve))
  }

  // Also after a start that never came (a test's set-up failed first): then
  // there is nothing to close, and waiting for a close would hang the hook.
  async stop(): Promise<void> {
    const server = this.server
    if (server === null || !server.listening) return
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  // What a job's runner sets for @actions/artifact, pointed at this server.
  artifactEnv(): Record<string, string> {
    const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url')
    const claims = { scp: 'Actions.GenericRead Actions.Results:run-backend-1:job-backend-1' }
    return {
      ACTIONS_RUNTIME_TOKEN: `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
      ACTIONS_RESULTS_URL: `${this.url}/`
    }
  }

  // Requests that change something (not GET).
  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method !== 'GET')
  }

  private sha(kind: string): string {
    this.objects++
    return `${kind}${String(this.objects).padStart(40 - kind.length, '0')}`
  }

  // What git would store for everything reachable from the branch, object by
  // object (blobs, the nested trees of every commit, the commits), before
  // packing: uncompressed, and zlib-compressed as loose objects are. Trees are
  // built from the flat path lists the way git nests them and counted once per
  // distinct content, as git's object ids dedupe them.
  gitBytes(branch: string): { raw: number; compressed: number; objects: number } {
    const seen = new Set<string>()
    let raw = 0
    let compressed = 0
    const add = (kind: string, body: Buffer): Buffer => {
      const object = Buffer.concat([Buffer.from(`${kind} ${body.length}\0`), body])
      const id = createHash('sha1').update(object).digest()
      const hex = id.toString('hex')
      if (!seen.has(hex)) {
        seen.add(hex)
        raw += object.length
        compressed += deflateSync(object).length
      }
      return id
    }
    const blobId = new Map<string, Buffer>()
    const blob = (sha: string): Buffer => {
      let id = blobId.get(sha)
      if (!id) {
        id = add('blob', Buffer.from(this.blobs.get(sha) ?? '', 'base64'))
        blobId.set(sha, id)
      }
      return id
    }
    type Dir = Map<string, Dir | string>
    const tree = (dir: Dir): Buffer => {
      const entries = [...dir].sort(([a], [b]) => (a < b ? -1 : 1))
      const body = Buffer.concat(
        entries.map(([name, v]) =>
          typeof v === 'string'
            ? Buffer.concat([Buffer.from(`100644 ${name}\0`), blob(v)])
            : Buffer.concat([Buffer.from(`40000 ${name}\0`), tree(v)])
        )
      )
      return add('tree', body)
    }
    const walked = new Set<string>()
    const todo = [this.branches.get(branch) ?? '']
    while (todo.length > 0) {
      const sha = todo.pop() ?? ''
      const c = this.commits.get(sha)
      if (!c || walked.has(sha)) continue
      walked.add(sha)
      const root: Dir = new Map()
      for (const f of this.trees.get(c.tree) ?? []) {
        const parts = f.path.split('/')
        let d = root
        for (const part of parts.slice(0, -1)) {
          let next = d.get(part)
          if (typeof next !== 'object') {
            next = new Map()
            d.set(part, next)
          }
          d = next
        }
        d.set(parts[parts.length - 1], f.sha)
      }
      const treeId = tree(root).toString('hex')
      add(
        'commit',
        Buffer.from(
          // a parent line is 48 bytes whatever its id
          `tree ${treeId}\n${'parent 0000000000000000000000000000000000000000\n'.repeat(c.parents.length)}author afpbench-action <a@b> 1764000000 +0000\ncommitter afpbench-action <a@b> 1764000000 +0000\n\n${c.message}\n${sha}`
        )
      )
      todo.push(...c.parents)
    }
    return { raw, compressed, objects: seen.size }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const url = new URL(req.url ?? '/', 'http://x')
    const method = req.method ?? 'GET'
    if (url.pathname.startsWith(TWIRP) || url.pathname.startsWith('/blob/')) {
      this.artifactCalls.push(`${method} ${url.pathname}${url.search}`)
      this.handleArtifact(method, url, Buffer.concat(chunks), res)
      return
    }
    // github.com's raw file of a commit (https://github.com/O/R/raw/SHA/PATH,
    // what a comment links the run's plan by): the stand-in is the server URL too
    const file = /^\/[^/]+\/[^/]+\/raw\/([0-9a-f]{40})\/(.+)$/.exec(url.pathname)
    if (file && method === 'GET') {
      this.requests.push({ method, path: url.pathname, authorization: '', body: null })
      const entry = (this.trees.get(this.commits.get(file[1])?.tree ?? '') ?? []).find(
        (f) => f.path === decodeURIComponent(file[2])
      )
      const blob = entry === undefined ? undefined : this.blobs.get(entry.sha)
      if (blob === undefined) return send(res, 404, { message: 'Not Found' })
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
      res.end(Buffer.from(blob, 'base64'))
      return
    }
    const raw = Buffer.concat(chunks).toString('utf8')
    const body: unknown = raw ? JSON.parse(raw) : null
    this.requests.push({
      method,
      path: url.pathname + url.search,
      authorization: req.headers.authorization ?? '',
      body
    })
    if (this.denyWith !== null) {
      send(res, this.denyWith, {
        message: 'Resource not accessible by integration',
        status: String(this.denyWith)
      })
      return
    }
    const b = (body ?? {}) as Record<string, unknown>
    let m: RegExpExecArray | null
    // Octokit percent-encodes the slashes in a ref ("heads%2Fbranch"); GitHub
    // decodes them, and so does this stand-in.
    const p = decodeURIComponent(url.pathname)
    if ((m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(p))) {
      const issue = Number(m[1])
      if (method === 'GET') {
        const perPage = Number(url.searchParams.get('per_page') ?? 30)
        const page = Number(url.searchParams.get('page') ?? 1)
        const list = this.comments
          .filter((c) => c.issue === issue)
          .slice((page - 1) * perPage, page * perPage)
        send(
          res,
          200,
          list.map((c) => this.commentJson(c))
        )
        return
      }
      if (method === 'POST') {
        const c = { id: this.nextId++, issue, body: String(b.body) }
        this.comments.push(c)
        send(res, 201, this.commentJson(c))
        return
      }
    }
    if (
      (m = /^\/repos\/([^/]+\/[^/]+)\/commits\/([0-9a-f]{40})\/comments$/.exec(p)) &&
      method === 'POST'
    ) {
      const c = { id: this.nextId++, sha: m[2], body: String(b.body) }
      this.commitComments.push(c)
      send(res, 201, {
        id: c.id,
        body: c.body,
        html_url: `https://github.com/${m[1]}/commit/${c.sha}#commitcomment-${c.id}`
      })
      return
    }
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/check-runs$/.exec(p)) && method === 'POST') {
      const id = this.nextId++
      this.checkRuns.push(b)
      send(res, 201, { id, html_url: `https://github.com/${m[1]}/runs/${id}` })
      return
    }
    if ((m = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(p)) && method === 'PATCH') {
      const c = this.comments.find((x) => x.id === Number(m?.[1]))
      if (!c) return send(res, 404, { message: 'Not Found' })
      c.body = String(b.body)
      send(res, 200, this.commentJson(c))
      return
    }
    if (
      (m = /^\/repos\/[^/]+\/[^/]+\/commits\/([0-9a-f]{40})\/pulls$/.exec(p)) &&
      method === 'GET'
    ) {
      send(
        res,
        200,
        (this.mergedPulls.get(m[1]) ?? []).map((n) => ({
          number: n,
          merged_at: '2026-11-01T00:00:00Z'
        }))
      )
      return
    }
    if ((m = /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)$/.exec(p)) && method === 'GET') {
      const head = this.pullHeads.get(Number(m[1]))
      if (!head) return send(res, 404, { message: 'Not Found' })
      send(res, 200, { number: Number(m[1]), head: { sha: head } })
      return
    }
    if (
      (m = /^\/repos\/[^/]+\/[^/]+\/compare\/([0-9a-f]{40})\.\.\.([0-9a-f]{40})$/.exec(p)) &&
      method === 'GET'
    ) {
      if (!this.mainLine.includes(m[1])) return send(res, 404, { message: 'Not Found' })
      send(res, 200, { merge_base_commit: { sha: m[1] }, status: 'ahead', commits: [] })
      return
    }
    if (/^\/repos\/[^/]+\/[^/]+\/commits$/.test(p) && method === 'GET') {
      const sha = url.searchParams.get('sha') ?? ''
      const at = this.mainLine.indexOf(sha)
      if (at < 0) return send(res, 422, { message: `No commit found for SHA: ${sha}` })
      const perPage = Number(url.searchParams.get('per_page') ?? 30)
      send(
        res,
        200,
        this.mainLine
          .slice(0, at + 1)
          .reverse()
          .slice(0, perPage)
          .map((s) => ({ sha: s }))
      )
      return
    }
    if ((m = /^\/repos\/[^/]+\/[^/]+\/git\/ref\/heads\/(.+)$/.exec(p)) && method === 'GET') {
      const sha = this.branches.get(m[1])
      if (!sha) return send(res, 404, { message: 'Not Found' })
      send(res, 200, { ref: `refs/heads/${m[1]}`, object: { sha, type: 'commit' } })
      return
    }
    if (/^\/repos\/[^/]+\/[^/]+\/git\/blobs$/.test(p) && method === 'POST') {
      const sha = this.sha('b')
      this.blobs.set(sha, String(b.content))
      send(res, 201, { sha })
      return
    }
    if (/^\/repos\/[^/]+\/[^/]+\/git\/trees$/.test(p) && method === 'POST') {
      const files = new Map<string, string>()
      if (b.base_tree !== undefined) {
        const base = this.trees.get(text(b.base_tree))
        if (!base) return send(res, 422, { message: 'base_tree is not a tree' })
        for (const e of base) files.set(e.path, e.sha)
      }
      for (const e of b.tree as Array<{ path: string; sha: string | null }>) {
        if (e.sha === null) files.delete(e.path)
        else files.set(e.path, e.sha)
      }
      const sha = this.sha('t')
      this.trees.set(
        sha,
        [...files].map(([path, blob]) => ({ path, sha: blob }))
      )
      send(res, 201, { sha })
      return
    }
    if ((m = /^\/repos\/[^/]+\/[^/]+\/git\/trees\/([^/]+)$/.exec(p)) && method === 'GET') {
      const tree = this.trees.get(m[1])
      if (!tree) return send(res, 404, { message: 'Not Found' })
      send(res, 200, {
        sha: m[1],
        truncated: false,
        tree: tree.map((e) => ({
          path: e.path,
          mode: '100644',
          type: 'blob',
          sha: e.sha,
          size: Buffer.from(this.blobs.get(e.sha) ?? '', 'base64').length
        }))
      })
      return
    }
    if ((m = /^\/repos\/[^/]+\/[^/]+\/git\/commits\/([^/]+)$/.exec(p)) && method === 'GET') {
      const c = this.commits.get(m[1])
      if (!c) return send(res, 404, { message: 'Not Found' })
      send(res, 200, {
        sha: m[1],
        tree: { sha: c.tree },
        parents: c.parents.map((sha) => ({ sha })),
        message: c.message
      })
      return
    }
    if ((m = /^\/repos\/[^/]+\/[^/]+\/git\/blobs\/([^/]+)$/.exec(p)) && method === 'GET') {
      const content = this.blobs.get(m[1])
      if (content === undefined) return send(res, 404, { message: 'Not Found' })
      send(res, 200, {
        sha: m[1],
        encoding: 'base64',
        content,
        size: Buffer.from(content, 'base64').length
      })
      return
    }
    if (/^\/repos\/[^/]+\/[^/]+\/git\/commits$/.test(p) && method === 'POST') {
      const sha = this.sha('c')
      this.commits.set(sha, {
        tree: String(b.tree),
        parents: b.parents as string[],
        message: String(b.message)
      })
      send(res, 201, { sha })
      return
    }
    if (/^\/repos\/[^/]+\/[^/]+\/git\/refs$/.test(p) && method === 'POST') {
      const branch = String(b.ref).replace(/^refs\/heads\//, '')
      if (this.branches.has(branch)) return send(res, 422, { message: 'Reference already exists' })
      this.branches.set(branch, String(b.sha))
      send(res, 201, { ref: b.ref, object: { sha: b.sha } })
      return
    }
    if ((m = /^\/repos\/[^/]+\/[^/]+\/git\/refs\/heads\/(.+)$/.exec(p)) && method === 'PATCH') {
      const branch = m[1]
      const tip = this.branches.get(branch)
      const parents = this.commits.get(String(b.sha))?.parents ?? []
      if (tip && this.raceOnce.delete(branch)) {
        // the other writer's commit: the tip's tree, one file more
        const tree = this.sha('t')
        this.trees.set(tree, [
          ...(this.trees.get(this.commits.get(tip)?.tree ?? '') ?? []),
          { path: `race/${tree}.txt`, sha: this.sha('b') }
        ])
        const other = this.sha('c')
        this.commits.set(other, { tree, parents: [tip], message: 'another writer' })
        this.branches.set(branch, other)
        return send(res, 422, { message: 'Update is not a fast forward' })
      }
      if (!tip || (b.force !== true && !parents.includes(tip)))
        return send(res, 422, { message: 'Update is not a fast forward' })
      this.branches.set(branch, String(b.sha))
      send(res, 200, { ref: `refs/heads/${branch}`, object: { sha: b.sha } })
      return
    }
    if (/^\/repos\/[^/]+\/[^/]+\/releases$/.test(p) && method === 'POST') {
      const tag = String(b.tag_name)
      if (this.releases.some((r) => r.tag === tag))
        return send(res, 422, {
          message: 'Validation Failed',
          errors: [{ code: 'already_exists' }]
        })
      const r = { id: this.nextId++, tag, name: text(b.name) || tag, body: text(b.body) }
      this.releases.push(r)
      send(res, 201, this.releaseJson(r))
      return
    }
    if ((m = /^\/repos\/[^/]+\/[^/]+\/releases\/tags\/(.+)$/.exec(p)) && method === 'GET') {
      const r = this.releases.find((x) => x.tag === m?.[1])
      if (!r) return send(res, 404, { message: 'Not Found' })
      send(res, 200, this.releaseJson(r))
      return
    }
    if ((m = /^\/repos\/[^/]+\/[^/]+\/releases\/(\d+)$/.exec(p)) && method === 'PATCH') {
      const r = this.releases.find((x) => x.id === Number(m?.[1]))
      if (!r) return send(res, 404, { message: 'Not Found' })
      if (typeof b.body === 'string') r.body = b.body
      if (typeof b.name === 'string') r.name = b.name
      send(res, 200, this.releaseJson(r))
      return
    }
    send(res, 404, { message: `fake GitHub: no route for ${method} ${p}` })
  }

  private releaseJson(r: {
    id: number
    tag: string
    name: string
    body: string
  }): Record<string, unknown> {
    return {
      id: r.id,
      tag_name: r.tag,
      name: r.name,
      body: r.body,
      html_url: `https://github.com/octo-org/afp-server/releases/tag/${r.tag}`
    }
  }

  private handleArtifact(method: string, url: URL, data: Buffer, res: ServerResponse): void {
    const blobHeaders = {
      etag: '"0x8DC0000000000"',
      'last-modified': new Date().toUTCString(),
      'x-ms-request-id': '00000000-0000-0000-0000-000000000000',
      'x-ms-version': '2024-05-04',
      'x-ms-request-server-encrypted': 'true'
    }
    if (method === 'POST' && url.pathname === `${TWIRP}CreateArtifact`) {
      const req = JSON.parse(data.toString('utf8')) as { name?: string }
      const name = String(req.name)
      const id = 4200 + this.artifacts.length + 1
      this.artifacts.push({ id, name, zip: Buffer.alloc(0), finalized: false })
      send(res, 200, {
        ok: true,
        signed_upload_url: `${this.url}/blob/${id}/${encodeURIComponent(name)}.zip?sig=fake`
      })
      return
    }
    if (method === 'POST' && url.pathname === `${TWIRP}FinalizeArtifact`) {
      const req = JSON.parse(data.toString('utf8')) as { name?: string }
      const a = this.artifacts.find((x) => x.name === req.name && !x.finalized)
      if (!a) return send(res, 404, { code: 'not_found', msg: 'no such artifact' })
      a.finalized = true
      send(res, 200, { ok: true, artifact_id: String(a.id) })
      return
    }
    const blob = /^\/blob\/(\d+)\//.exec(url.pathname)
    if (method === 'PUT' && blob) {
      const a = this.artifacts.find((x) => x.id === Number(blob[1]))
      if (!a) return send(res, 404, { message: 'no such blob' })
      const comp = url.searchParams.get('comp')
      if (comp === 'block') {
        this.blocks.set(`${a.id}/${url.searchParams.get('blockid')}`, data)
      } else if (comp === 'blocklist') {
        const ids = [...data.toString('utf8').matchAll(/<(?:Latest|Uncommitted)>([^<]*)</g)]
        a.zip = Buffer.concat(ids.map((m) => this.blocks.get(`${a.id}/${m[1]}`) ?? Buffer.alloc(0)))
      } else {
        a.zip = data // a single-shot upload
      }
      res.writeHead(201, { ...blobHeaders, 'content-length': 0 })
      res.end()
      return
    }
    send(res, 404, { message: `fake artifact service: no route for ${method} ${url.pathname}` })
  }

  private commentJson(c: StoredComment): Record<string, unknown> {
    return {
      id: c.id,
      body: c.body,
      html_url: `https://github.com/octo-org/afp-server/pull/${c.issue}#issuecomment-${c.id}`,
      user: { login: 'github-actions[bot]', type: 'Bot' }
    }
  }
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : ''
}

function send(res: ServerResponse, status: number, json: unknown): void {
  const text = JSON.stringify(json)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text)
  })
  res.end(text)
}
