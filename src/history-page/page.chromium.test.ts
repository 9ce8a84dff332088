// The history page in a real browser: headless Chromium (Debian's, at
// /usr/bin/chromium: scripts/install-deps --test) driven by playwright-core,
// the page made by scripts/history-page (the committed dist/ bundle) from a
// history of 500 real records (testing/make-history.ts: two real lantest 1-12
// runs judged by scripts/compare, a step injected), served by a local static
// server on this test's own port.
//
// It picks a row with the filters, finds the step and reads its commit, its
// subject and the AFP command of its attribution from the page; opens the same
// row from its permalink; zooms to the step. It measures how long 500 runs take
// to load and draw (printed: a figure, not a pass mark, as every timing of
// this suite), and the page's bytes. Data a branch's writer could plant
// (markup in a subject, a script: address) shows as text and links nowhere.
//
// Screenshots go to $AFPBENCH_TEST_ARTIFACTS/history-page/ (scripts/test-all:
// its log directory's artifacts/), and to $AFPBENCH_PAGE_SCREENSHOT when set
// (docs/img/history-page.png is taken that way).

import { spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { createServer, type Server } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  commitOf,
  makeHistory,
  REPO_ROOT,
  STEP_COMMAND,
  STEP_SITE,
  STEP_SUBJECT,
  STEP_TEST_ROW,
  type Made
} from './testing/make-history.js'

const PORT = 10730
// netatalk 4.3.2..4.4.0 backfilled (docs/backfill.md): 157 first-parent
// commits, one step, at bb28fd0e67f2, attributed by scripts/backfill
const REAL_BACKFILL = path.join(import.meta.dirname, 'testing', 'netatalk-4.3.2-4.4.0.tar.gz')
const REAL_STEP = {
  commit: 'bb28fd0e67f2373fcdf65e9ec6e8c2057a89be22',
  subject: 'Dircache improvements and testsuite fixes',
  command: 'FPGetFileDirParms',
  site: 'dirlookup (directory.c:546)'
}
const CHROMIUM = process.env.AFPBENCH_CHROMIUM || '/usr/bin/chromium'
const REPO_URL = 'https://github.com/Netatalk/netatalk'
const RUNS = 500
const work = mkdtempSync(path.join(os.tmpdir(), 'afpbench-history-page-'))
// kept after the test, for a person to look at
const artifacts = path.join(
  process.env.AFPBENCH_TEST_ARTIFACTS ||
    mkdtempSync(path.join(os.tmpdir(), 'afpbench-test-artifacts.')),
  'history-page'
)
const pages = path.join(work, 'pages') // one page per history, served under /<name>/

let server: Server
let context: BrowserContext
let made: Made
const problems: string[] = [] // console errors, CSP refusals, requests elsewhere

function makePage(
  name: string,
  dir: string,
  extra: string[] = []
): { bytes: number; gzip: number; data: number } {
  const out = path.join(pages, name)
  const r = spawnSync(
    path.join(REPO_ROOT, 'scripts', 'history-page'),
    [dir, out, '--repo-url', REPO_URL, ...extra],
    {
      encoding: 'utf8'
    }
  )
  if (r.status !== 0) throw new Error(`scripts/history-page failed (${r.status}): ${r.stderr}`)
  let bytes = 0
  let gzip = 0
  let data = 0
  const walk = (d: string): void => {
    for (const f of readdirSync(d)) {
      const p = path.join(d, f)
      if (statSync(p).isDirectory()) walk(p)
      else {
        const b = readFileSync(p)
        bytes += b.length
        gzip += gzipSync(b).length
        if (p.includes(`${path.sep}data${path.sep}`)) data += b.length
      }
    }
  }
  walk(out)
  return { bytes, gzip, data }
}

// A static server for the pages: GET only, files under pages/ only.
function serve(): Promise<Server> {
  const types: Record<string, string> = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.json': 'application/json'
  }
  const s = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    let file = path.normalize(path.join(pages, decodeURIComponent(url.pathname)))
    if (file.endsWith(path.sep)) file = path.join(file, 'index.html')
    if (
      req.method !== 'GET' ||
      !file.startsWith(pages + path.sep) ||
      !existsSync(file) ||
      !statSync(file).isFile()
    ) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, {
      'content-type': types[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store'
    })
    res.end(readFileSync(file))
  })
  return new Promise((resolve) => s.listen(PORT, '127.0.0.1', () => resolve(s)))
}

async function open(url: string): Promise<Page> {
  const page = await context.newPage()
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`)
  })
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  page.on('request', (r) => {
    if (!r.url().startsWith(`http://127.0.0.1:${PORT}/`))
      problems.push(`request elsewhere: ${r.url()}`)
  })
  await page.goto(url)
  await page.waitForSelector('html[data-ready="1"]', { timeout: 30_000 })
  return page
}

