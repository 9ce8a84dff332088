// Entry of the post step (action.yml runs.post → dist/post.js, post-if: always()).
import { teardown } from './teardown.js'
import { execRunner } from './runner.js'

await teardown(execRunner, process.env)
