// The two views: the grid of rows (a small chart each, drawn when it scrolls
// into view, and the steps of the rows kept above it) and one row (its chart
// with zoom, the run under the cursor, its steps with their commits and
// attribution, the releases).

import type uPlot from 'uplot'
import type { PageStep, Row } from '../page-data.js'
import { focusChart, miniChart } from './charts.js'
import { change, commitLink, el, fmt } from './dom.js'
import {
  filterRows,
  filterSteps,
  isCount,
  marksOf,
  stateHash,
  type Model,
  type State
} from './model.js'

const MAX_STEPS_LISTED = 40

function rowHash(s: State, metric: string): string {
  return stateHash({ ...s, row: metric })
}

// One step: the row's move, the commit where the new level begins (its link
// and subject), and the record's attribution where it has one: the AFP
// commands and their calls per command, and the code site.
export function stepItem(m: Model, st: PageStep, s: State, withRow: boolean): HTMLLIElement {
  const row = m.rowsByMetric.get(st.metric)
  const run = m.runs[st.at]
  const unit = row?.unit ?? ''
  const li = el(
    'li',
    {
      class: 'step',
      'data-metric': st.metric,
      'data-commit': run.commit,
      'data-run': String(st.at)
    },
    withRow
      ? el('a', { class: 'row-link', href: rowHash(s, st.metric) }, row?.label ?? st.metric)
      : null,
    withRow ? ': ' : null,
    el('strong', { class: 'change' }, change(st.before, st.after)),
    ` (${fmt(st.before)} → ${fmt(st.after)}${unit ? ` ${unit}` : ''}) at `,
    commitLink(m.index.repoUrl, run.commit),
    ' ',
    el('span', { class: 'subject' }, run.subject || '(no subject recorded)'),
    el('span', { class: 'date' }, ` ${run.date.slice(0, 10)}`),
    run.release ? el('span', { class: 'tag' }, run.release) : null,
    run.source === 'reused' && run.reusedFrom
      ? el(
          'span',
          { class: 'note' },
          ` (the measurement of ${run.reusedFrom.slice(0, 7)}: no built file changed)`
        )
      : null
  )
  const a = run.steps[st.attribution]
  if (a !== undefined && (a.commands.length > 0 || a.site !== '')) {
    const box = el('div', { class: 'attribution' })
    for (const c of a.commands) {
      const calls = c.calls.map((k) => `${k.call} ${fmt(k.before)} → ${fmt(k.after)}`).join(', ')
      box.append(
        el(
          'div',
          { class: 'cmd' },
          el('span', { class: 'command' }, c.command),
          calls ? `: ${calls} per call` : ''
        )
      )
    }
    if (a.site !== '')
      box.append(el('div', { class: 'site-line' }, 'at ', el('code', { class: 'site' }, a.site)))
    li.append(box)
  }
  return li
}

function lastValue(xs: (number | null)[]): number | null {
  for (let i = xs.length - 1; i >= 0; i--) if (xs[i] !== null) return xs[i]
  return null
}

export interface GridView {
  root: HTMLElement
  drawVisible(): number // draws the charts in view now; how many
  drawAll(): number
  destroy(): void
}

export function gridView(m: Model, s: State): GridView {
  const rows = filterRows(m, s)
  const steps = filterSteps(m, rows, s)
  const charts = new Map<string, uPlot>()
  const slots = new Map<string, HTMLElement>()
  const root = el('section', { id: 'grid' })
  if (steps.length > 0) {
    const list = el('ol', { class: 'steps' })
    for (const st of steps.slice(0, MAX_STEPS_LISTED)) list.append(stepItem(m, st, s, true))
    root.append(
      el(
        'details',
        { class: 'steps-box', open: '' },
        el(
          'summary',
          {},
          `Steps: ${steps.length} in the rows shown${steps.length > MAX_STEPS_LISTED ? `, the newest ${MAX_STEPS_LISTED} listed` : ''}`
        ),
        list
      )
    )
  }
  root.append(el('p', { class: 'count' }, `${rows.length} of ${m.data.rows.length} rows`))
  const cards = el('div', { class: 'cards' })
  for (const row of rows) cards.append(card(m, s, row, slots))
  root.append(cards)
  const draw = (metric: string): boolean => {
    const slot = slots.get(metric)
    const row = m.rowsByMetric.get(metric)
    if (slot === undefined || row === undefined || charts.has(metric)) return false
    charts.set(
      metric,
      miniChart(slot, m.values.get(metric) ?? [], marksOf(m, metric), {
        width: Math.max(200, slot.clientWidth),
        trendOnly: !isCount(row)
      })
    )
    return true
  }
  const observer = new IntersectionObserver(
    (entries) => {
      for (const e of entries)
        if (e.isIntersecting) {
          const metric = (e.target as HTMLElement).dataset.metric ?? ''
          draw(metric)
          observer.unobserve(e.target)
        }
    },
    { rootMargin: '300px' }
  )
  for (const slot of slots.values()) observer.observe(slot)
  return {
    root,
    drawVisible: () => {
      let n = 0
      for (const [metric, slot] of slots) {
        const r = slot.getBoundingClientRect()
        if (r.bottom >= 0 && r.top <= innerHeight && draw(metric)) n++
      }
      return n
    },
    drawAll: () => {
      let n = 0
      for (const metric of slots.keys()) if (draw(metric)) n++
      return n
    },
    destroy: () => {
      observer.disconnect()
      for (const c of charts.values()) c.destroy()
    }
  }
}

