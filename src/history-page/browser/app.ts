// The history page: loads data/index.json and a key's files, then shows the
// grid of rows or one row, as the URL's hash says; the filters rewrite the
// hash. window.afpbenchPage reports when the first view was loaded and drawn
// (the browser test reads it: docs/history-page.md).

import type { PageIndex } from '../page-data.js'
import { el, option } from './dom.js'
import { loadIndex, loadKey } from './load.js'
import { buildModel, readState, stateHash, type Model, type State } from './model.js'
import { focusView, gridView, type FocusView, type GridView } from './views.js'

interface Timing {
  loadedMs: number // data fetched and read, since the navigation began
  drawnMs: number // the first view drawn
  charts: number // charts drawn in it
  drawAll: () => { charts: number; ms: number }
}

declare global {
  interface Window {
    afpbenchPage?: Timing
  }
}

const app = document.getElementById('app') as HTMLElement
const models = new Map<string, Model>()
let index: PageIndex | null = null
let view: GridView | FocusView | null = null

async function modelOf(dir: string): Promise<Model> {
  const had = models.get(dir)
  if (had !== undefined) return had
  if (index === null) throw new Error('no index')
  const runs = index.keys.find((k) => k.dir === dir)?.runs ?? 0
  const m = buildModel(await loadKey(dir, runs), index)
  models.set(dir, m)
  return m
}

function go(s: State): void {
  location.hash = stateHash(s)
}

function header(m: Model, s: State): HTMLElement {
  const repo = m.index.repoUrl
  const first = m.runs[0]?.date.slice(0, 10) ?? ''
  const last = m.runs[m.runs.length - 1]?.date.slice(0, 10) ?? ''
  const keySelect =
    m.index.keys.length > 1
      ? el(
          'label',
          {},
          'series ',
          (() => {
            const sel = el('select', { id: 'key' })
            for (const k of m.index.keys)
              sel.append(option(k.dir, k.key || 'default', k.dir === m.data.dir))
            sel.addEventListener('change', () => go({ ...s, key: sel.value, row: '' }))
            return sel
          })()
        )
      : null
  return el(
    'header',
    {},
    el(
      'h1',
      {},
      'afpbench history',
      repo ? ' of ' : null,
      repo
        ? el(
            'a',
            { href: repo, rel: 'noopener noreferrer' },
            repo.replace(/^https:\/\/(github\.com\/)?/, '')
          )
        : null
    ),
    el(
      'p',
      { class: 'summary' },
      `${m.runs.length} runs, ${first} to ${last} · ${m.releases.length} releases · ${m.data.steps.length} steps in ${m.stepsByRow.size} rows`,
      m.skipped.length > 0 ? ` · ${m.skipped.length} commits skipped (no build)` : ''
    ),
    keySelect,
    el(
      'p',
      { class: 'legend' },
      el('span', { class: 'lg-step' }, '┃'),
      ' a step: a level that changed at one commit and stayed ',
      el('span', { class: 'lg-release' }, '┆'),
      ' a release ',
      el('span', { class: 'lg-skip' }, '╷'),
      ' a commit skipped'
    )
  )
}

function select(
  id: string,
  label: string,
  value: string,
  options: [string, string][],
  set: (v: string) => void
): HTMLElement {
  const sel = el('select', { id })
  for (const [v, text] of options) sel.append(option(v, text, v === value))
  sel.addEventListener('change', () => set(sel.value))
  return el('label', {}, `${label} `, sel)
}

function filters(m: Model, s: State): HTMLElement {
  const set = (patch: Partial<State>): void => go({ ...s, ...patch, row: '' })
  const steps = el('input', { type: 'checkbox', id: 'only-steps' })
  steps.checked = s.steps
  steps.addEventListener('change', () => set({ steps: steps.checked }))
  return el(
    'nav',
    { class: 'filters' },
    select(
      'test',
      'test',
      s.test,
      [
        ['', 'every test'],
        ...m.tests.map((t): [string, string] => [
          t,
          t === 'aggregate' ? 'per AFP op (aggregates)' : t
        ])
      ],
      (v) => set({ test: v })
    ),
    select(
      'fam',
      'row',
      s.fam,
      [['', 'every row'], ...m.families.map((f): [string, string] => [f.family, f.label])],
      (v) => set({ fam: v })
    ),
    select(
      'cmd',
      'AFP command',
      s.cmd,
      [['', 'any'], ...m.commands.map((c): [string, string] => [c, c])],
      (v) => set({ cmd: v })
    ),
    select(
      'kinds',
      'kinds',
      s.kinds,
      [
        ['counts', 'counts (IO, system calls, instructions)'],
        ['all', 'counts and timings']
      ],
      (v) => set({ kinds: v === 'all' ? 'all' : 'counts' })
    ),
    el('label', {}, steps, ' only rows with a step')
  )
}

async function render(): Promise<void> {
  const s = readState(location.hash)
  if (index === null) index = await loadIndex()
  if (index.keys.length === 0) {
    app.replaceChildren(el('p', {}, 'The history has no runs yet.'))
    return
  }
  const dir = index.keys.some((k) => k.dir === s.key) ? s.key : index.keys[0].dir
  const m = await modelOf(dir)
  const loadedMs = performance.now()
  view?.destroy()
  const row = s.row !== '' ? m.rowsByMetric.get(s.row) : undefined
  const parts: Node[] = [header(m, s)]
  if (s.row !== '' && row === undefined)
    parts.push(el('p', { class: 'warning' }, `No row ${s.row} in this history.`))
  if (row !== undefined) {
    const v = focusView(m, s, row)
    view = v
    app.replaceChildren(...parts, v.root)
    v.draw()
    report(loadedMs, 1, () => ({ charts: 0, ms: 0 }))
  } else {
    const v = gridView(m, s)
    view = v
    app.replaceChildren(...parts, filters(m, s), v.root)
    const n = v.drawVisible()
    report(loadedMs, n, () => {
      const t = performance.now()
      return { charts: v.drawAll(), ms: performance.now() - t }
    })
  }
}

// the first view's figures, once its charts are on screen
function report(loadedMs: number, charts: number, drawAll: Timing['drawAll']): void {
  requestAnimationFrame(() => {
    window.afpbenchPage = { loadedMs, drawnMs: performance.now(), charts, drawAll }
    document.documentElement.dataset.ready = '1'
  })
}

function fail(e: unknown): void {
  app.replaceChildren(
    el(
      'p',
      { class: 'error' },
      `The history could not be read: ${e instanceof Error ? e.message : String(e)}`
    )
  )
  document.documentElement.dataset.ready = 'error'
}

addEventListener('hashchange', () => {
  document.documentElement.dataset.ready = ''
  render().catch(fail)
})
render().catch(fail)
