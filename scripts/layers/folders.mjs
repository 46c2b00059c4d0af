// The folder graph of the source tree: which folder's code imports which.
// Shared by the layer rule in eslint.config.js (a file's folder) and the
// folder-cycle check (scripts/layers/check-folder-cycles.mjs).
import fs from 'node:fs';
import path from 'node:path';

/** Where production code lives; tests, fixtures and tooling are outside the layers. */
export const LAYERED_ROOTS = ['electron', 'shared', 'renderer/src'];

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs)$/;
const TEST = /\.(test|spec)\.(ts|tsx)$/;

/**
 * The layer a repo-relative file belongs to, or null outside the layers.
 * A layer is a top folder of electron/ (electron/runtime's subfolders are
 * layers of their own, its loose files are `electron/runtime`; so is
 * electron/exec/remote), shared/<x>,
 * or renderer/src/<x>.
 */
export function folderOf(relativeFile) {
  const parts = relativeFile.split(/[\\/]/);
  if (parts[0] === 'electron') {
    if (parts.length <= 2) return 'electron';
    if (parts[1] === 'runtime' && parts.length > 3) return `electron/runtime/${parts[2]}`;
    // Remote machines sit above the local supervisor: electron/exec/remote may use it, never the reverse.
    if (parts[1] === 'exec' && parts[2] === 'remote' && parts.length > 3) return 'electron/exec/remote';
    return `electron/${parts[1]}`;
  }
  if (parts[0] === 'shared') return parts.length <= 2 ? 'shared' : `shared/${parts[1]}`;
  if (parts[0] === 'renderer' && parts[1] === 'src') return parts.length <= 3 ? 'renderer/src' : `renderer/src/${parts[2]}`;
  return null;
}

export function isTestFile(file) {
  return TEST.test(file);
}

/** Module specifiers of a source text: static imports and re-exports, `import x = require()` and import(). */
export function importSpecifiers(text) {
  const found = [];
  const patterns = [
    /^\s*(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]);
  return found;
}

function walk(root, directory, files) {
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) walk(root, full, files);
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') && !isTestFile(entry.name)) files.push(path.relative(root, full));
  }
}

/**
 * Folder → folders it imports (relative imports between layers only), each
 * edge with one file that makes it, so a report can point at the line to change.
 */
export function folderGraph(repoRoot) {
  const files = [];
  for (const root of LAYERED_ROOTS) {
    const directory = path.join(repoRoot, root);
    if (fs.existsSync(directory)) walk(repoRoot, directory, files);
  }
  /** @type {Map<string, Map<string, string>>} */
  const graph = new Map();
  for (const file of files) {
    const from = folderOf(file);
    if (from === null) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    const text = fs.readFileSync(path.join(repoRoot, file), 'utf8');
    for (const specifier of importSpecifiers(text)) {
      if (!specifier.startsWith('.')) continue;
      const to = folderOf(path.relative(repoRoot, path.resolve(repoRoot, path.dirname(file), specifier)));
      if (to === null || to === from) continue;
      const edges = graph.get(from);
      if (!edges.has(to)) edges.set(to, `${file} → ${specifier}`);
    }
  }
  return graph;
}

/** The strongly connected components with more than one folder (Tarjan), each sorted, sorted by first member. */
export function folderCycles(graph) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const nodes = [...new Set([...graph.keys(), ...[...graph.values()].flatMap((edges) => [...edges.keys()])])].sort();
  const visit = (node) => {
    indexOf.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), indexOf.get(next)));
      }
    }
    if (low.get(node) === indexOf.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of nodes) if (!indexOf.has(node)) visit(node);
  return components.sort((a, b) => a[0].localeCompare(b[0]));
}

/** One shortest loop through `start` inside its component, as folders with the import that makes each step. */
export function cycleThrough(graph, component, start = component[0]) {
  const inside = new Set(component);
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const [next, via] of graph.get(node) ?? []) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const steps = [{ from: node, to: start, via }];
        for (let at = node; previous.get(at) !== null; at = previous.get(at).from) steps.unshift(previous.get(at));
        return steps;
      }
      if (!previous.has(next)) {
        previous.set(next, { from: node, to: next, via });
        queue.push(next);
      }
    }
  }
  return [];
}

/**
 * What is wrong with the tree's folder cycles against the allow-list: a cycle
 * not covered by an entry (named with one loop through it), or an entry that
 * no longer matches a cycle exactly (it must shrink with the code).
 */
export function cycleProblems(graph, allowed) {
  const problems = [];
  const components = folderCycles(graph);
  const key = (folders) => [...folders].sort().join(', ');
  const allowedKeys = new Set(allowed.map(key));
  for (const component of components) {
    if (allowedKeys.has(key(component))) continue;
    const loop = cycleThrough(graph, component);
    const wider = allowed.find((entry) => component.every((folder) => entry.includes(folder)));
    problems.push(
      wider
        ? `The known cycle [${key(wider)}] shrank to [${key(component)}]: write that in scripts/layers/known-folder-cycles.mjs.`
        : `Folder cycle: ${loop.map((step) => step.from).join(' → ')} → ${loop[0]?.from}\n` + loop.map((step) => `    ${step.from} → ${step.to}: ${step.via}`).join('\n'),
    );
  }
  const current = new Set(components.map(key));
  for (const entry of allowed) {
    const shrunk = components.some((component) => component.every((folder) => entry.includes(folder)));
    if (!current.has(key(entry)) && !shrunk) problems.push(`The known cycle [${key(entry)}] is gone: delete it from scripts/layers/known-folder-cycles.mjs.`);
  }
  return problems;
}