function card(m: Model, s: State, row: Row, slots: Map<string, HTMLElement>): HTMLElement {
  const xs = m.values.get(row.metric) ?? []
  const last = lastValue(xs)
  const steps = m.stepsByRow.get(row.metric) ?? []
  const slot = el('div', { class: 'mini', 'data-metric': row.metric })
  slots.set(row.metric, slot)
  return el(
    'article',
    { class: 'card', 'data-metric': row.metric },
    el('h3', {}, el('a', { href: rowHash(s, row.metric) }, row.label)),
    el(
      'p',
      { class: 'meta' },
      last === null ? 'no figure' : `${fmt(last)} ${row.unit}`,
      isCount(row) ? null : el('span', { class: 'badge trend' }, 'trend only'),
      steps.length > 0
        ? el(
            'span',
            { class: 'badge step-badge' },
            `${steps.length} step${steps.length > 1 ? 's' : ''}`
          )
        : null
    ),
    slot
  )
}

export interface FocusView {
  root: HTMLElement
  draw(): void
  destroy(): void
}

export function focusView(m: Model, s: State, row: Row): FocusView {
  const xs = m.values.get(row.metric) ?? []
  const steps = m.stepsByRow.get(row.metric) ?? []
  const hover = el(
    'p',
    { class: 'hover' },
    'Point at the chart for a run; drag across it to zoom in.'
  )
  const slot = el('div', { class: 'big' })
  let chart: uPlot | null = null
  const reset = el('button', { type: 'button' }, 'Reset zoom')
  reset.addEventListener('click', () =>
    chart?.setScale('x', { min: 0, max: Math.max(1, xs.length - 1) })
  )
  const showRun = (i: number | null): void => {
    const run = i === null ? undefined : m.runs[i]
    if (i === null || run === undefined) return
    const v = xs[i]
    hover.replaceChildren()
    hover.append(
      el(
        'span',
        {},
        `run ${i + 1} of ${m.runs.length} · ${run.date.slice(0, 16).replace('T', ' ')} · `,
        commitLink(m.index.repoUrl, run.commit),
        ' ',
        el('span', { class: 'subject' }, run.subject),
        ' · ',
        el('strong', {}, v === null ? 'no figure' : `${fmt(v)} ${row.unit}`),
        run.release ? el('span', { class: 'tag' }, run.release) : null,
        run.source === 'reused'
          ? el(
              'span',
              { class: 'note' },
              ` reused: the measurement of ${run.reusedFrom.slice(0, 7)}`
            )
          : null,
        run.source === 'skipped'
          ? el('span', { class: 'note' }, ` skipped: ${run.skipReason || 'no figures'}`)
          : null,
        run.archived && row.test !== 'aggregate'
          ? el('span', { class: 'note' }, ' (archived: aggregates only)')
          : null
      )
    )
  }
  const stepList = el('ol', { class: 'steps' })
  for (const st of steps) {
    const li = stepItem(m, st, s, false)
    const zoom = el('button', { type: 'button', class: 'zoom' }, 'zoom')
    zoom.addEventListener('click', () =>
      chart?.setScale('x', {
        min: Math.max(0, st.at - 15),
        max: Math.min(xs.length - 1, st.at + 15)
      })
    )
    li.prepend(zoom, ' ')
    stepList.append(li)
  }
  const releases = el('ul', { class: 'releases' })
  for (const r of m.releases)
    releases.append(
      el(
        'li',
        {},
        el('span', { class: 'tag' }, r.tag),
        ' at ',
        commitLink(m.index.repoUrl, m.runs[r.at].commit)
      )
    )
  const root = el(
    'section',
    { id: 'focus', 'data-metric': row.metric },
    el('p', {}, el('a', { href: stateHash({ ...s, row: '' }) }, '← every row')),
    el('h2', {}, row.label),
    el(
      'p',
      { class: 'meta' },
      el('code', {}, row.metric),
      ` · ${row.kind} · ${row.unit}`,
      isCount(row)
        ? row.floor > 0
          ? ` · a step moves by more than ${fmt(row.floor)}`
          : ''
        : ' · trend only: timings move with the runner and are never searched for steps',
      ' · ',
      el('a', { class: 'permalink', href: rowHash(s, row.metric) }, 'permalink'),
      ' ',
      reset
    ),
    slot,
    hover,
    el('h3', {}, steps.length > 0 ? `Steps (${steps.length})` : 'No step in this row'),
    steps.length > 0 ? stepList : null,
    m.releases.length > 0 ? el('h3', {}, 'Releases') : null,
    m.releases.length > 0 ? releases : null
  )
  return {
    root,
    draw: () => {
      chart = focusChart(slot, xs, marksOf(m, row.metric), {
        width: Math.max(320, slot.clientWidth),
        unit: row.unit,
        trendOnly: !isCount(row),
        dateOf: (i) => m.runs[i]?.date.slice(0, 10) ?? '',
        onHover: showRun,
        // the runs in view, for a reader of the page (and its test)
        onZoom: (min, max) => {
          slot.dataset.from = String(Math.round(min))
          slot.dataset.to = String(Math.round(max))
        }
      })
    },
    destroy: () => chart?.destroy()
  }
}
