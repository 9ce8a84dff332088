// Render report.md the way a pull-request comment shows it and measure what a
// reader sees: GitHub-flavoured Markdown (markdown-it, configured as GitHub
// renders comments) with GitHub's own Markdown CSS (github-markdown-css), in
// headless Chromium, in a box 780 px wide (the Markdown box of a comment).
//
//   node scripts/tests/render/render.mjs --out DIR CASE_DIR...
//
// Each CASE_DIR holds a report.md (as scripts/report writes it), optionally
// its verdict.json and charts/*.png. For each case this writes into DIR:
//   NAME.html       the rendered comment (open it in a browser), with NAME-charts/
//   NAME.png        full-page screenshot, <details> folded (what a reader first sees)
//   NAME-open.png   full-page screenshot, every <details> opened
//   NAME-first-screen.png  the first screen only (the box's top 600 px)
// and DIR/measures.json: one object per case with the figures the checks
// read (scripts/tests/report_render.bats). It prints one line per case.
// It measures only; the checks decide.

// measure() and setDetails() run in the page, where document is defined
/* global document */

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import MarkdownIt from 'markdown-it'
import { chromium } from 'playwright-core'

const require = createRequire(import.meta.url)

// The Markdown box of a GitHub comment is 780 px wide; the comment pads it
// with 16 px on each side.
const BOX_WIDTH = 780
const BOX_PADDING = 16
// The first screen: what a reader sees of the comment without scrolling,
// measured from the top of the Markdown box (scripts/tests/report_render.bats
// says why 600 px).
const FIRST_SCREEN = Number(process.env.AFPBENCH_FIRST_SCREEN_PX || 600)
const CHARTS_MARKER = '<!-- afpbench-action:charts -->'
const CHARTS_MARKER_FOLDED = '<!-- afpbench-action:charts folded -->'
const CHROMIUM = process.env.AFPBENCH_CHROMIUM || '/usr/bin/chromium'
// Flags that work on a machine without a network (no update checks, no sync,
// no QUIC) and without a GPU or a sandbox (containers, CI).
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]

// GitHub renders comments with cmark-gfm: raw HTML allowed (then sanitised:
// <details>, <summary>, <sub> stay, comments vanish), tables, strikethrough,
// autolinks, and every newline in a paragraph a line break (comments, unlike
// files in a repository, keep the writer's line breaks). No typographer.
const md = new MarkdownIt({ html: true, linkify: true, breaks: true, typographer: false })

// title of a chart file as the action writes it (src/action/charts.ts)
function chartTitle(name) {
  return name.replace(/\.[a-z]+$/, '').replace(/[_-]+/g, ' ')
}

// The comment the action posts: the report, its chart images where the report
// marks their place (the marker line) or else at the end (src/action/publish.ts,
// placeCharts; src/action/charts.ts, imagesMarkdown), then the footer. Images are the
// case's PNG files, copied beside the page and linked by relative URL.
// As imagesMarkdown does: the time-change chart in view, the others folded;
// all folded where the report's marker says so.
function chartsMarkdown(images, folded) {
  if (images.length === 0) return []
  const timeChange = images.find((i) => i.name.startsWith('ratios.')) ?? images[0]
  const first = folded ? null : timeChange
  const rest = [timeChange, ...images.filter((i) => i !== timeChange)].filter((i) => i !== first)
  const image = (i) => `![${chartTitle(i.name)}](${encodeURI(i.url)})`
  const lines = first === null ? [] : [image(first), '']
  if (rest.length > 0)
    lines.push(
      `<details><summary>${first === null ? 'Charts' : 'More charts'}: ${rest.map((i) => chartTitle(i.name)).join(', ')}</summary>`,
      '',
      ...rest.flatMap((i) => [image(i), '']),
      '</details>'
    )
  return lines
}

