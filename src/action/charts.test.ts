import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { listCharts, showsChart, textChartsMarkdown } from './charts.js'

function chartsDir(files: Record<string, string | Buffer>): string {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'charts-')), 'charts')
  mkdirSync(dir)
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content)
  return dir
}

describe('listCharts', () => {
  it('no charts directory: nothing', () => {
    expect(listCharts('/nonexistent/charts')).toEqual({ images: [], texts: [] })
  })

  it('prefers PNG; uses SVG only when there is no PNG', () => {
    expect(listCharts(chartsDir({ 'a.png': 'x', 'a.svg': 'x' })).images.map((c) => c.name)).toEqual(
      ['a.png']
    )
    expect(listCharts(chartsDir({ 'a.svg': 'x' })).images.map((c) => c.name)).toEqual(['a.svg'])
  })

  it('skips unsafe names, empty files and oversized files', () => {
    const set = listCharts(
      chartsDir({
        'ok.txt': 'chart',
        'empty.txt': '',
        'big.txt': 'x'.repeat(65 * 1024),
        '<script>.txt': 'x',
        '.hidden.txt': 'x'
      })
    )
    expect(set.texts.map((c) => c.name)).toEqual(['ok.txt'])
  })
})

describe('textChartsMarkdown', () => {
  it('fences each chart with a fence longer than any backtick run inside', () => {
    const dir = chartsDir({ 'speed_read.txt': 'a ```` b\n' })
    const md = textChartsMarkdown(listCharts(dir).texts)
    expect(md).toContain('<summary>speed read</summary>')
    expect(md).toContain('`````text\na ```` b\n`````')
  })

  it('nothing for no charts', () => {
    expect(textChartsMarkdown([])).toBe('')
  })

  it('the time change open and first, the others folded', () => {
    const dir = chartsDir({ 'io_per_op.txt': 'io\n', 'ratios.txt': 'change\n' })
    const md = textChartsMarkdown(listCharts(dir).texts)
    expect(md.indexOf('<details open>\n<summary>ratios</summary>')).toBe(0)
    expect(md).toContain('<details>\n<summary>io per op</summary>')
  })
})

describe('showsChart', () => {
  it('knows a chart the report embeds already, by its plot line', () => {
    const dir = chartsDir({ 'c.txt': '  2 |  **  \n  1 | *  * |\n' })
    const [chart] = listCharts(dir).texts
    expect(showsChart('report\n```\n  1 | *  * |\n```', chart)).toBe(true)
    expect(showsChart('report without it', chart)).toBe(false)
  })
})
