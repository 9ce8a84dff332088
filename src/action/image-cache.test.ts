// The image cache's keys and bookkeeping. Docker is stood in for by a
// recorder here; compose-source.e2e-engine.test.ts runs the cache on a real
// engine.
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { composeCommands } from './compose.js'
import {
  BUILD_FILES,
  imageKey,
  restoreImages,
  saveImages,
  sourceImages,
  staleFiles,
  treeHash
} from './image-cache.js'

const ROOT = path.resolve(import.meta.dirname, '..', '..')

function tree(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tree-'))
  mkdirSync(path.join(dir, 'etc', 'afpd'), { recursive: true })
  writeFileSync(path.join(dir, 'meson.build'), "project('netatalk')\n")
  writeFileSync(path.join(dir, 'etc', 'afpd', 'filedir.c'), 'int x;\n')
  return dir
}

// A docker that records its calls; `fail` names the subcommands that fail.
function recorder(fail: string[] = []): {
  calls: string[][]
  run: (args: string[]) => Promise<number>
} {
  const calls: string[][] = []
  return {
    calls,
    run: (args) => {
      calls.push(args)
      if (args[0] === 'save' && !fail.includes('save'))
        writeFileSync(args[args.indexOf('--output') + 1], 'image')
      return Promise.resolve(fail.includes(args[0]) ? 1 : 0)
    }
  }
}

describe('treeHash and imageKey', () => {
  it('follow the tree’s contents, names and executable bits, not its .git', () => {
    const a = tree()
    const b = path.join(mkdtempSync(path.join(os.tmpdir(), 'copy-')), 'netatalk')
    cpSync(a, b, { recursive: true })
    expect(treeHash(b)).toBe(treeHash(a))
    mkdirSync(path.join(b, '.git'))
    writeFileSync(path.join(b, '.git', 'HEAD'), 'ref: refs/heads/main\n')
    expect(treeHash(b)).toBe(treeHash(a))
    writeFileSync(path.join(b, 'etc', 'afpd', 'filedir.c'), 'int y;\n')
    expect(treeHash(b)).not.toBe(treeHash(a))
    cpSync(a, b, { recursive: true })
    expect(treeHash(b)).toBe(treeHash(a))
    chmodSync(path.join(b, 'meson.build'), 0o755)
    expect(treeHash(b)).not.toBe(treeHash(a))
  })

  it('the key changes with the base image and with the action’s build files', () => {
    const src = tree()
    const key = imageKey(src, ROOT, '')
    expect(key).toMatch(/^[0-9a-f]{16}$/)
    expect(imageKey(src, ROOT, 'debian:trixie-slim')).not.toBe(key)
    const action = mkdtempSync(path.join(os.tmpdir(), 'action-'))
    for (const f of BUILD_FILES) cpSync(path.join(ROOT, f), path.join(action, f))
    expect(imageKey(src, action, '')).toBe(key)
    writeFileSync(path.join(action, 'scripts', 'install-netatalk.sh'), '#!/bin/sh\n')
    expect(imageKey(src, action, '')).not.toBe(key)
  })
})

describe('restoreImages and saveImages', () => {
  const named = (service: string): string => `afpbench-1-${service}`

  it('builds and saves what the cache lacks, then loads it, tags it as compose names it, and keeps one file a side', async () => {
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'cache-')), 'images')
    const images = sourceImages(
      [
        { service: 'server', source: tree() },
        { service: 'base-server', source: tree() }
      ],
      ROOT,
      '',
      dir
    )
    // the same contents: one key, one file
    expect(images[0].key).toBe(images[1].key)
    const first = recorder()
    expect(await restoreImages(images, named, first.run)).toEqual([])
    await saveImages(images, dir, named, first.run)
    expect(first.calls.map((c) => c[0])).toEqual(['tag', 'save'])
    expect(first.calls[0]).toEqual(['tag', 'afpbench-1-server', images[0].tag])
    expect(existsSync(images[0].file)).toBe(true)
    // a file no side uses any more goes
    writeFileSync(path.join(dir, 'server-source-0123456789abcdef.tar'), 'old')
    const second = recorder()
    expect(await restoreImages(images, named, second.run)).toEqual(['server', 'base-server'])
    expect(second.calls).toEqual([
      ['load', '--quiet', '--input', images[0].file],
      ['tag', images[0].tag, 'afpbench-1-server'],
      ['tag', images[0].tag, 'afpbench-1-base-server']
    ])
    await saveImages(images, dir, named, second.run)
    expect(staleFiles(dir, images)).toEqual([])
    expect(existsSync(images[0].file)).toBe(true)
  })

  it('a file that does not load is removed and its side built; a failed save leaves no file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cache-'))
    const images = sourceImages([{ service: 'server', source: tree() }], ROOT, '', dir)
    writeFileSync(images[0].file, 'not an image')
    expect(await restoreImages(images, named, recorder(['load']).run)).toEqual([])
    expect(existsSync(images[0].file)).toBe(false)
    await saveImages(images, dir, named, recorder(['save']).run)
    expect(existsSync(images[0].file)).toBe(false)
    expect(existsSync(`${images[0].file}.partial`)).toBe(false)
  })

  it('compose builds only the services the cache did not give', () => {
    const t = { project: 'p', file: '/a/compose.yaml', ab: true }
    expect(composeCommands.build(t).slice(-1)).toEqual(['build'])
    expect(composeCommands.build(t, ['server', 'base-server']).slice(-2)).toEqual([
      'build',
      'client'
    ])
  })
})
