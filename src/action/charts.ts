// Charts for the comment: the gnuplot images, committed to an orphan assets
// branch and linked by commit SHA (PR comments cannot show a local file), or,
// when they cannot be committed, a line saying where they are.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import type { GitHubApi } from './github-api.js'
import { httpStatus } from './github-api.js'

export interface ChartFile {
  name: string
  file: string
}

export interface ChartSet {
  images: ChartFile[] // .png (rendered everywhere) or, without any, .svg
  texts: ChartFile[] // .txt (gnuplot's dumb terminal: the artifact's, for a terminal)
}

export interface ChartLink {
  name: string
  url: string
}

// Bounds on what an artifact from another run can make us post or commit.
const MAX_CHARTS = 40
const MAX_IMAGE_BYTES = 5 * 1024 * 1024
const MAX_TEXT_BYTES = 64 * 1024
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/

// since: only files written at or after this time (ms since the epoch; 0:
// any), so that a run that failed before plotting shows no earlier run's charts.
export function listCharts(chartsDir: string, since = 0): ChartSet {
  const set: ChartSet = { images: [], texts: [] }
  if (!existsSync(chartsDir)) return set
  const names = readdirSync(chartsDir)
    .filter((n) => SAFE_NAME.test(n))
    .sort()
  const pick = (ext: string, max: number): ChartFile[] =>
    names
      .filter((n) => n.endsWith(ext))
      .map((n) => ({ name: n, file: path.join(chartsDir, n) }))
      .filter((c) => {
        const st = statSync(c.file)
        return st.isFile() && st.size > 0 && st.size <= max && st.mtimeMs >= since
      })
      .slice(0, MAX_CHARTS)
  set.images = pick('.png', MAX_IMAGE_BYTES)
  if (set.images.length === 0) set.images = pick('.svg', MAX_IMAGE_BYTES)
  set.texts = pick('.txt', MAX_TEXT_BYTES)
  return set
}

export interface AssetsTarget {
  branch: string
  serverUrl: string // https://github.com
  repository: string // owner/name
  message: string
}

// What one commit on the assets branch holds: this run's charts, and its
// plan (plan.json: the comment's reproduce command fetches it).
export interface Committed {
  links: ChartLink[]
  planUrl: string // '' when no plan was committed
}

// A run's plan is small; one larger than this is not one of ours.
const MAX_PLAN_BYTES = 4 * 1024 * 1024

// Commit the images and the plan as one commit on the assets branch. The
// commit's tree holds only this run's files (the branch never grows a large
// tree); its parent is the previous tip, so the commits that older comments
// link to stay reachable.
export async function commitCharts(
  api: GitHubApi,
  images: ChartFile[],
  to: AssetsTarget,
  plan = ''
): Promise<Committed> {
  const withPlan = plan !== '' && existsSync(plan) && statSync(plan).size <= MAX_PLAN_BYTES
  if (images.length === 0 && !withPlan) return { links: [], planUrl: '' }
  const files = []
  for (const img of images) {
    const blobSha = await api.createBlob(readFileSync(img.file).toString('base64'))
    files.push({ path: `charts/${img.name}`, blobSha })
  }
  if (withPlan)
    files.push({
      path: 'plan.json',
      blobSha: await api.createBlob(readFileSync(plan).toString('base64'))
    })
  const tree = await api.createTree(files)
  let commit = ''
  for (let attempt = 1; ; attempt++) {
    const tip = await api.branchSha(to.branch)
    commit = await api.createCommit(to.message, tree, tip ? [tip] : [])
    try {
      if (tip) await api.moveBranch(to.branch, commit)
      else await api.createBranch(to.branch, commit)
      break
    } catch (e) {
      // 422: another job moved or created the branch first; go again on its tip.
      if (httpStatus(e) !== 422 || attempt >= 3) throw e
    }
  }
  return {
    links: images.map((img) => ({
      name: img.name,
      url: `${to.serverUrl}/${to.repository}/blob/${commit}/charts/${encodeURIComponent(img.name)}?raw=true`
    })),
    planUrl: withPlan ? `${to.serverUrl}/${to.repository}/raw/${commit}/plan.json` : ''
  }
}

// The report's reproduce and refresh commands name the run's plan as
// "plan.json" (scripts/jq/report.jq): where it was committed, its address
// (scripts/run-gate --plan fetches a URL) in its place.
export function placePlan(report: string, planUrl: string): string {
  if (planUrl === '') return report
  return report
    .replaceAll('--plan plan.json', `--plan '${planUrl}'`)
    .replace(
      "`plan.json` is in this run's results (the artifact).",
      `The plan: [plan.json](${planUrl}), committed with the charts.`
    )
}

// The trend chart (scripts/plot's trend.*) has a place of its own: the
// report's Trend section.
export function isTrendChart(name: string): boolean {
  return name.startsWith('trend.')
}

// The trend chart's Markdown: in view, or folded.
export function trendMarkdown(links: ChartLink[], folded: boolean): string {
  const l = links[0]
  if (l === undefined) return ''
  const image = `![${title(l.name)}](${l.url})`
  return folded
    ? `<details><summary>Trend chart</summary>\n\n${image}\n\n</details>\n`
    : `${image}\n`
}

function title(name: string): string {
  return name.replace(/\.[a-z]+$/, '').replace(/[_-]+/g, ' ')
}

// The charts in the order the comment shows them: the per-test time change
// (ratios.*) first, in view; the others after it, folded.
function timeChangeFirst<T extends { name: string }>(charts: T[]): T[] {
  const first = charts.find((c) => c.name.startsWith('ratios.')) ?? charts[0]
  return [first, ...charts.filter((c) => c !== first)]
}

// The charts where the report marks their place: the per-test time change in
// view (the one a reviewer needs), the others folded, so the comment stays
// short; every one folded when the report asks for that.
export function imagesMarkdown(links: ChartLink[], folded = false): string {
  if (links.length === 0) return ''
  const ordered = timeChangeFirst(links)
  const shown = folded ? [] : ordered.slice(0, 1)
  const rest = folded ? ordered : ordered.slice(1)
  const image = (l: ChartLink): string => `![${title(l.name)}](${l.url})`
  const lines = shown.flatMap((l) => [image(l), ''])
  if (rest.length > 0)
    lines.push(
      `<details><summary>${folded ? 'Charts' : 'More charts'}: ${rest.map((l) => title(l.name)).join(', ')}</summary>`,
      '',
      ...rest.flatMap((l) => [image(l), '']),
      '</details>',
      ''
    )
  return lines.join('\n')
}

// Where images cannot be committed (a read-only token, assets-branch: '', a
// fork): one line that says where the charts are, not gnuplot's text charts,
// which cannot show the colours, bands and marks the images carry, nor fit
// the comment's width.
export function chartsElsewhereMarkdown(
  charts: ChartSet,
  artifactUrl: string,
  why: string
): string {
  if (charts.images.length === 0) return ''
  const names = timeChangeFirst(charts.images)
    .map((c) => title(c.name))
    .join(', ')
  const where =
    artifactUrl !== ''
      ? `in the [results artifact](${artifactUrl}) (\`charts/\`)`
      : 'in the results artifact (`charts/`)'
  return `**Charts** (${names}): ${where}; ${why}.\n`
}
