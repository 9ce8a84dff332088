// Entry of the main step (action.yml runs.main → dist/index.js).
import { DefaultArtifactClient } from '@actions/artifact'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { octokitApi } from './github-api.js'
import { run } from './main.js'
import { execRunner } from './runner.js'

// dist/index.js sits one level below the action's root (compose.yaml,
// scripts/, src/afpbench/).
const actionDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

await run({
  env: process.env,
  actionDir,
  run: execRunner,
  githubApi: octokitApi,
  artifactClient: () => new DefaultArtifactClient()
})
