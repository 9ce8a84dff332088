import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { chartsElsewhereMarkdown, imagesMarkdown, listCharts } from './charts.js'

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

describe('imagesMarkdown', () => {
  const links = [
    { name: 'io_per_op.png', url: 'https://x/io.png' },
    { name: 'ratios.png', url: 'https://x/ratios.png' }
  ]
  it('shows the time change and folds the others', () => {
    const md = imagesMarkdown(links)
    expect(md.startsWith('![ratios](https://x/ratios.png)')).toBe(true)
    expect(md).toContain('<details><summary>More charts: io per op</summary>')
  })
  it('folds them all when asked', () => {
    const md = imagesMarkdown(links, true)
    expect(md.startsWith('<details><summary>Charts: ratios, io per op</summary>')).toBe(true)
  })
})

describe('chartsElsewhereMarkdown', () => {
  it('says where the images are and why they are not here, the time change first', () => {
    const dir = chartsDir({ 'io_per_op.png': 'png', 'ratios.png': 'png', 'ratios.txt': 'txt' })
    const md = chartsElsewhereMarkdown(
      listCharts(dir),
      'https://github.com/o/r/actions/runs/1/artifacts/9',
      'assets-branch is empty, so they are not committed'
    )
    expect(md.split('\n').filter((l) => l !== '')).toHaveLength(1)
    expect(md).toMatch(
      /^\*\*Charts\*\* \(ratios, io per op\): in the \[results artifact\]\(https:\/\/github\.com\/o\/r\/actions\/runs\/1\/artifacts\/9\) \(`charts\/`\); assets-branch is empty/
    )
    // no text chart, no code block
    expect(md).not.toContain('```')
  })

  it('says nothing without images', () => {
    expect(chartsElsewhereMarkdown({ images: [], texts: [] }, '', 'why')).toBe('')
  })
})