function commentMarkdown(report, images) {
  const lines = report.replace(/\r\n/g, '\n').split('\n')
  const at = lines.findIndex((l) => l.trim() === CHARTS_MARKER || l.trim() === CHARTS_MARKER_FOLDED)
  const links = chartsMarkdown(images, at >= 0 && lines[at].trim() === CHARTS_MARKER_FOLDED)
  let body
  if (at >= 0) {
    lines.splice(at, 1, ...(links.length > 0 ? ['', ...links, ''] : []))
    body = lines.join('\n').trimEnd()
  } else {
    body = report.trimEnd()
    if (links.length > 0) body += ['', '', ...links].join('\n')
  }
  const footer =
    '<sub>afpbench-action · [workflow run](https://github.com/o/r/actions/runs/1)</sub>'
  return `${body}\n\n${footer}\n`
}

function page(title, bodyHtml, css) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>${css}</style>
<style>
  body { margin: 0; background: #fff; }
  .comment { padding: ${BOX_PADDING}px; width: ${BOX_WIDTH}px; }
  .comment > .markdown-body { width: ${BOX_WIDTH}px; box-sizing: content-box; padding: 0; }
</style></head>
<body><div class="comment"><article class="markdown-body" id="box">
${bodyHtml}
</article></div></body></html>
`
}

// What the checks read, measured in the page. y positions are from the top of
// the Markdown box.
function measure() {
  const box = document.getElementById('box')
  const top = box.getBoundingClientRect().top
  const rel = (r) => ({ top: Math.round(r.top - top), bottom: Math.round(r.bottom - top) })
  const visible = [...box.children].filter((e) => e.getBoundingClientRect().height > 0)
  const first = visible[0] || null
  let reason = null
  if (first) {
    // the shared reason: text right under the heading (a paragraph of chart
    // images alone is not one)
    const next = first.nextElementSibling
    const words = next ? next.innerText.trim() !== '' : false
    if (words && ['P', 'UL', 'OL', 'BLOCKQUOTE'].includes(next.tagName)) {
      reason = {
        tag: next.tagName.toLowerCase(),
        text: next.innerText.slice(0, 200),
        ...rel(next.getBoundingClientRect())
      }
    }
  }
  const tables = [...box.querySelectorAll('table')].map((t, i) => ({
    index: i,
    top: Math.round(t.getBoundingClientRect().top - top),
    scrollWidth: t.scrollWidth,
    clientWidth: t.clientWidth,
    columns: t.rows.length > 0 ? t.rows[0].cells.length : 0,
    inDetails: t.closest('details') !== null,
    header: t.rows.length > 0 ? t.rows[0].innerText.replace(/\s+/g, ' ').slice(0, 80) : ''
  }))
  const pres = [...box.querySelectorAll('pre')].map((p) => p.scrollWidth)
  return {
    boxWidth: box.clientWidth,
    boxScrollWidth: box.scrollWidth,
    height: Math.round(box.getBoundingClientRect().height),
    first: first
      ? {
          tag: first.tagName.toLowerCase(),
          text: first.innerText,
          ...rel(first.getBoundingClientRect())
        }
      : null,
    reason,
    tables,
    widestPre: pres.length > 0 ? Math.max(...pres) : 0,
    headings: [...box.querySelectorAll('h1, h2, h3, h4')].map((h) => h.innerText.trim()),
    images: [...box.querySelectorAll('img')].map((i) => ({
      src: i.getAttribute('src'),
      loaded: i.complete && i.naturalWidth > 0,
      top: Math.round(i.getBoundingClientRect().top - top)
    }))
  }
}

function setDetails(open) {
  for (const d of document.querySelectorAll('details')) d.open = open
}

function parseArgs(argv) {
  const args = { out: '', cases: [] }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') args.out = argv[++i] || ''
    else args.cases.push(argv[i])
  }
  if (!args.out || args.cases.length === 0) {
    console.error('usage: node scripts/tests/render/render.mjs --out DIR CASE_DIR...')
    process.exit(64)
  }
  return args
}

async function main() {
  const { out, cases } = parseArgs(process.argv.slice(2))
  mkdirSync(out, { recursive: true })
  const css = readFileSync(require.resolve('github-markdown-css/github-markdown-light.css'), 'utf8')
  const profile = mkdtempSync(path.join(tmpdir(), 'afpbench-render-profile.'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: BOX_WIDTH + 2 * BOX_PADDING, height: 900 },
    deviceScaleFactor: 1,
    timeout: 60000
  })
  const results = []
  try {
    const tab = context.pages()[0] || (await context.newPage())
    for (const dir of cases) {
      const name = path.basename(dir)
      const report = readFileSync(path.join(dir, 'report.md'), 'utf8')
      const verdictFile = path.join(dir, 'verdict.json')
      const status = existsSync(verdictFile)
        ? JSON.parse(readFileSync(verdictFile, 'utf8')).status
        : null
      const chartsIn = path.join(dir, 'charts')
      const chartsOut = path.join(out, `${name}-charts`)
      const images = []
      if (existsSync(chartsIn)) {
        for (const f of readdirSync(chartsIn)
          .filter((n) => n.endsWith('.png'))
          .sort()) {
          mkdirSync(chartsOut, { recursive: true })
          copyFileSync(path.join(chartsIn, f), path.join(chartsOut, f))
          images.push({ name: f, url: `${name}-charts/${f}` })
        }
      }
      const markdown = commentMarkdown(report, images)
      const html = path.join(out, `${name}.html`)
      writeFileSync(html, page(name, md.render(markdown), css))
      await tab.goto(`file://${html}`, { waitUntil: 'load' })
      // as GitHub opens it: <details open> open, the others folded
      const asOpened = await tab.evaluate(measure)
      // tables inside <details> count too: a reader opens them
      await tab.evaluate(setDetails, true)
      const open = await tab.evaluate(measure)
      await tab.screenshot({ path: path.join(out, `${name}-open.png`), fullPage: true })
      await tab.evaluate(setDetails, false)
      const folded = await tab.evaluate(measure)
      await tab.screenshot({ path: path.join(out, `${name}.png`), fullPage: true })
      await tab.screenshot({
        path: path.join(out, `${name}-first-screen.png`),
        clip: { x: 0, y: 0, width: BOX_WIDTH + 2 * BOX_PADDING, height: FIRST_SCREEN + BOX_PADDING }
      })
      const widest = open.tables.reduce((a, t) => Math.max(a, t.scrollWidth), 0)
      const r = {
        name,
        status,
        chars: [...report].length, // characters (code points), as wc -m counts them
        boxWidth: folded.boxWidth,
        boxScrollWidth: open.boxScrollWidth,
        heightFolded: folded.height,
        heightAsOpened: asOpened.height,
        heightOpen: open.height,
        first: folded.first,
        reason: folded.reason,
        tables: open.tables,
        widestTable: widest,
        widestPre: open.widestPre,
        images: open.images,
        headings: open.headings,
        html,
        screenshot: path.join(out, `${name}.png`),
        screenshotOpen: path.join(out, `${name}-open.png`)
      }
      results.push(r)
      console.log(
        `render: ${name}: ${r.status ?? '-'}, ${r.chars} characters, ${r.heightFolded} px tall ` +
          `(${r.heightOpen} px with details open), heading y ${r.first ? r.first.top : '-'}` +
          `–${r.first ? r.first.bottom : '-'} px, reason ends at ${r.reason ? r.reason.bottom : '-'} px, ` +
          `${r.tables.length} tables, widest ${widest} px of ${r.boxWidth}`
      )
    }
  } finally {
    await context.close()
    rmSync(profile, { recursive: true, force: true })
  }
  writeFileSync(path.join(out, 'measures.json'), `${JSON.stringify(results, null, 2)}\n`)
  console.log(`render: screenshots and pages in ${out}`)
}

await main()
