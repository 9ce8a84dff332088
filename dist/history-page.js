import { createRequire as __afpbenchCreateRequire } from 'node:module'; const require = __afpbenchCreateRequire(import.meta.url);

// src/history-page/read-dir.ts
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

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
function parseRecord(text2, where) {
  if (text2.length > MAX_RECORD_BYTES)
    throw new RecordError(`${where} is larger than ${MAX_RECORD_BYTES} bytes`);
  let data;
  try {
    data = JSON.parse(text2);
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

// src/history-page/page-data.ts
var PAGE_SCHEMA = "afpbench-page/1";
var CHUNK_RUNS = 50;
var MAX_KEYS = 50;
var MAX_ROWS = 1e3;
var MAX_RUNS = 2e4;
var MAX_PAGE_STEPS = 4e3;
var MAX_FILE_BYTES = 8 * 1024 * 1024;
var MAX_RECORD_STEPS = 20;
var MAX_STEP_COMMANDS2 = 10;
var MAX_STEP_CALLS2 = 10;
var SOURCES2 = ["measured", "reused", "skipped"];
var PageDataError = class extends Error {
};
function obj2(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? v : {};
}
function arr(v, max) {
  return Array.isArray(v) ? v.slice(0, max) : [];
}
function text(v, max = 200) {
  return typeof v === "string" ? v.slice(0, max).replace(/[^\x20-\x7e\u00a0-\u024f\u00b5]/g, "?") : "";
}
function num(v) {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}
var METRIC = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
var DIR = /^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$/;
function isDir(s) {
  return DIR.test(s);
}
function checkSchema(j, where) {
  if (j.schema !== PAGE_SCHEMA)
    throw new PageDataError(`${where}: schema is ${JSON.stringify(j.schema)}, not ${PAGE_SCHEMA}`);
}
function parseJson(raw, where) {
  if (raw.length > MAX_FILE_BYTES)
    throw new PageDataError(`${where} is larger than ${MAX_FILE_BYTES} bytes`);
  try {
    return obj2(JSON.parse(raw));
  } catch (e) {
    throw new PageDataError(`${where} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}
function safeRepoUrl(v) {
  const s = typeof v === "string" ? v.replace(/\/+$/, "") : "";
  return /^https:\/\/[A-Za-z0-9.-]{1,100}(:\d{1,5})?(\/[A-Za-z0-9._~-]{1,100}){0,4}$/.test(s) ? s : "";
}
function readIndex(raw, where = "data/index.json") {
  const j = parseJson(raw, where);
  checkSchema(j, where);
  const keys = [];
  for (const k of arr(j.keys, MAX_KEYS).map(obj2)) {
    const dir = text(k.dir, 60);
    if (!DIR.test(dir)) continue;
    keys.push({
      key: text(k.key, 100),
      dir,
      runs: Math.max(0, Math.min(MAX_RUNS, Math.floor(num(k.runs) ?? 0))),
      first: text(k.first, 40),
      last: text(k.last, 40)
    });
  }
  return {
    schema: PAGE_SCHEMA,
    repoUrl: safeRepoUrl(j.repoUrl),
    keys
  };
}
function encodeKey(data) {
  const { rows, ...key } = data;
  return {
    key: `${JSON.stringify(key)}
`,
    rows: `${JSON.stringify({ schema: PAGE_SCHEMA, rows })}
`
  };
}
function attributionOf(v) {
  const s = obj2(v);
  const metric = text(s.metric);
  const before = num(s.before);
  const after = num(s.after);
  if (!METRIC.test(metric) || before === null || after === null) return null;
  return {
    metric,
    before,
    after,
    commands: arr(s.commands, MAX_STEP_COMMANDS2).map(obj2).map((c) => ({
      command: text(c.command, 60),
      calls: arr(c.calls, MAX_STEP_CALLS2).map(obj2).filter((k) => num(k.before) !== null && num(k.after) !== null).map((k) => ({
        call: text(k.call, 40),
        before: k.before,
        after: k.after
      }))
    })).filter((c) => c.command !== ""),
    site: text(s.site, 200)
  };
}
function attributionsOf(v) {
  return arr(v, MAX_RECORD_STEPS).map(attributionOf).filter((a) => a !== null);
}
function packSeries(xs) {
  const r = [];
  for (let i = 0; i < xs.length; ) {
    let j = i + 1;
    while (j < xs.length && xs[j] === xs[i]) j++;
    r.push(xs[i], j - i);
    i = j;
  }
  return r.length < xs.length ? { r } : xs;
}
function encodeChunk(runs, values) {
  const provs = [];
  const provIndex = /* @__PURE__ */ new Map();
  const compact = runs.map((r) => {
    const pk = JSON.stringify(r.provenance);
    let p = provIndex.get(pk);
    if (p === void 0) {
      p = provs.length;
      provs.push(r.provenance);
      provIndex.set(pk, p);
    }
    return {
      id: r.id,
      c: r.commit,
      d: r.date,
      ...r.runId !== null ? { n: r.runId } : {},
      ...r.release !== "" ? { t: r.release } : {},
      ...r.subject !== "" ? { s: r.subject } : {},
      ...r.source !== "measured" ? { o: r.source } : {},
      ...r.reusedFrom !== "" ? { f: r.reusedFrom } : {},
      ...r.skipReason !== "" ? { k: r.skipReason } : {},
      ...r.archived ? { a: 1 } : {},
      p,
      ...r.steps.length > 0 ? { x: r.steps } : {}
    };
  });
  const v = {};
  for (const [metric, xs] of values) if (xs.some((x) => x !== null)) v[metric] = packSeries(xs);
  return `${JSON.stringify({ schema: PAGE_SCHEMA, prov: provs, runs: compact, v })}
`;
}
function chunkFile(i) {
  return `c${String(i).padStart(4, "0")}.json`;
}

// src/history-page/page-record.ts
function runName(r) {
  const stamp = new Date(r.date).toISOString().replace(/[-:]/g, "");
  return `${stamp}-${r.commit.slice(0, 12)}${r.runId !== null ? `-${r.runId}` : ""}`;
}
function readPageRecord(raw, where, opts = {}) {
  const record = parseRecord(raw, where);
  const j = parseJson(raw, where);
  const source = SOURCES2.find((s) => s === j.source) ?? "measured";
  const from = text(j.reused_from, 40);
  return {
    record,
    run: {
      id: opts.id ?? runName(record),
      commit: record.commit,
      date: record.date,
      runId: record.runId,
      release: record.release,
      subject: text(j.subject, 200),
      source,
      reusedFrom: /^[0-9a-f]{40}$/.test(from) ? from : "",
      skipReason: source === "skipped" ? text(j.skip_reason, 300) : "",
      archived: opts.archived === true,
      provenance: record.provenance,
      steps: attributionsOf(j.steps)
    }
  };
}

// src/history-page/read-dir.ts
var ARCHIVE_SCHEMA = "afpbench-history-archive/1";
var MAX_FILES = 2 * MAX_RUNS;
var DirError = class extends Error {
};
function isDirectory(p) {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
function jsonFiles(dir, depth, out) {
  let names;
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of names) {
    if (out.length >= MAX_FILES) return;
    const p = path.join(dir, name);
    const st = lstatSync(p);
    if (st.isDirectory() && depth > 0) jsonFiles(p, depth - 1, out);
    else if (st.isFile() && name.endsWith(".json")) out.push(p);
  }
}
function readBounded(file, max) {
  const size = lstatSync(file).size;
  if (size > max) throw new PageDataError(`${file} is larger than ${max} bytes`);
  return readFileSync(file, "utf8");
}
function skip(problems, e) {
  if (!(e instanceof RecordError) && !(e instanceof PageDataError)) throw e;
  if (problems.length < 100) problems.push(e.message);
}
function readDataDir(root) {
  if (!isDirectory(root)) throw new DirError(`${root} is not a directory`);
  const runsDir = path.join(root, "runs");
  const archiveDir = path.join(root, "archive");
  if (!isDirectory(runsDir) && !isDirectory(archiveDir))
    throw new DirError(
      `${root} has no runs/ or archive/ directory: it is not in the data branch's layout (docs/history.md)`
    );
  const problems = [];
  const dirs = /* @__PURE__ */ new Set();
  for (const d of [runsDir, archiveDir])
    if (isDirectory(d)) {
      for (const name of readdirSync(d)) if (isDirectory(path.join(d, name))) dirs.add(name);
    }
  const keys = [];
  for (const dir of [...dirs].sort()) {
    if (!isDir(dir)) {
      problems.push(`runs/${dir.slice(0, 60)}: not a key's directory name, skipped`);
      continue;
    }
    if (keys.length >= MAX_KEYS) {
      problems.push(`more than ${MAX_KEYS} keys: ${dir} and after skipped`);
      break;
    }
    const records = [];
    const runFiles = [];
    jsonFiles(path.join(runsDir, dir), 2, runFiles);
    for (const file of runFiles) {
      try {
        const id = path.basename(file, ".json");
        records.push(readPageRecord(readBounded(file, MAX_RECORD_BYTES), file, { id }));
      } catch (e) {
        skip(problems, e);
      }
    }
    const archives = [];
    const archiveFiles = [];
    jsonFiles(path.join(archiveDir, dir), 0, archiveFiles);
    for (const file of archiveFiles) {
      try {
        records.push(...readArchive(readBounded(file, MAX_FILE_BYTES), file));
        archives.push(path.basename(file));
      } catch (e) {
        skip(problems, e);
      }
    }
    if (records.length === 0) continue;
    const newest = records.reduce((a, b) => b.run.date > a.run.date ? b : a);
    keys.push({ dir, key: newest.record.key, records, archives });
  }
  return { keys, problems };
}
function readArchive(raw, where) {
  const j = parseJson(raw, where);
  if (j.schema !== ARCHIVE_SCHEMA)
    throw new PageDataError(
      `${where}: schema is ${JSON.stringify(j.schema)}, not ${ARCHIVE_SCHEMA}`
    );
  const list2 = Array.isArray(j.records) ? j.records.slice(0, MAX_RUNS) : [];
  const out = [];
  list2.forEach((r, i) => {
    try {
      out.push(readPageRecord(JSON.stringify(r), `${where} [${i}]`, { archived: true }));
    } catch (e) {
      if (!(e instanceof RecordError) && !(e instanceof PageDataError)) throw e;
    }
  });
  return out;
}

// src/history-page/write-page.ts
import {
  existsSync as existsSync2,
  lstatSync as lstatSync2,
  mkdirSync,
  readdirSync as readdirSync2,
  readFileSync as readFileSync3,
  rmSync,
  writeFileSync
} from "node:fs";
import path3 from "node:path";

// src/history-page/assets.ts
import { existsSync, readFileSync as readFileSync2 } from "node:fs";
import path2 from "node:path";
import { fileURLToPath } from "node:url";
var ASSETS_DIR = "history-page-assets";
function assetsDir() {
  let dir = path2.dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 4; up++) {
    for (const d of [path2.join(dir, ASSETS_DIR), path2.join(dir, "dist", ASSETS_DIR)])
      if (existsSync(path2.join(d, "app.js"))) return d;
    dir = path2.dirname(dir);
  }
  throw new Error(`${ASSETS_DIR}/app.js not found beside the action: run npm run bundle`);
}
var CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'";
var INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<title>afpbench history</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="app.css">
<script defer src="app.js"></script>
</head>
<body>
<noscript>This page draws the history with JavaScript.</noscript>
<main id="app"><p class="loading">Loading the history…</p></main>
</body>
</html>
`;
function pageAssets() {
  const dir = assetsDir();
  return /* @__PURE__ */ new Map([
    ["index.html", INDEX_HTML],
    ["app.js", readFileSync2(path2.join(dir, "app.js"), "utf8")],
    ["app.css", readFileSync2(path2.join(dir, "app.css"), "utf8")]
  ]);
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
function metricLabel(metric) {
  const m = metric.replace(/^aggregate\./, "").replace(/_per_op$/, "");
  const named = {
    time: "time",
    afpd_cpu: "afpd CPU",
    cnid_cpu: "cnid_dbd CPU",
    afpd_r: "afpd reads",
    afpd_w: "afpd writes",
    cnid_r: "cnid_dbd reads",
    cnid_w: "cnid_dbd writes",
    afpd_instr: "afpd instructions"
  };
  if (named[m] !== void 0) return `${named[m]}/op`;
  const sys = /^(afpd|cnid)_sys_(.+)$/.exec(m);
  if (sys) {
    const proc = sys[1] === "cnid" ? "cnid_dbd" : "afpd";
    return sys[2] === "total" ? `${proc} system calls/op` : `${proc} ${sys[2]} calls/op`;
  }
  const fd = /^(afpd|cnid)_(file|net|unix|pipe|other)_([rw])$/.exec(m);
  if (fd) {
    const proc = fd[1] === "cnid" ? "cnid_dbd" : "afpd";
    const kinds = { net: "network", unix: "local socket" };
    const kind = kinds[fd[2]] ?? fd[2];
    return `${proc} ${kind} ${fd[3] === "r" ? "reads" : "writes"}/op`;
  }
  return `${m}/op`;
}

// src/history-page/site.ts
function rowParts(metric) {
  if (metric.startsWith("aggregate."))
    return { test: "aggregate", family: metric.slice(10).replace(/_per_op$/, "") };
  const m = /^([A-Za-z]+)\.(\d+)\.(.+)$/.exec(metric);
  if (m) return { test: `${m[1]} ${m[2]}`, family: m[3].replace(/_per_op$/, "") };
  const dot = metric.lastIndexOf(".");
  return dot > 0 ? { test: metric.slice(0, dot), family: metric.slice(dot + 1) } : { test: "", family: metric };
}
function testRowKind(family, metric) {
  if (/_instr$/.test(family)) return { kind: "instr", unit: "instr/op" };
  if (/_sys_/.test(family)) return { kind: "sys", unit: "syscalls" };
  if (/_(r|w)char$/.test(family)) return { kind: "io", unit: "bytes" };
  return { kind: "io", unit: metric.endsWith("_per_op") ? "syscalls/op" : "syscalls" };
}
function testFloor(metric) {
  if (/\.cnid_sys_/.test(metric)) return 50;
  if (/\.cnid_((file|net|unix|pipe|other)_)?[rw](_per_op)?$/.test(metric)) return 5;
  return 1;
}
function rowLabel(metric) {
  const { test, family } = rowParts(metric);
  const name = metricLabel(`aggregate.${family}_per_op`);
  if (test === "aggregate") return name;
  return `${test} · ${metric.endsWith("_per_op") ? name : name.replace(/\/op$/, "")}`;
}
function testRank(test) {
  if (test === "aggregate") return [0, "", 0];
  const m = /^(.*) (\d+)$/.exec(test);
  return m ? [1, m[1], Number(m[2])] : [1, test, 0];
}
function compareRows(a, b) {
  const [ga, sa, na] = testRank(a.test);
  const [gb, sb, nb] = testRank(b.test);
  return ga - gb || (sa < sb ? -1 : sa > sb ? 1 : 0) || na - nb || a.seen - b.seen;
}
function rowsOf(records) {
  const rows = /* @__PURE__ */ new Map();
  const add = (metric, kind, unit) => {
    if (rows.has(metric) || rows.size >= MAX_ROWS) return;
    const { test, family } = rowParts(metric);
    rows.set(metric, {
      metric,
      kind,
      unit,
      label: rowLabel(metric),
      test,
      family,
      floor: 0,
      seen: rows.size
    });
  };
  for (const { record } of [...records].reverse()) {
    for (const [m, a] of Object.entries(record.aggregates)) add(m, a.kind, a.unit);
    for (const m of Object.keys(record.tests)) {
      const { kind, unit } = testRowKind(rowParts(m).family, m);
      add(m, kind, unit);
    }
  }
  for (const row of rows.values()) {
    row.floor = row.test === "aggregate" ? aggregateFloor(records, row.metric) : testFloor(row.metric);
  }
  return [...rows.values()].sort(compareRows).map((r) => ({
    metric: r.metric,
    kind: r.kind,
    unit: r.unit,
    label: r.label,
    test: r.test,
    family: r.family,
    floor: r.floor
  }));
}
function aggregateFloor(records, metric) {
  let floor = 0;
  for (const { record } of records) floor = Math.max(floor, record.aggregates[metric]?.floor ?? 0);
  return floor;
}
function valueOf(r, metric) {
  return r.record.aggregates[metric]?.v ?? r.record.tests[metric] ?? null;
}
function attributionIndex(run, row) {
  const exact = run.steps.findIndex((s) => s.metric === row.metric);
  if (exact >= 0) return exact;
  return run.steps.findIndex((s) => rowParts(s.metric).family === row.family);
}
function stepsOf(rows, runs, values) {
  const steps = [];
  const at = /* @__PURE__ */ new Map();
  runs.forEach((r, i) => at.set(`${r.commit} ${r.date}`, i));
  for (const row of rows) {
    if (!isCountKind(row.kind)) continue;
    const xs = values.get(row.metric) ?? [];
    const series = [];
    xs.forEach((v, i) => {
      if (v === null) return;
      const r = runs[i];
      series.push({
        schema: "afpbench-history/1",
        commit: r.commit,
        date: r.date,
        runId: r.runId,
        key: "",
        release: "",
        provenance: r.provenance,
        aggregates: {
          [row.metric]: {
            v,
            kind: row.kind,
            unit: row.unit,
            ...row.floor > 0 ? { floor: row.floor } : {}
          }
        },
        tests: {}
      });
    });
    for (const s of driftOf(series)) {
      const run = at.get(`${s.commit} ${s.date}`);
      if (run === void 0) continue;
      if (steps.length >= MAX_PAGE_STEPS) return steps;
      steps.push({
        metric: row.metric,
        at: run,
        before: s.before,
        after: s.after,
        attribution: attributionIndex(runs[run], row)
      });
    }
  }
  return steps;
}
function orderRuns(records) {
  const byId = /* @__PURE__ */ new Map();
  for (const r of records) {
    const had = byId.get(r.run.id);
    if (had === void 0 || had.run.archived && !r.run.archived) byId.set(r.run.id, r);
  }
  return [...byId.values()].sort(
    (a, b) => a.run.date < b.run.date ? -1 : a.run.date > b.run.date ? 1 : a.run.id < b.run.id ? -1 : a.run.id > b.run.id ? 1 : 0
  ).slice(-MAX_RUNS);
}
function keyFiles(dir, key, given, archives = []) {
  const records = orderRuns(given);
  const rows = rowsOf(records);
  const runs = records.map((r) => r.run);
  const values = new Map(
    rows.map((row) => [row.metric, records.map((r) => valueOf(r, row.metric))])
  );
  const files = /* @__PURE__ */ new Map();
  const chunks = [];
  for (let c = 0; c * CHUNK_RUNS < runs.length; c++) {
    const lo = c * CHUNK_RUNS;
    const hi = Math.min(runs.length, lo + CHUNK_RUNS);
    const part = new Map([...values].map(([m, xs]) => [m, xs.slice(lo, hi)]));
    files.set(chunkFile(c), encodeChunk(runs.slice(lo, hi), part));
    chunks.push({ file: chunkFile(c), runs: hi - lo });
  }
  const data = {
    schema: PAGE_SCHEMA,
    key,
    dir,
    runs: runs.length,
    rows,
    chunks,
    steps: stepsOf(rows, runs, values),
    archives: [...new Set(archives)].sort()
  };
  const { key: keyJson, rows: rowsJson } = encodeKey(data);
  files.set("key.json", keyJson);
  files.set("rows.json", rowsJson);
  return {
    data,
    files,
    summary: {
      key,
      dir,
      runs: runs.length,
      first: runs[0]?.date ?? "",
      last: runs[runs.length - 1]?.date ?? ""
    }
  };
}
function indexFile(keys, repoUrl) {
  const index = {
    schema: PAGE_SCHEMA,
    repoUrl,
    keys: [...keys].sort((a, b) => a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0)
  };
  return `${JSON.stringify(index)}
`;
}

// src/history-page/write-page.ts
var OutError = class extends Error {
};
function siteFiles(history, opts) {
  const files = pageAssets();
  let runs = 0;
  let steps = 0;
  const summaries = [];
  for (const k of history.keys) {
    const made = keyFiles(k.dir, k.key, k.records, k.archives);
    for (const [name, content] of made.files) files.set(`data/${k.dir}/${name}`, content);
    summaries.push(made.summary);
    runs += made.data.runs;
    steps += made.data.steps.length;
  }
  files.set("data/index.json", indexFile(summaries, opts.repoUrl));
  return { files, runs, steps };
}
function checkOut(out) {
  if (!existsSync2(out)) return;
  if (!lstatSync2(out).isDirectory()) throw new OutError(`${out} exists and is not a directory`);
  if (readdirSync2(out).length === 0) return;
  const index = path3.join(out, "data", "index.json");
  try {
    readIndex(readFileSync3(index, "utf8"), index);
  } catch {
    throw new OutError(
      `${out} is not empty and holds no history page (data/index.json): give an empty or new directory`
    );
  }
}
function writePage(history, out, opts) {
  checkOut(out);
  const { files, runs, steps } = siteFiles(history, opts);
  rmSync(path3.join(out, "data"), { recursive: true, force: true });
  let bytes = 0;
  let dataBytes = 0;
  for (const [name, content] of files) {
    const file = path3.join(out, name);
    mkdirSync(path3.dirname(file), { recursive: true });
    writeFileSync(file, content);
    const n = Buffer.byteLength(content);
    bytes += n;
    if (name.startsWith("data/")) dataBytes += n;
  }
  return { files: files.size, bytes, dataBytes, runs, steps, keys: history.keys.length };
}

// src/history-page/cli.ts
var USAGE = "usage: scripts/history-page DIR [OUT] [--repo-url https://github.com/OWNER/REPO]";
var UsageError = class extends Error {
};
var Help = class extends Error {
};
function parseArgs(argv) {
  const pos = [];
  let repoUrl = "";
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--repo-url") {
      const v = argv[++i] ?? "";
      repoUrl = safeRepoUrl(v);
      if (repoUrl === "")
        throw new UsageError(
          `--repo-url '${v.slice(0, 200)}' is not an https address like https://github.com/OWNER/REPO`
        );
    } else if (a === "-h" || a === "--help") {
      throw new Help(USAGE);
    } else if (a.startsWith("-")) {
      throw new UsageError(`unknown option ${a.slice(0, 60)}
${USAGE}`);
    } else pos.push(a);
  }
  if (pos.length < 1 || pos.length > 2) throw new UsageError(USAGE);
  return { dir: pos[0], out: pos[1] ?? "history-page", repoUrl };
}
function main() {
  try {
    const args = parseArgs(process.argv.slice(2));
    const history = readDataDir(args.dir);
    for (const p of history.problems) process.stderr.write(`history-page: skipped: ${p}
`);
    if (history.keys.length === 0)
      throw new DirError(`${args.dir} holds no readable run (runs/<key>/<YYYY-MM>/*.json)`);
    const w = writePage(history, args.out, { repoUrl: args.repoUrl });
    process.stdout.write(
      `history-page: ${args.out}: ${w.runs} runs of ${w.keys} key(s), ${w.steps} steps; ${w.files} files, ${w.bytes} bytes (data ${w.dataBytes})
`
    );
    return 0;
  } catch (e) {
    if (e instanceof Help) {
      process.stdout.write(`${e.message}
`);
      return 0;
    }
    if (e instanceof UsageError || e instanceof DirError || e instanceof OutError) {
      process.stderr.write(`history-page: ${e.message}
`);
      return 3;
    }
    throw e;
  }
}
process.exitCode = main();
