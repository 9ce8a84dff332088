// image-cache: server images built from netatalk source, kept between runs in
// a directory the workflow caches (actions/cache). A hosted runner starts with
// an empty Docker engine, and a source build takes minutes cold where loading
// the image takes seconds. Each file is named by a key over everything the
// image is built from (the source tree's contents, the action's build files,
// the base image), so a file holds one build and a stale one is never loaded.
// The cache only saves time: whatever goes wrong with it is a warning, and the
// image is built as if there were none.

import { createHash } from 'node:crypto'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync
} from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'

// The action's files that Dockerfile.server's server-source target is built
// from (its afpbench-scripts stage copies the three scripts).
export const BUILD_FILES = [
  'Dockerfile.server',
  'scripts/install-netatalk.sh',
  'scripts/server-entrypoint.sh',
  'scripts/lib/server-rlimit-cap.c'
]

const FILE_PATTERN = /^server-source-[0-9a-f]{16}\.tar$/

export interface SourceImage {
  service: string // the compose service built from this source
  source: string // the source tree (absolute)
  key: string
  tag: string // what the saved image is called in the engine
  file: string // where it is saved
}

// treeHash: a digest of a directory's contents, names, executable bits and
// symbolic links, in a fixed order; .git directories are left out (the build
// does not depend on history, and a checkout's .git changes with every fetch).
export function treeHash(dir: string): string {
  const hash = createHash('sha256')
  const walk = (rel: string): void => {
    const names = readdirSync(path.join(dir, rel)).sort()
    for (const name of names) {
      if (name === '.git') continue
      const relName = rel === '' ? name : `${rel}/${name}`
      const full = path.join(dir, relName)
      const st = lstatSync(full)
      if (st.isSymbolicLink()) {
        hash.update(`link\0${relName}\0${readlinkSync(full)}\0`)
      } else if (st.isDirectory()) {
        hash.update(`dir\0${relName}\0`)
        walk(relName)
      } else if (st.isFile()) {
        hash.update(`file\0${relName}\0${st.mode & 0o111 ? 'x' : '-'}\0${st.size}\0`)
        hash.update(readFileSync(full))
      }
    }
  }
  walk('')
  return hash.digest('hex')
}

// imageKey: the key of a server built from `source` by this action on
// `baseImage` ('' = the Dockerfile's pinned one, which its hash covers).
export function imageKey(source: string, actionDir: string, baseImage: string): string {
  const hash = createHash('sha256')
  hash.update(`tree\0${treeHash(source)}\0base\0${baseImage}\0`)
  for (const file of BUILD_FILES) {
    hash.update(`${file}\0`)
    hash.update(readFileSync(path.join(actionDir, file)))
  }
  return hash.digest('hex').slice(0, 16)
}

// sourceImages: what the cache directory holds, or will, for the services
// built from a source tree.
export function sourceImages(
  sides: Array<{ service: string; source: string }>,
  actionDir: string,
  baseImage: string,
  dir: string
): SourceImage[] {
  return sides.map(({ service, source }) => {
    const key = imageKey(source, actionDir, baseImage)
    return {
      service,
      source,
      key,
      tag: `afpbench-server-source:${key}`,
      file: path.join(dir, `server-source-${key}.tar`)
    }
  })
}

// The cache's files that none of this run's images is: removed, so that the
// directory (and the workflow's cache entry) holds at most one file a side.
export function staleFiles(dir: string, keep: SourceImage[]): string[] {
  if (!existsSync(dir)) return []
  const wanted = new Set(keep.map((i) => path.basename(i.file)))
  return readdirSync(dir)
    .filter((name) => FILE_PATTERN.test(name) && !wanted.has(name))
    .map((name) => path.join(dir, name))
}

type Docker = (args: string[]) => Promise<number>

const seconds = (start: number): number => Math.round((Date.now() - start) / 1000)
const label = (i: SourceImage): string => `${i.service} (${path.basename(i.source)}, key ${i.key})`

// restoreImages: load the images the cache has and give each the name compose
// builds it under (`<project>-<service>`). Returns the services restored.
export async function restoreImages(
  images: SourceImage[],
  composeImage: (service: string) => string,
  docker: Docker
): Promise<string[]> {
  const restored: string[] = []
  const loaded = new Set<string>()
  for (const image of images) {
    if (!existsSync(image.file)) {
      core.info(`image-cache: no image for ${label(image)} yet: it is built and saved`)
      continue
    }
    const start = Date.now()
    if (
      !loaded.has(image.key) &&
      (await docker(['load', '--quiet', '--input', image.file])) !== 0
    ) {
      core.warning(
        `image-cache: ${image.file} did not load; it is removed and ${image.service} is built instead`
      )
      rmSync(image.file, { force: true })
      continue
    }
    loaded.add(image.key)
    if ((await docker(['tag', image.tag, composeImage(image.service)])) !== 0) {
      core.warning(
        `image-cache: ${image.file} holds no image ${image.tag}; ${image.service} is built instead`
      )
      continue
    }
    core.info(`image-cache: ${label(image)} loaded in ${seconds(start)} s, not built`)
    restored.push(image.service)
  }
  return restored
}

// saveImages: keep the images this run built for the next one, and drop the
// files no side uses any more.
export async function saveImages(
  images: SourceImage[],
  dir: string,
  composeImage: (service: string) => string,
  docker: Docker
): Promise<void> {
  try {
    mkdirSync(dir, { recursive: true })
  } catch (e) {
    core.warning(`image-cache: cannot create ${dir}: ${(e as Error).message}; nothing is saved`)
    return
  }
  const saved = new Set<string>()
  for (const image of images) {
    if (saved.has(image.key) || existsSync(image.file)) continue
    const start = Date.now()
    const partial = `${image.file}.partial`
    const ok =
      (await docker(['tag', composeImage(image.service), image.tag])) === 0 &&
      (await docker(['save', '--output', partial, image.tag])) === 0
    if (!ok) {
      rmSync(partial, { force: true })
      core.warning(`image-cache: ${label(image)} could not be saved; the next run builds it again`)
      continue
    }
    renameSync(partial, image.file)
    saved.add(image.key)
    const mb = Math.round(statSync(image.file).size / 1e6)
    core.info(`image-cache: ${label(image)} saved to ${image.file} (${mb} MB, ${seconds(start)} s)`)
  }
  for (const file of staleFiles(dir, images)) {
    rmSync(file, { force: true })
    core.info(`image-cache: removed ${path.basename(file)}, which no side of this run uses`)
  }
}
