// The charts, drawn with uPlot (a canvas per chart; thousands of points draw
// in a few milliseconds). x is the run's place in the history, not its date:
// runs are evenly spaced, and a backfill's hundred commits of one afternoon do
// not crowd into one pixel. Steps, releases and skipped commits are drawn on
// the canvas by a plugin; the page lists the same things as text beside it.

import uPlot from 'uplot'
import { compact } from './dom.js'
import { axisDates } from './model.js'

export interface Marks {
  steps: number[] // run indices where a new level begins
  releases: { at: number; tag: string }[]
  skipped: number[] // runs with no figures (commits that did not build)
}

const STEP_COLOR = '#d1242f'
const RELEASE_COLOR = '#8250df'
const SKIP_COLOR = '#8c959f'

// Draws the marks over the plot: a step as a line between the last run at the
// old level and the first at the new one, a release as a dashed line with its
// tag (labels: the big chart only), a skipped commit as a tick at the bottom.
function marksPlugin(marks: Marks, labels: boolean): uPlot.Plugin {
  return {
    hooks: {
      draw: [
        (u: uPlot) => {
          const ctx = u.ctx
          const { top, height } = u.bbox
          const min = u.scales.x.min ?? 0
          const max = u.scales.x.max ?? 0
          const x = (i: number): number => Math.round(u.valToPos(i, 'x', true))
          ctx.save()
          ctx.lineWidth = Math.max(1, devicePixelRatio)
          ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio])
          ctx.strokeStyle = RELEASE_COLOR
          ctx.fillStyle = RELEASE_COLOR
          ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`
          for (const r of marks.releases) {
            if (r.at < min || r.at > max) continue
            ctx.beginPath()
            ctx.moveTo(x(r.at), top)
            ctx.lineTo(x(r.at), top + height)
            ctx.stroke()
            if (labels)
              ctx.fillText(
                r.tag.slice(0, 24),
                x(r.at) + 3 * devicePixelRatio,
                top + 12 * devicePixelRatio
              )
          }
          ctx.setLineDash([])
          ctx.strokeStyle = STEP_COLOR
          ctx.lineWidth = 2 * devicePixelRatio
          for (const at of marks.steps) {
            const pos = at - 0.5
            if (pos < min || pos > max) continue
            ctx.beginPath()
            ctx.moveTo(x(pos), top)
            ctx.lineTo(x(pos), top + height)
            ctx.stroke()
          }
          ctx.strokeStyle = SKIP_COLOR
          ctx.lineWidth = Math.max(1, devicePixelRatio)
          for (const at of marks.skipped) {
            if (at < min || at > max) continue
            ctx.beginPath()
            ctx.moveTo(x(at), top + height)
            ctx.lineTo(x(at), top + height - 6 * devicePixelRatio)
            ctx.stroke()
          }
          ctx.restore()
        }
      ]
    }
  }
}

export type Series = (number | null)[]

function xsOf(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i)
}

// The y range: the series with a little room, and never narrower than 2 %
// of its level, so that what moves less than a step can (0.5 %, drift.ts
// MIN_STEP) looks nearly flat rather than filling the chart; an exact count
// that never moved is a flat line in the middle.
function yRange(_u: uPlot, min: number | null, max: number | null): uPlot.Range.MinMax {
  if (min === null || max === null) return [0, 1]
  const mid = (min + max) / 2
  const half = Math.max((max - min) / 2 + (max - min) * 0.08, Math.abs(mid) * 0.01, 1e-9)
  const lo = mid - half
  return [min >= 0 && lo < 0 ? 0 : lo, mid + half]
}

// A small chart of one row for the grid: no cursor, no legend.
export function miniChart(
  target: HTMLElement,
  ys: Series,
  marks: Marks,
  opts: { width: number; trendOnly: boolean }
): uPlot {
  return new uPlot(
    {
      width: opts.width,
      height: 110,
      legend: { show: false },
      cursor: { show: false },
      scales: { x: { time: false }, y: { range: yRange } },
      axes: [
        { show: false },
        {
          size: 46,
          gap: 2,
          font: '10px system-ui, sans-serif',
          ticks: { show: false },
          values: (_u, splits) => splits.map(compact)
        }
      ],
      series: [
        {},
        {
          stroke: opts.trendOnly ? '#6e7781' : '#0969da',
          width: 1.5,
          dash: opts.trendOnly ? [4, 3] : undefined,
          points: { show: false },
          spanGaps: false
        }
      ],
      plugins: [marksPlugin(marks, false)]
    },
    [xsOf(ys.length), ys],
    target
  )
}

// The big chart of one row: dates on x, drag to zoom in, the cursor's run
// reported to onHover.
export function focusChart(
  target: HTMLElement,
  ys: Series,
  marks: Marks,
  opts: {
    width: number
    unit: string
    trendOnly: boolean
    dateOf: (i: number) => string
    onHover: (i: number | null) => void
    onZoom: (min: number, max: number) => void
  }
): uPlot {
  return new uPlot(
    {
      width: opts.width,
      height: 340,
      legend: { show: false },
      cursor: { drag: { x: true, y: false }, points: { size: 7 } },
      scales: { x: { time: false }, y: { range: yRange } },
      axes: [
        {
          font: '11px system-ui, sans-serif',
          // a date is about 70 px wide: ticks at whole runs, far enough apart
          space: 90,
          incrs: [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000],
          values: (_u, splits) => axisDates(splits, opts.dateOf)
        },
        {
          size: 64,
          font: '11px system-ui, sans-serif',
          label: opts.unit,
          labelFont: '11px system-ui, sans-serif',
          values: (_u, splits) => splits.map(compact)
        }
      ],
      series: [
        {},
        {
          stroke: opts.trendOnly ? '#6e7781' : '#0969da',
          width: 2,
          dash: opts.trendOnly ? [5, 4] : undefined,
          spanGaps: false
        }
      ],
      hooks: {
        setCursor: [(u: uPlot) => opts.onHover(u.cursor.idx ?? null)],
        setScale: [
          (u: uPlot, key: string) => {
            if (key === 'x') opts.onZoom(u.scales.x.min ?? 0, u.scales.x.max ?? 0)
          }
        ]
      },
      plugins: [marksPlugin(marks, true)]
    },
    [xsOf(ys.length), ys],
    target
  )
}