async function ready(page: Page): Promise<void> {
  await page.waitForSelector('html[data-ready="1"]', { timeout: 30_000 })
}

interface Timing {
  loadedMs: number
  drawnMs: number
  charts: number
}

// what the page reports (browser/app.ts), as this side sees its window (the
// functions given to page.evaluate run in the page: they name no helper)
interface PageWindow {
  afpbenchPage?: Timing & { drawAll: () => { charts: number; ms: number } }
  pwned?: number
}

function timing(page: Page): Promise<Timing> {
  return page.evaluate(() => {
    const t = (globalThis as unknown as PageWindow).afpbenchPage
    return { loadedMs: t?.loadedMs ?? -1, drawnMs: t?.drawnMs ?? -1, charts: t?.charts ?? -1 }
  })
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1]
}

function shot(page: Page, name: string): Promise<Buffer> {
  mkdirSync(artifacts, { recursive: true })
  return page.screenshot({ path: path.join(artifacts, name), fullPage: false })
}

let size = { bytes: 0, gzip: 0, data: 0 }

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: run scripts/install-deps --test`)
  made = makeHistory(path.join(work, 'history'), RUNS, work)
  size = makePage('h500', made.dir)
  // the real backfill: its records, as scripts/backfill wrote them
  const real = path.join(work, 'backfill')
  mkdirSync(real)
  const x = spawnSync('tar', ['-xzf', REAL_BACKFILL, '-C', real], { encoding: 'utf8' })
  if (x.status !== 0) throw new Error(`tar failed: ${x.stderr}`)
  makePage('backfill', real)
  server = await serve()
  context = await chromium.launchPersistentContext(path.join(work, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run'
    ]
  })
}, 120_000)

afterAll(async () => {
  await context?.close()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  rmSync(work, { recursive: true, force: true })
  console.log(`history page screenshots: ${artifacts}`)
})

describe('the history page of 500 runs in Chromium', () => {
  it('loads and draws (the figures are printed)', async () => {
    const first: Timing[] = []
    for (let i = 0; i < 5; i++) {
      const page = await open(`http://127.0.0.1:${PORT}/h500/`)
      first.push(await timing(page))
      if (i < 4) await page.close()
      else {
        const all = await page.evaluate(() =>
          (globalThis as unknown as PageWindow).afpbenchPage?.drawAll()
        )
        const rows = await page.locator('.card').count()
        await shot(page, 'grid.png')
        console.log(
          `history page, ${RUNS} runs (lantest 1-12, every count row): ${size.bytes} bytes, ${size.gzip} gzipped (data ${size.data}); ` +
            `grid loaded and its first ${first[0].charts} charts drawn in ${median(first.map((t) => t.drawnMs)).toFixed(0)} ms ` +
            `(median of 5: ${first.map((t) => t.drawnMs.toFixed(0)).join(', ')}; data read in ${median(first.map((t) => t.loadedMs)).toFixed(0)} ms); ` +
            `all ${rows} rows drawn in ${all?.ms.toFixed(0)} ms more; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`
        )
        expect(all?.charts).toBeGreaterThan(100)
        await page.close()
      }
    }
    expect(first.every((t) => t.charts >= 6)).toBe(true)
    expect(problems).toEqual([])
  })

  it('picks a row with the filters, finds its step, and reads its commit and AFP command', async () => {
    const page = await open(`http://127.0.0.1:${PORT}/h500/`)
    await page.selectOption('#test', 'lantest 9')
    await ready(page)
    await page.selectOption('#fam', 'afpd_sys_stat')
    await ready(page)
    const cards = page.locator('.card')
    expect(await cards.count()).toBe(1)
    await cards.first().locator('h3 a').click()
    await ready(page)
    expect(await page.locator('#focus').getAttribute('data-metric')).toBe(STEP_TEST_ROW)
    const steps = page.locator('#focus li.step')
    expect(await steps.count()).toBe(1)
    const step = steps.first()
    const at = commitOf(made.stepAt)
    expect(await step.locator('a.commit').getAttribute('href')).toBe(`${REPO_URL}/commit/${at}`)
    expect(await step.locator('a.commit').innerText()).toBe(at.slice(0, 7))
    expect(await step.locator('.subject').innerText()).toBe(STEP_SUBJECT)
    expect(await step.locator('.command').innerText()).toBe(STEP_COMMAND)
    expect(await step.locator('.attribution').innerText()).toContain('lstat 1 → 2 per call')
    expect(await step.locator('.site').innerText()).toBe(STEP_SITE)
    expect(await step.locator('.change').innerText()).toBe('+20 %')
    // zoom to the step: the chart shows the runs around it
    await step.locator('button.zoom').click()
    const slot = page.locator('#focus .big')
    expect(await slot.getAttribute('data-from')).toBe(String(made.stepAt - 15))
    expect(await slot.getAttribute('data-to')).toBe(String(made.stepAt + 15))
    await shot(page, 'row.png')
    await page.close()
    expect(problems).toEqual([])
  })

  it('opens one row from its permalink, with the releases marked', async () => {
    const t0 = Date.now()
    const page = await open(`http://127.0.0.1:${PORT}/h500/#row=${STEP_TEST_ROW}`)
    const t = await timing(page)
    console.log(
      `history page, ${RUNS} runs: one row from its permalink loaded and drawn in ${t.drawnMs.toFixed(0)} ms (${Date.now() - t0} ms from the driver)`
    )
    expect(await page.locator('#focus h2').innerText()).toBe('lantest 9 · afpd stat calls')
    expect(await page.locator('#focus .releases li').allInnerTexts()).toEqual([
      `v4.3.0 at ${commitOf(Math.floor(RUNS * 0.25)).slice(0, 7)}`,
      `v4.4.0 at ${commitOf(Math.floor(RUNS * 0.8)).slice(0, 7)}`
    ])
    await page.close()
  })

  it('the AFP command filter keeps the rows whose steps it carries', async () => {
    const page = await open(`http://127.0.0.1:${PORT}/h500/#cmd=${STEP_COMMAND}`)
    const rows = await Promise.all(
      (await page.locator('.card').all()).map((c) => c.getAttribute('data-metric'))
    )
    // the attribution names the per-op stat row; lantest 9's stat row moved with it
    expect(rows).toEqual(['aggregate.afpd_sys_stat_per_op', STEP_TEST_ROW])
    expect(await page.locator('.steps-box li.step').count()).toBe(2)
    await page.close()
  })

  it("the page of a real backfill (netatalk 4.3.2..4.4.0): the step's commit, subject, AFP command and code site", async () => {
    const page = await open(
      `http://127.0.0.1:${PORT}/backfill/#row=aggregate.afpd_sys_total_per_op`
    )
    const step = page.locator('#focus li.step')
    expect(await step.count()).toBe(1)
    expect(await step.locator('a.commit').getAttribute('href')).toBe(
      `${REPO_URL}/commit/${REAL_STEP.commit}`
    )
    expect(await step.locator('a.commit').innerText()).toBe(REAL_STEP.commit.slice(0, 7))
    expect(await step.locator('.subject').innerText()).toBe(REAL_STEP.subject)
    expect(await step.locator('.command').first().innerText()).toBe(REAL_STEP.command)
    expect(await step.locator('.site').innerText()).toBe(REAL_STEP.site)
    await shot(page, 'backfill.png')
    // docs/img/history-page.png is this page
    if (process.env.AFPBENCH_PAGE_SCREENSHOT)
      await page.screenshot({ path: process.env.AFPBENCH_PAGE_SCREENSHOT, fullPage: true })
    expect(problems).toEqual([])
    await page.close()
  })

  it('shows what a branch writer planted as text, and links nowhere else', async () => {
    const dir = path.join(work, 'hostile')
    const small = makeHistory(dir, 12, work)
    const evil = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
    const r = small.records[7]
    const file = path.join(dir, 'runs', 'default', r.date.slice(0, 7))
    const name = readdirSync(file).find((f) => f.includes(r.commit.slice(0, 12))) ?? ''
    writeFileSync(
      path.join(file, name),
      JSON.stringify({
        ...r,
        subject: evil,
        release: '<b>v9</b>',
        steps: [
          {
            metric: STEP_TEST_ROW,
            before: 1,
            after: 2,
            commands: [{ command: '<i>FPX</i>', calls: [] }],
            site: evil
          }
        ]
      })
    )
    makePage('hostile', dir)
    // a key.json edited on the branch: a script: address as the repository
    const index = path.join(pages, 'hostile', 'data', 'index.json')
    writeFileSync(index, readFileSync(index, 'utf8').replace(REPO_URL, 'javascript:window.pwned=3'))
    const page = await open(`http://127.0.0.1:${PORT}/hostile/`)
    expect(await page.evaluate(() => (globalThis as unknown as PageWindow).pwned)).toBeUndefined()
    expect(await page.locator('img').count()).toBe(0)
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0)
    // the planted text is there, as text
    const shown = await page.locator('body').innerText()
    expect(shown).toContain('<i>FPX</i>')
    expect(problems).toEqual([])
    await page.close()
  })
})
