import { createRequire as __afpbenchCreateRequire } from 'node:module'; const require = __afpbenchCreateRequire(import.meta.url);

// src/action/history-cli.ts
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path2 from "node:path";

// src/action/history-record.ts
var RECORD_SCHEMA = "afpbench-history/1";
var MAX_RECORD_BYTES = 256 * 1024;
var MAX_TEST_ROWS = 600;
var MAX_AGGREGATES = 80;
var NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
var COUNT_KINDS = ["io", "sys", "instr"];
function obj(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? v : {};
}
function str(v, max = 200) {
  return typeof v === "string" ? v.slice(0, max).replace(/[^\x20-\x7e\u00b5\u00a0-\u024f]/g, "?") : "";
}
function isCountKind(kind) {
  return COUNT_KINDS.includes(kind);
}
var SOURCES = ["measured", "reused", "skipped"];
var MAX_STEPS = 20;
var MAX_STEP_COMMANDS = 10;
var MAX_STEP_CALLS = 10;
var RecordError = class extends Error {
};
function parseRecord(text, where) {
  if (text.length > MAX_RECORD_BYTES)
    throw new RecordError(`${where} is larger than ${MAX_RECORD_BYTES} bytes`);
  let data;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new RecordError(`${where} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = obj(data);
  if (r.schema !== RECORD_SCHEMA)
    throw new RecordError(`${where}: schema is ${JSON.stringify(r.schema)}, not ${RECORD_SCHEMA}`);
  const commit = str(r.commit, 40);
  if (!/^[0-9a-f]{40}$/.test(commit)) throw new RecordError(`${where}: commit is not 40 hex digits`);
  const date = str(r.date, 40);
  if (Number.isNaN(Date.parse(date))) throw new RecordError(`${where}: date is not a date`);
  const aggregates = {};
  for (const [metric, a] of Object.entries(obj(r.aggregates)).slice(0, MAX_AGGREGATES)) {
    const agg = obj(a);
    if (NAME.test(metric) && typeof agg.v === "number" && Number.isFinite(agg.v))
      aggregates[metric] = {
        v: agg.v,
        kind: str(agg.kind, 20),
        unit: str(agg.unit, 20),
        ...typeof agg.floor === "number" && Number.isFinite(agg.floor) && agg.floor > 0 ? { floor: agg.floor } : {}
      };
  }
  const tests = {};
  for (const [metric, v] of Object.entries(obj(r.tests)).slice(0, MAX_TEST_ROWS))
    if (NAME.test(metric) && typeof v === "number" && Number.isFinite(v)) tests[metric] = v;
  const p = obj(r.provenance);
  return {
    schema: RECORD_SCHEMA,
    commit,
    date: new Date(date).toISOString(),
    runId: typeof r.runId === "number" && Number.isSafeInteger(r.runId) ? r.runId : null,
    key: str(r.key, 100),
    release: str(r.release, 100),
    provenance: {
      netatalk: str(p.netatalk, 60),
      build: str(p.build, 80),
      afpConf: str(p.afpConf, 64),
      ...typeof p.afpConfSettings === "string" ? { afpConfSettings: str(p.afpConfSettings, 300) } : {},
      runner: str(p.runner, 140),
      suite: str(p.suite, 100)
    },
    aggregates,
    tests,
    ...extrasOf(r)
  };
}
function finiteNum(v) {
  return typeof v === "number" && Number.isFinite(v);
}
function list(v, max) {
  return (Array.isArray(v) ? v : []).filter((x) => typeof x === "object" && x !== null && !Array.isArray(x)).slice(0, max);
}
function extrasOf(r) {
  const x = {};
  const subject = str(r.subject, 200);
  if (subject !== "") x.subject = subject;
  if (SOURCES.includes(r.source) && r.source !== "measured")
    x.source = r.source;
  if (typeof r.reused_from === "string" && /^[0-9a-f]{40}$/.test(r.reused_from))
    x.reused_from = r.reused_from;
  const why = str(r.skip_reason, 300);
  if (why !== "") x.skip_reason = why;
  const steps = [];
  for (const s of list(r.steps, MAX_STEPS)) {
    if (typeof s.metric !== "string" || !NAME.test(s.metric)) continue;
    if (!finiteNum(s.before) || !finiteNum(s.after)) continue;
    steps.push({
      metric: s.metric,
      before: s.before,
      after: s.after,
      commands: list(s.commands, MAX_STEP_COMMANDS).map((c) => ({
        command: str(c.command, 60),
        calls: list(c.calls, MAX_STEP_CALLS).filter((k) => finiteNum(k.before) && finiteNum(k.after)).map((k) => ({
          call: str(k.call, 40),
          before: k.before,
          after: k.after
        }))
      })),
      site: str(s.site, 200)
    });
  }
  if (steps.length > 0) x.steps = steps;
  return x;
}

// src/action/history-layout.ts
import { readdirSync } from "node:fs";
import path from "node:path";
function keyDir(key) {
  const k = key.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^[._]+/, "").slice(0, 60);
  return k === "" ? "default" : k;
}
function stamp(date) {
  return new Date(date).toISOString().replace(/[-:]/g, "");
}
function runPath(r) {
  const month = r.date.slice(0, 7);
  const run = r.runId !== null ? `-${r.runId}` : "";
  return `runs/${keyDir(r.key)}/${month}/${stamp(r.date)}-${r.commit.slice(0, 12)}${run}.json`;
}
function filesUnder(dir, max) {
  const out = [];
  const walk = (d) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (out.length >= max) return;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

// src/action/drift.ts
var MIN_STEP = 5e-3;
var NOISE_FACTOR = 4;
var MAX_STEPS2 = 8;
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}
function noise(xs) {
  if (xs.length < 3) return 0;
  const d = xs.slice(1).map((x, i) => x - xs[i]);
  const m = median(d);
  return 1.4826 * median(d.map((x) => Math.abs(x - m))) / Math.SQRT2;
}
function findSteps(xs, minStep = MIN_STEP, floor = 0, useNoise = true) {
  const sigma = useNoise ? noise(xs) : 0;
  const steps = [];
  const split = (lo, hi) => {
    if (hi - lo < 2 || steps.length >= MAX_STEPS2) return;
    const n = hi - lo;
    const total = xs.slice(lo, hi).reduce((a, b) => a + b, 0);
    let left = 0;
    let at2 = -1;
    let bestScore = 0;
    for (let k = lo + 1; k < hi; k++) {
      left += xs[k - 1];
      const n1 = k - lo;
      const n2 = n - n1;
      const score = Math.sqrt(n1 * n2 / n) * Math.abs((total - left) / n2 - left / n1);
      if (score > bestScore) {
        bestScore = score;
        at2 = k;
      }
    }
    if (at2 < 0) return;
    const before = median(xs.slice(lo, at2));
    const after = median(xs.slice(at2, hi));
    const diff = Math.abs(after - before);
    const level = Math.max(Math.abs(before), Number.MIN_VALUE);
    if (diff / level < minStep || diff <= NOISE_FACTOR * sigma || diff <= floor) return;
    steps.push({ index: at2, before, after });
    split(lo, at2);
    split(at2, hi);
  };
  split(0, xs.length);
  const at = steps.map((s) => s.index).sort((a, b) => a - b);
  return at.map((index, i) => ({
    index,
    before: median(xs.slice(at[i - 1] ?? 0, index)),
    after: median(xs.slice(index, at[i + 1] ?? xs.length))
  }));
}

// src/action/trend.ts
var EXACT_KINDS = ["io", "sys"];
var MIN_NOISY_RUNS = 4;
function driftOf(records) {
  const steps = [];
  const last = [...records].reverse().find((r) => Object.keys(r.aggregates).length > 0);
  if (last === void 0) return steps;
  for (const [metric, agg] of Object.entries(last.aggregates)) {
    if (!isCountKind(agg.kind)) continue;
    const runs = records.filter((r) => r.aggregates[metric] !== void 0);
    const exact = EXACT_KINDS.includes(agg.kind);
    if (runs.length < (exact ? 2 : MIN_NOISY_RUNS)) continue;
    const floor = Math.max(0, ...runs.map((r) => r.aggregates[metric].floor ?? 0));
    for (const s of findSteps(
      runs.map((r) => r.aggregates[metric].v),
      void 0,
      floor,
      !exact || runs.length >= MIN_NOISY_RUNS
    )) {
      const at = runs[s.index];
      steps.push({
        metric,
        unit: agg.unit,
        commit: at.commit,
        date: at.date,
        before: s.before,
        after: s.after,
        change: s.before !== 0 ? s.after / s.before - 1 : null
      });
    }
  }
  return steps;
}
function stepsOf(records) {
  const measured = records.filter((r) => Object.keys(r.aggregates).length > 0);
  return driftOf(measured).map((s) => {
    const at = measured.findIndex((r) => r.commit === s.commit);
    const before = measured.slice(0, at).reverse().find((r) => r.aggregates[s.metric] !== void 0);
    return { ...s, previous: before?.commit ?? "" };
  });
}

// src/action/history-cli.ts
var MAX_FILES = 1e5;
function readRecord(file) {
  return parseRecord(readFileSync(file, "utf8"), file);
}
function put(dir, file) {
  const record = readRecord(file);
  const rel = runPath(record);
  const dest = path2.join(dir, rel);
  mkdirSync(path2.dirname(dest), { recursive: true });
  const tmp = `${dest}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(record)}
`);
  renameSync(tmp, dest);
  return rel;
}
function jsonFiles(dir) {
  return filesUnder(dir, MAX_FILES).filter((f) => f.endsWith(".json")).map((f) => path2.join(dir, f));
}
function commits(dir, key) {
  const runs = path2.join(dir, "runs", keyDir(key));
  return jsonFiles(runs).map((f) => {
    const r = readRecord(f);
    return `${r.commit}	${r.source ?? "measured"}	${path2.relative(dir, f)}`;
  });
}
function main(argv) {
  const [command, ...args] = argv;
  if (command === "put" && args.length === 2) {
    process.stdout.write(`${put(args[0], args[1])}
`);
  } else if (command === "commits" && (args.length === 1 || args.length === 2)) {
    const lines = commits(args[0], args[1] ?? "");
    if (lines.length > 0) process.stdout.write(`${lines.join("\n")}
`);
  } else if (command === "steps" && args.length > 0) {
    process.stdout.write(`${JSON.stringify(stepsOf(args.map(readRecord)))}
`);
  } else {
    throw new RecordError(
      "usage: history-cli.js put DIR RECORD.json | commits DIR [KEY] | steps RECORD.json..."
    );
  }
}
try {
  main(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`history-cli: error: ${e instanceof Error ? e.message : String(e)}
`);
  process.exitCode = 3;
}
